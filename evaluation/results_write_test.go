package evaluation

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
)

// The results table, written a cell at a time, is byte for byte the one
// written from every row at once, over cells large and small enough that
// its columns span many pages.
func TestWriteResultsSameBytes(t *testing.T) {
	if raceEnabled {
		t.Skip("both writes run on one goroutine: make test-norace runs this")
	}
	r := rand.New(rand.NewPCG(3, 4))
	rep := &Report{Spec: Spec{Experiment: "x"}}
	for i, n := range []int{30000, 7, 0, 100001, 64, 45000} {
		c := CellResult{Cell: Cell{Experiment: "x", Cluster: "c", Workload: fmt.Sprint("w", i%2), Scheduler: schedulers.Name("s"), Seed: i}}
		for k := range n {
			c.Jobs = append(c.Jobs, sim.JobResult{Index: k, JobID: fmt.Sprintf("j%d", r.IntN(1e6)), SubmitS: r.Float64() * 1e5,
				JCTS: r.ExpFloat64() * 3600, FeeUSD: r.Float64() * 20, GPUs: float64(r.IntN(8)), Machines: 1 + r.IntN(4)})
		}
		rep.Cells = append(rep.Cells, c)
	}
	dir := t.TempDir()
	meta := datasets.FileMeta{Source: "eval:x", ConfigHash: "h"}
	want, got := filepath.Join(dir, "want.parquet"), filepath.Join(dir, "got.parquet")
	rows, err := rep.Results()
	if err != nil {
		t.Fatal(err)
	}
	if err := datasets.WriteParquet(want, meta, rows); err != nil {
		t.Fatal(err)
	}
	if err := rep.writeResults(context.Background(), got, meta); err != nil {
		t.Fatal(err)
	}
	wb, _ := os.ReadFile(want)
	gb, _ := os.ReadFile(got)
	if len(wb) < 1<<20 || !bytes.Equal(wb, gb) {
		t.Errorf("written a cell at a time: %d bytes, all at once: %d bytes; want the same bytes (of a file over 1 MiB)", len(gb), len(wb))
	}
}
