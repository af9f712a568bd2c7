package evaluation

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sim"
)

// writeAll runs s with opt, writes its outputs into a fresh directory and
// closes the report.
func writeAll(t *testing.T, s Spec, opt Options) (*Report, string) {
	t.Helper()
	rep, dir := runAndWriteWith(t, s, opt)
	if err := rep.Close(); err != nil {
		t.Fatal(err)
	}
	return rep, dir
}

// TestSpillSameBytes: a report whose cells' results went to scratch files
// writes every output (but the wall-clock timings) byte for byte as one
// that kept them in memory, with its Wilcoxon notes, whatever the order
// the cells finished in; Close leaves the scratch directory empty.
func TestSpillSameBytes(t *testing.T) {
	for _, mk := range []func(*testing.T) Spec{smallDAS, smallMARL} {
		s := mk(t)
		s.Seeds = 2
		t.Run(s.Experiment, func(t *testing.T) {
			_, mem := writeAll(t, s, Options{Seed: 7, Workers: 1, NewScheduler: cheapSchedulers})
			scratch := t.TempDir()
			rep, spilled := writeAll(t, s, Options{Seed: 7, Workers: 3, NewScheduler: cheapSchedulers, ScratchDir: scratch})
			for _, c := range rep.Cells {
				if c.Jobs != nil || c.JobsFile == "" {
					t.Fatalf("cell %s kept %d jobs in memory (file %q)", c.Cell.Key(), len(c.Jobs), c.JobsFile)
				}
			}
			if left, err := os.ReadDir(scratch); err != nil || len(left) != 0 {
				t.Errorf("scratch directory after Close: %v (%v)", left, err)
			}
			compared := 0
			for _, p := range RunLayout(mem, s.Experiment).List() {
				if strings.HasSuffix(p, "timings.parquet") {
					continue
				}
				rel, _ := filepath.Rel(mem, p)
				a, _ := os.ReadFile(p)
				b, err := os.ReadFile(filepath.Join(spilled, rel))
				if err != nil || len(a) == 0 || !bytes.Equal(a, b) {
					t.Errorf("%s: %d bytes in memory, %d spilled (%v)", rel, len(a), len(b), err)
				}
				compared++
			}
			md, _ := os.ReadFile(RunLayout(spilled, s.Experiment).Markdown)
			if compared != 7 || !bytes.Contains(md, []byte("Wilcoxon")) {
				t.Errorf("compared %d files; Wilcoxon note in the table: %v", compared, bytes.Contains(md, []byte("Wilcoxon")))
			}
		})
	}
}

// TestPairsIDs: the pairing hash tells job-id sequences apart however
// their ids split, and keeps JCT and fee for replicate 0 only.
func TestPairsIDs(t *testing.T) {
	jobs := func(ids ...string) []sim.JobResult {
		var out []sim.JobResult
		for i, id := range ids {
			out = append(out, sim.JobResult{JobID: id, JCTS: float64(i), FeeUSD: 1})
		}
		return out
	}
	a := pairsOf(Cell{}, jobs("ab", "c"))
	if b := pairsOf(Cell{Replicate: 1}, jobs("ab", "c")); b.ids != a.ids || b.n != 2 || b.jct != nil || len(a.jct) != 2 {
		t.Errorf("same ids: %x %x; replicate 1 kept %d JCTs, replicate 0 %d", a.ids, b.ids, len(b.jct), len(a.jct))
	}
	for _, other := range [][]string{{"a", "bc"}, {"c", "ab"}, {"abc", ""}} {
		if pairsOf(Cell{}, jobs(other...)).ids == a.ids {
			t.Errorf("%q hashes as [ab c]", other)
		}
	}
}

// TestSpillErrors: a scratch file that cannot be written, or read back
// whole, is an error that names its cell; a failed Run leaves no scratch
// file, and a failed or cancelled Write no results table.
func TestSpillErrors(t *testing.T) {
	s := smallDAS(t)
	ctx := context.Background()

	t.Run("write", func(t *testing.T) {
		scratch := t.TempDir()
		// The cells come back after Run made its scratch directory: take
		// its place with a file, so that no cell's file can be made there.
		opt := Options{Seed: 7, ScratchDir: scratch, Cells: func(ctx context.Context, cells []PreparedCell) ([]CellResult, error) {
			made, err := os.ReadDir(scratch)
			if err != nil || len(made) != 1 {
				t.Fatalf("scratch directory holds %v (%v)", made, err)
			}
			p := filepath.Join(scratch, made[0].Name())
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			out := make([]CellResult, len(cells))
			for i := range out {
				out[i].Jobs = []sim.JobResult{{JobID: "j"}}
			}
			return out, nil
		}}
		_, err := Run(ctx, s, opt)
		if err == nil || !strings.Contains(err.Error(), "cell das-table1/small/") || !strings.Contains(err.Error(), "scratch file") {
			t.Errorf("unwritable scratch file: %v", err)
		}
		if left, _ := os.ReadDir(scratch); len(left) != 0 {
			t.Errorf("a failed Run left %v", left)
		}
	})

	t.Run("cells' file", func(t *testing.T) {
		opt := Options{Seed: 7, Cells: func(ctx context.Context, cells []PreparedCell) ([]CellResult, error) {
			out := make([]CellResult, len(cells))
			for i := range out {
				out[i].JobsFile = filepath.Join(t.TempDir(), "missing.gob")
			}
			return out, nil
		}}
		_, err := Run(ctx, s, opt)
		if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "cell das-table1/small/") {
			t.Errorf("a cell's missing results file: %v", err)
		}
	})

	for _, tc := range []struct {
		name   string
		damage func(path string) error
		want   string
	}{
		{"gone", os.Remove, "no such file"},
		{"truncated", func(p string) error { return os.Truncate(p, 40) }, "read "},
		{"short", func(p string) error { return WriteJobs(p, []sim.JobResult{{JobID: "j"}}) }, "holds 1 jobs"},
		{"cancelled", nil, context.Canceled.Error()},
	} {
		t.Run("read back "+tc.name, func(t *testing.T) {
			rep, err := Run(ctx, s, Options{Seed: 7, Workers: 2, NewScheduler: cheapSchedulers, ScratchDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer rep.Close()
			wctx := ctx
			if tc.damage != nil {
				if err := tc.damage(rep.Cells[4].JobsFile); err != nil {
					t.Fatal(err)
				}
			} else {
				c, cancel := context.WithCancel(ctx)
				cancel()
				wctx = c
			}
			dir := t.TempDir()
			to := RunLayout(dir, s.Experiment)
			err = rep.Write(wctx, to)
			if err == nil || !strings.Contains(err.Error(), tc.want) || (tc.damage != nil && !strings.Contains(err.Error(), "cell "+rep.Cells[4].Cell.Key())) {
				t.Errorf("Write: %v, want an error naming cell %s and %q", err, rep.Cells[4].Cell.Key(), tc.want)
			}
			if left, _ := os.ReadDir(filepath.Dir(to.Results)); len(left) != 0 {
				t.Errorf("a failed Write left %v", left)
			}
		})
	}
}
