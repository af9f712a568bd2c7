package evaluation

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
)

// replicatedSpec is smallDAS with the learned row das, of which each
// cluster has three "trained models": stand-ins that differ by replicate
// (replicateModels), as independently trained models do.
func replicatedSpec(t *testing.T) Spec {
	s := smallDAS(t)
	s.Schedulers = []string{"fifo-ff", "das"}
	s.Replicates = map[string]int{ReplicateKey("das", s.Clusters[0].Name): 3, ReplicateKey("das", s.Clusters[1].Name): 3}
	return s
}

// replicateModels stands in for trained models: replicate r of das is the
// r-th of three different heuristics, so that the replicates differ.
func replicateModels(c Cell, seed uint64) (sim.Scheduler, error) {
	if c.Scheduler != "das" {
		return nil, nil
	}
	name := []schedulers.Name{"fifo-loadbalance", "tetris", "drf-firstfit"}[c.Replicate]
	return schedulers.New(name, schedulers.Options{Seed: seed})
}

func TestReplicates(t *testing.T) {
	s := replicatedSpec(t)
	write := func(workers int) string {
		_, dir := runAndWriteWith(t, s, Options{Seed: 7, Workers: workers, NewScheduler: replicateModels})
		return dir
	}
	d1, d3 := write(1), write(3)
	for _, f := range []string{ResultsFile, MetricsFile, "tables/das-table1.md", "tables/das-table1.csv", "tables/das-table1.tex", "plots/das-table1.svg"} {
		a, err := os.ReadFile(filepath.Join(d1, f))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(d3, f))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between 1 and 3 workers", f)
		}
	}

	rows, err := datasets.ReadParquet[MetricsRow](filepath.Join(d1, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	// 2 clusters × (fifo-ff × 1 + das × 3 replicates), one seed.
	if len(rows) != 8 {
		t.Fatalf("%d metrics rows, want 8", len(rows))
	}
	jct := map[int32]float64{}
	for _, r := range rows {
		if r.Scheduler == "fifo-firstfit" && r.Replicate != 0 {
			t.Errorf("heuristic row with replicate %d", r.Replicate)
		}
		if r.Scheduler == "das" && r.Cluster == s.Clusters[0].Name {
			jct[r.Replicate] = r.MeanJCTS
		}
	}
	if len(jct) != 3 || jct[0] == jct[1] || jct[1] == jct[2] {
		t.Errorf("das replicates: %v, want three different mean JCTs", jct)
	}

	md, _ := os.ReadFile(filepath.Join(d1, "tables/das-table1.md"))
	csv, _ := os.ReadFile(filepath.Join(d1, "tables/das-table1.csv"))
	tex, _ := os.ReadFile(filepath.Join(d1, "tables/das-table1.tex"))
	for _, line := range strings.Split(string(md), "\n") {
		switch {
		case strings.HasPrefix(line, "| DAS |") && strings.Count(line, " ± ") < 2:
			t.Errorf("DAS row without intervals: %s", line)
		case strings.HasPrefix(line, "| FIFO-FirstFit |") && strings.Contains(line, "±"):
			t.Errorf("single-replicate row with an interval: %s", line)
		}
	}
	if !strings.Contains(string(md), "percentile-bootstrap") || !strings.Contains(string(md), "(train.seeds): DAS 3.") {
		t.Errorf("no note on the intervals:\n%s", md)
	}
	head, _, _ := strings.Cut(string(csv), "\n")
	if !strings.Contains(head, "small_jct_min,small_jct_min_ci_lo,small_jct_min_ci_hi,") {
		t.Errorf("CSV header without interval columns: %s", head)
	}
	if !strings.Contains(string(tex), `$\pm$`) {
		t.Errorf("LaTeX without intervals:\n%s", tex)
	}

	// One cluster replicated: the note says where.
	one := s
	one.Replicates = map[string]int{ReplicateKey("das", s.Clusters[0].Name): 2}
	rep, err := Run(context.Background(), one, Options{Seed: 7, NewScheduler: replicateModels})
	if err != nil {
		t.Fatal(err)
	}
	if notes := strings.Join(rep.Table().Notes, "\n"); !strings.Contains(notes, "(train.seeds): DAS 2 on small (1 elsewhere).") {
		t.Errorf("notes of a replicate on one cluster:\n%s", notes)
	}

	// The interval is BootstrapMeanCI's, bracketing the mean of the three.
	tab := func() *Table {
		rep, err := Run(context.Background(), s, Options{Seed: 7, Workers: 2, NewScheduler: replicateModels})
		if err != nil {
			t.Fatal(err)
		}
		return rep.Table()
	}()
	row := tab.Rows[1]
	iv := row.CI[0]
	if iv.N != 3 || !(iv.Lo < row.Values[0] && row.Values[0] < iv.Hi) {
		t.Errorf("DAS small JCT %v, interval %+v", row.Values[0], iv)
	}
	if tab.Rows[0].CI != nil {
		t.Errorf("heuristic row has intervals %v", tab.Rows[0].CI)
	}
	// Every group has the same replicates: the average has one too.
	if !row.CI[len(row.Values)-2].Valid() {
		t.Errorf("average without interval: %+v", row.CI)
	}
}

// TestReplicateZeroUnchanged: a spec naming one model per learned row
// writes the bytes of a spec without Replicates, and replicate 0 of a
// replicated row is the cell a single model gives.
func TestReplicateZeroUnchanged(t *testing.T) {
	s := replicatedSpec(t)
	one := s
	one.Replicates = nil
	a, err := Run(context.Background(), one, Options{Seed: 7, NewScheduler: replicateModels})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(context.Background(), s, Options{Seed: 7, NewScheduler: replicateModels})
	if err != nil {
		t.Fatal(err)
	}
	for _, ca := range a.Cells {
		found := false
		for _, cb := range b.Cells {
			if cb.Cell.Cluster == ca.Cell.Cluster && cb.Cell.Scheduler == ca.Cell.Scheduler && cb.Cell.Replicate == 0 {
				found = true
				if cb.Metrics != ca.Metrics {
					t.Errorf("%s: replicate 0 differs from the single model", ca.Cell.Key())
				}
			}
		}
		if !found {
			t.Errorf("%s missing", ca.Cell.Key())
		}
	}
	h1, _ := a.ConfigHash()
	ones := s
	ones.Replicates = map[string]int{}
	c, _ := Run(context.Background(), ones, Options{Seed: 7, NewScheduler: replicateModels})
	if h2, _ := c.ConfigHash(); h1 != h2 {
		t.Error("an empty Replicates changes the spec's hash")
	}
}

func TestReplicatesValidate(t *testing.T) {
	for name, reps := range map[string]map[string]int{
		"no @":       {"das": 2},
		"heuristic":  {"fifo-firstfit@small": 2},
		"not in run": {"rifling@small": 2},
		"cluster":    {"das@huge": 2},
		"zero":       {"das@small": 0},
		"too many":   {"das@small": MaxReplicates + 1},
	} {
		s := replicatedSpec(t)
		s.Replicates = reps
		err := s.Validate()
		if err == nil || !strings.Contains(err.Error(), "replicates[") {
			t.Errorf("%s: %v, want an error naming replicates", name, err)
		}
	}
}
