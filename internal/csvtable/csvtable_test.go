package csvtable

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func write(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.csv")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRead(t *testing.T) {
	header := []string{"a", "b"}
	p := write(t, "a,b\n1,2\n\"x\ny\",3\n4,5\n")
	var got [][]string
	var lines []int
	err := Read(p, header, func(rec []string, pos func(int) (int, int)) error {
		got = append(got, rec)
		line, _ := pos(1)
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"1", "2"}, {"x\ny", "3"}, {"4", "5"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("records %q, want %q", got, want)
	}
	// The quoted field spans lines 3 and 4: its record's second field
	// starts on line 4.
	if want := []int{2, 4, 5}; !reflect.DeepEqual(lines, want) {
		t.Errorf("lines %v, want %v", lines, want)
	}
}

func TestReadErrors(t *testing.T) {
	header := []string{"a", "b"}
	none := func([]string, func(int) (int, int)) error { return nil }
	for _, tc := range []struct{ name, text, want string }{
		{"empty", "", "header: EOF"},
		{"other header", "a,c\n1,2\n", `line 1: header ["a" "c"], want ["a" "b"]`},
		{"short header", "a\n", "header: record on line 1: wrong number of fields"},
		{"short record", "a,b\n1,2\n3\n", "record on line 3: wrong number of fields"},
	} {
		p := write(t, tc.text)
		err := Read(p, header, none)
		if err == nil || !strings.HasPrefix(err.Error(), p+": ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %s: …%s…", tc.name, err, p, tc.want)
		}
	}
	if err := Read(filepath.Join(t.TempDir(), "none.csv"), header, none); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: error %v, want os.ErrNotExist", err)
	}
	stop := fmt.Errorf("row 1 is bad")
	calls := 0
	err := Read(write(t, "a,b\n1,2\n3,4\n"), header, func([]string, func(int) (int, int)) error { calls++; return stop })
	if err != stop || calls != 1 {
		t.Errorf("row error: %v after %d calls, want %v after 1", err, calls, stop)
	}
}
