package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeT records errors instead of failing the test that runs it.
type fakeT struct {
	testing.TB
	errs []string
}

func (f *fakeT) Helper()                           {}
func (f *fakeT) Errorf(format string, args ...any) { f.errs = append(f.errs, format) }

func TestCheckAndUpdate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "testdata", "x.golden")
	old := *update
	t.Cleanup(func() { *update = old })

	*update = true
	t.Run("record", func(t *testing.T) {
		g := Open(t, path)
		g.Check(t, "b", "2")
		g.Check(t, "a", "1")
	})
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(b), "a 1\nb 2\n") {
		t.Fatalf("file after -update:\n%s\nwant the keys sorted, one \"key value\" a line", b)
	}

	*update = false
	g := Open(t, path)
	ft := &fakeT{TB: t}
	g.Check(ft, "a", "1")
	if len(ft.errs) != 0 {
		t.Errorf("matching value: errors %v", ft.errs)
	}
	g.Check(ft, "b", "3")
	g.Check(ft, "c", "1")
	if len(ft.errs) != 2 {
		t.Errorf("a changed and a missing value: %d errors, want 2", len(ft.errs))
	}
}
