package evaluation

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/internal/shareddata"
	"github.com/schedlab/schedlab/schedulers"
)

// preemptiveTraces ingests one file of each default trace of the
// preemptive experiment from the shared data into dir (skipping when the
// data is absent) and returns their jobs tables by source.
func preemptiveTraces(t *testing.T, dir string) map[string]string {
	t.Helper()
	inputs := map[string]string{
		datasets.SourcePhillyGavel: "philly-gavel/0e4a51.trace",
		datasets.SourceElasticFlow: "elasticflow/cluster02.csv",
		datasets.SourcePAISim:      "pai-v2020/operate_simulator_jobs_6000.csv",
	}
	out := map[string]string{}
	for _, src := range PreemptiveTraces {
		in := shareddata.Path(t, inputs[src])
		r, err := datasets.Lookup(src)
		if err != nil {
			t.Fatal(err)
		}
		od := filepath.Join(dir, src)
		if _, err := r.Ingest(context.Background(), datasets.Request{Inputs: []string{in}, OutDir: od, Meta: datasets.FileMeta{Source: src}}); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		out[src] = filepath.Join(od, datasets.JobsFile)
	}
	return out
}

// TestPreemptiveExperiment runs the preemptive experiment's documented
// spec, cut to a few hundred jobs of each shared trace: every row has a
// value in every column, the oracles come last, a row that never
// preempts is the same at both restart costs, and some preemptive row is
// not (so the restart cost reached the cells); with one and with three
// workers to the same bytes, and at another run seed to the same figures.
func TestPreemptiveExperiment(t *testing.T) {
	files := preemptiveTraces(t, t.TempDir())
	s, err := DefaultSpec(Preemptive)
	if err != nil {
		t.Fatal(err)
	}
	s.Clusters = s.Clusters[:1] // small: the jobs queue there
	// The round-based rows (Gandiva's 60 s slices, Gavel's linear
	// programs every 360 s) cost most of the time of three runs of every
	// row (169 s under -race on a loaded host): they run once, on fewer
	// jobs, in TestPreemptiveRoundRows.
	s.Schedulers = slices.DeleteFunc(s.Schedulers, roundBased)
	for i := range s.Workloads {
		w := &s.Workloads[i]
		w.JobsFile, w.MaxJobs = files[w.Source], 300
	}
	data := map[string]string{schedulers.GittinsSamplesFile: shareddata.Path(t, schedulers.GittinsSamplesFile)}
	var tables [3][]byte
	var rep *Report
	for k, run := range []struct {
		seed    uint64
		workers int
	}{{5, 1}, {5, 3}, {6, 2}} {
		rep, err = Run(context.Background(), s, Options{Seed: run.seed, Workers: run.workers, Data: data})
		if err != nil {
			t.Fatal(err)
		}
		tables[k] = rep.Table().CSV()
	}
	if string(tables[0]) != string(tables[1]) {
		t.Fatalf("the table differs between 1 and 3 workers:\n%s\n%s", tables[0], tables[1])
	}
	// No row draws from the seed and the traces are files: another run
	// seed changes only the note that names it.
	if a, b := strings.ReplaceAll(string(tables[0]), "run seed 5", ""), strings.ReplaceAll(string(tables[2]), "run seed 6", ""); a != b {
		t.Fatalf("the table differs between run seeds 5 and 6 beyond the seed's note:\n%s\n%s", a, b)
	}
	tab := rep.Table()
	if notes := strings.Join(tab.Notes, "\n"); !strings.Contains(notes, "2D-LAS (Tiresias) every") || !strings.Contains(notes, "elasticflow-r30 30 s") {
		t.Errorf("notes do not say which rows run their own trigger, or the restart costs:\n%s", notes)
	}
	var labels []string
	for _, r := range tab.Rows {
		if r.Source == SourceOurs {
			labels = append(labels, r.Label)
		}
	}
	if last := labels[len(labels)-2:]; last[0] != schedulers.Display("srtf") || last[1] != schedulers.Display("srsf") {
		t.Errorf("rows %v: want the oracles last", labels)
	}
	mean := map[string]float64{} // scheduler/workload → mean JCT
	for _, c := range rep.Cells {
		mean[string(c.Cell.Scheduler)+"/"+c.Cell.Workload] = c.Metrics.MeanJCTS
		if c.Metrics.Jobs == 0 {
			t.Errorf("%s: no job evaluated", c.Cell.Key())
		}
	}
	if want := len(s.Schedulers) * len(s.Workloads); len(rep.Cells) != want {
		t.Fatalf("%d cells, want %d", len(rep.Cells), want)
	}
	restartShows := false
	for _, src := range PreemptiveTraces {
		r0, r30 := PreemptiveWorkloadName(src, 0), PreemptiveWorkloadName(src, 30)
		for _, name := range s.Schedulers {
			a, b := mean[name+"/"+r0], mean[name+"/"+r30]
			if info, _ := schedulers.Lookup(name); info.Trigger == "" || name == "fifo-strict" {
				if a != b {
					t.Errorf("%s on %s: mean JCT %v at restart 0, %v at 30: a row that never preempts pays no restart", name, src, a, b)
				}
			} else if a != b {
				restartShows = true
			}
			t.Logf("%-16s %-13s mean JCT %8.0f s (r0) %8.0f s (r30)", name, src, a, b)
		}
	}
	if !restartShows {
		t.Error("no preemptive row changed with the restart cost: it did not reach the cells, or nothing was preempted")
	}
	if !slices.Contains(labels, schedulers.Display("tiresias-las")) {
		t.Errorf("rows %v: no 2D-LAS", labels)
	}
}

// roundBased are the preemptive experiment's rows that act in rounds.
func roundBased(name string) bool { return name == "gandiva" || strings.HasPrefix(name, "gavel-") }

// TestPreemptiveRoundRows: the documented spec's round-based rows
// (Gandiva, Gavel's three) give every column a value, on the first 100
// jobs of each shared trace; left to make test-norace (each has tests of
// its own in schedulers).
func TestPreemptiveRoundRows(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("rounds over every waiting job: make test-norace runs it")
	}
	files := preemptiveTraces(t, t.TempDir())
	s, err := DefaultSpec(Preemptive)
	if err != nil {
		t.Fatal(err)
	}
	s.Clusters = s.Clusters[:1]
	s.Schedulers = slices.DeleteFunc(s.Schedulers, func(n string) bool { return !roundBased(n) })
	for i := range s.Workloads {
		w := &s.Workloads[i]
		w.JobsFile, w.MaxJobs = files[w.Source], 100
	}
	rep, err := Run(context.Background(), s, Options{Seed: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if want := 4 * len(s.Workloads); len(s.Schedulers) != 4 || len(rep.Cells) != want {
		t.Fatalf("rows %v, %d cells: want Gandiva's and Gavel's three rows, %d cells", s.Schedulers, len(rep.Cells), want)
	}
	for _, c := range rep.Cells {
		if c.Metrics.Jobs == 0 || !(c.Metrics.MeanJCTS > 0) {
			t.Errorf("%s: %d jobs, mean JCT %v", c.Cell.Key(), c.Metrics.Jobs, c.Metrics.MeanJCTS)
		}
	}
}
