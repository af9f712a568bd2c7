package schedulers_test

import (
	"context"
	"encoding/csv"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/internal/shareddata"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
)

// readTiresiasTrace ingests one Tiresias trace with the datasets reader.
func readTiresiasTrace(t testing.TB, path string) []datasets.Job {
	t.Helper()
	r, err := datasets.Lookup(datasets.SourceTiresias)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	rep, err := r.Ingest(context.Background(), datasets.Request{Inputs: []string{path}, OutDir: out})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Total.Quarantined != 0 {
		t.Fatalf("%s: %d rows quarantined", path, rep.Total.Quarantined)
	}
	jobs, err := datasets.ReadParquet[datasets.Job](filepath.Join(out, datasets.JobsFile))
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

// tiresiasCluster reads the shared Tiresias cluster spec clusters/NAME.csv
// under root and builds its cluster.
func tiresiasCluster(t testing.TB, root, name string) *sim.Cluster {
	t.Helper()
	spec, err := datasets.ReadTiresiasCluster(filepath.Join(root, "clusters", name+".csv"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := sim.FromTiresias(spec)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// replayTiresias runs policy (a reference name) on trace and cluster as
// `schedlab replay` does: standalone speed, the policy's trigger, no
// restart cost.
func replayTiresias(t testing.TB, jobs []datasets.Job, c *sim.Cluster, policy, samples string) *sim.Result {
	t.Helper()
	info, ok := schedulers.Lookup(policy)
	if !ok {
		t.Fatalf("policy %s not registered", policy)
	}
	sched, err := schedulers.New(schedulers.Name(policy), schedulers.Options{Tiresias: &schedulers.TiresiasConfig{GittinsSamples: samples}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := sim.DefaultConfig()
	cfg.Speed = sim.SpeedStandalone
	cfg.Trigger = info.Trigger
	res, err := sim.Run(context.Background(), c, jobs, sched, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestTiresiasReference replays every trace × cluster × policy of the
// shared Tiresias reference outputs and checks every job's start and end
// within 1 s of the reference simulator's and its preemption count equal.
// SCHEDLAB_TIRESIAS_DIR points it at another directory of the same layout
// (traces/, clusters/, reference/TRACE__CLUSTER__POLICY.job.csv and the
// yarn-gput*.csv samples), such as the traces held back for an
// independent check.
func TestTiresiasReference(t *testing.T) {
	root := os.Getenv("SCHEDLAB_TIRESIAS_DIR")
	if root == "" {
		root = shareddata.Path(t, "tiresias")
	}
	files, err := filepath.Glob(filepath.Join(root, "reference", "*.job.csv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no reference outputs in %s (%v)", root, err)
	}
	traces := map[string][]datasets.Job{}
	for _, f := range files {
		parts := strings.Split(strings.TrimSuffix(filepath.Base(f), ".job.csv"), "__")
		if len(parts) != 3 {
			t.Fatalf("%s: want TRACE__CLUSTER__POLICY.job.csv", f)
		}
		trace, cluster, policy := parts[0], parts[1], parts[2]
		t.Run(trace+"/"+cluster+"/"+policy, func(t *testing.T) {
			jobs, ok := traces[trace]
			if !ok {
				jobs = readTiresiasTrace(t, filepath.Join(root, "traces", trace+".csv"))
				traces[trace] = jobs
			}
			c := tiresiasCluster(t, root, cluster)
			res := replayTiresias(t, jobs, c, policy, filepath.Join(root, "yarn-gput1000.csv"))
			got := map[string]sim.JobResult{}
			for _, r := range res.Jobs {
				got[strings.TrimPrefix(r.JobID, trace+"/")] = r
			}
			pre := map[int]int{}
			for _, p := range res.Preempted {
				pre[p.Index] = p.Preemptions
			}
			want := readReference(t, f)
			if len(res.Jobs) != len(want) || len(res.Pruned) != 0 {
				t.Errorf("%d jobs finished, %d pruned; the reference finished %d", len(res.Jobs), len(res.Pruned), len(want))
			}
			bad := 0
			for _, w := range want {
				g, ok := got[w.id]
				if !ok {
					t.Errorf("job %s: did not finish", w.id)
					continue
				}
				if math.Abs(g.StartS-w.start) > 1 || math.Abs(g.FinishS-w.end) > 1 || pre[g.Index] != w.preempt {
					if bad++; bad <= 5 {
						t.Errorf("job %s: start %g end %g preempt %d; reference %g %g %d", w.id, g.StartS, g.FinishS, pre[g.Index], w.start, w.end, w.preempt)
					}
				}
			}
			if bad > 5 {
				t.Errorf("... %d of %d jobs differ", bad, len(want))
			}
		})
	}
}

type refJob struct {
	id         string
	start, end float64
	preempt    int
}

func readReference(t *testing.T, path string) []refJob {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	var out []refJob
	for i, r := range recs[1:] {
		num := func(name string) float64 {
			v, err := strconv.ParseFloat(r[col[name]], 64)
			if err != nil {
				t.Fatalf("%s:%d: %s: %v", path, i+2, name, err)
			}
			return v
		}
		out = append(out, refJob{id: r[col["job_id"]], start: num("start_time"), end: num("end_time"), preempt: int(num("preempt"))})
	}
	return out
}

// sharedDataDir is the shared data folder when it exists (where the Gittins
// policy finds its samples), else "".
func sharedDataDir() string {
	for _, d := range []string{"../../shared/data", "/work/shared/data"} {
		if _, err := os.Stat(filepath.Join(d, "tiresias")); err == nil {
			return d
		}
	}
	return ""
}

// newScheduler builds a registered scheduler with the shared data folder,
// skipping the test for a policy whose data is absent.
func newScheduler(t testing.TB, name schedulers.Name, seed uint64) sim.Scheduler {
	t.Helper()
	s, err := schedulers.New(name, schedulers.Options{Seed: seed, DataDir: sharedDataDir()})
	if errors.Is(err, schedulers.ErrNeedsData) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}
