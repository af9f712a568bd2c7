package datasets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// concatRow is a row with a string, a float and a nested list, large
// enough in numbers that the files below span many pages.
type concatRow struct {
	Name  string    `parquet:"name"`
	Value float64   `parquet:"value"`
	Tags  []float64 `parquet:"tags,list"`
}

// ConcatParquet writes the file WriteParquet writes from every row at
// once, to the byte, whatever the inputs' sizes; a batch that is not a
// multiple of 64 rows would not (the test's own check that the files
// span enough pages to tell).
func TestConcatParquetSameBytes(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	meta := FileMeta{Source: "test", ConfigHash: "c"}
	var all []concatRow
	var inputs []string
	sizes, batches := []int{1000, 0, 150001, 63, 70000}, []int{64, 640, writeBatch, 100}
	if raceEnabled {
		// Under the race detector, where each concatenation takes ten
		// times as long, 23,064 rows, not 221,064, in batches of 640 (a
		// multiple of 64, which splits the third and fifth inputs as
		// writeBatch splits them in the whole) and 100 (not a multiple).
		// A concatenation runs on one goroutine, so the detector finds in
		// these sizes all it would in the whole; make test-norace runs
		// the whole, writeBatch and 64 among its batches. (At 10,064 rows
		// the batch of 100 already writes the same bytes: the check
		// below fails rather than pass vacuously.)
		sizes[2], sizes[4], batches = 15001, 7000, []int{640, 100}
	}
	for i, n := range sizes {
		rows := make([]concatRow, n)
		for k := range rows {
			rows[k] = concatRow{Name: fmt.Sprintf("job-%d-%d", i, r.IntN(1e6)), Value: r.NormFloat64(), Tags: make([]float64, r.IntN(3))}
			for j := range rows[k].Tags {
				rows[k].Tags[j] = r.Float64()
			}
		}
		p := filepath.Join(dir, fmt.Sprintf("in-%d.parquet", i))
		if err := WriteParquet(p, meta, rows); err != nil {
			t.Fatal(err)
		}
		all = append(all, rows...)
		inputs = append(inputs, p)
	}
	want := filepath.Join(dir, "want.parquet")
	if err := WriteParquet(want, meta, all); err != nil {
		t.Fatal(err)
	}
	wb, _ := os.ReadFile(want)
	for _, batch := range batches {
		got := filepath.Join(dir, fmt.Sprintf("got-%d.parquet", batch))
		if err := concatParquet[concatRow](context.Background(), got, meta, inputs, batch); err != nil {
			t.Fatal(err)
		}
		gb, _ := os.ReadFile(got)
		if same := bytes.Equal(gb, wb); same != (batch%64 == 0) {
			t.Errorf("batch %d: same bytes %v, want %v", batch, same, batch%64 == 0)
		}
		back, err := ReadParquet[concatRow](got)
		if err != nil || len(back) != len(all) || back[len(back)-1].Name != all[len(all)-1].Name {
			t.Errorf("batch %d: read back %d rows, %v", batch, len(back), err)
		}
	}
	// A bad input is an error naming it.
	bad := filepath.Join(dir, "bad.parquet")
	os.WriteFile(bad, []byte("not parquet"), 0o644)
	if err := ConcatParquet[concatRow](context.Background(), filepath.Join(dir, "x.parquet"), meta, []string{inputs[0], bad}); err == nil || !bytes.Contains([]byte(err.Error()), []byte(bad)) {
		t.Errorf("got %v, want an error naming %s", err, bad)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.parquet")); !os.IsNotExist(err) {
		t.Errorf("a failed concatenation left its output: %v", err)
	}
	// A cancelled concatenation stops, leaving nothing.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ConcatParquet[concatRow](ctx, filepath.Join(dir, "y.parquet"), meta, inputs); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "y.parquet")); !os.IsNotExist(err) {
		t.Errorf("a cancelled concatenation left its output: %v", err)
	}
}
