package pipeline

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGobRoundTrip: WriteGobAtomic and ReadGob carry float64s bit for bit
// (NaN payloads, −0, ±Inf); a damaged file is an error naming it, and a
// value gob cannot encode leaves no file.
func TestGobRoundTrip(t *testing.T) {
	type row struct {
		ID string
		X  []float64
	}
	want := []row{{"a", []float64{math.Float64frombits(0x7ff8000000000abc), math.Copysign(0, -1), math.Inf(-1), 1.5}}, {"b", nil}}
	path := filepath.Join(t.TempDir(), "sub", "rows.gob")
	if err := WriteGobAtomic(path, want); err != nil {
		t.Fatal(err)
	}
	var got []row
	if err := ReadGob(path, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || got[0].ID != "a" || got[1].ID != "b" || len(got[0].X) != len(want[0].X) {
		t.Fatalf("read back %v", got)
	}
	for i, x := range want[0].X {
		if math.Float64bits(got[0].X[i]) != math.Float64bits(x) {
			t.Errorf("value %d: %#x, wrote %#x", i, math.Float64bits(got[0].X[i]), math.Float64bits(x))
		}
	}
	if err := os.Truncate(path, 10); err != nil {
		t.Fatal(err)
	}
	if err := ReadGob(path, &got); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("truncated file: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.gob")
	if err := WriteGobAtomic(bad, func() {}); err == nil {
		t.Error("a func encoded")
	}
	if left, _ := os.ReadDir(filepath.Dir(bad)); len(left) != 0 {
		t.Errorf("a failed write left %v", left)
	}
}
