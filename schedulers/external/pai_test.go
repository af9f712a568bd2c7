package external_test

import (
	"context"
	"os"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/internal/shareddata"
	"github.com/schedlab/schedlab/sim"
)

// paiJobs reads the PAI simulator's 6,000-job subset through the pai-sim
// reader (as `schedlab ingest --source pai-sim` and replay read it).
func paiJobs(t testing.TB) []datasets.Job {
	t.Helper()
	path := shareddata.Path(t, "pai-v2020/operate_simulator_jobs_6000.csv")
	r, err := datasets.Lookup(datasets.SourcePAISim)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := r.Ingest(context.Background(), datasets.Request{Inputs: []string{path}, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range rep.Outputs {
		if o.Table == "jobs" {
			jobs, err := datasets.ReadParquet[datasets.Job](o.Path)
			if err != nil {
				t.Fatal(err)
			}
			if len(jobs) != 6000 {
				t.Fatalf("read %d jobs, want 6000", len(jobs))
			}
			return jobs
		}
	}
	t.Fatalf("the pai-sim reader wrote no jobs table: %+v", rep.Outputs)
	return nil
}

func smallPreset(t testing.TB) *sim.Cluster {
	spec, err := sim.Preset("small")
	if err != nil {
		t.Fatal(err)
	}
	c, err := spec.Build()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestPAISubsetMatchesBuiltin: on the PAI subset, on DAS Small, the Python
// FIFO-FirstFit gives every job the same submit, start and finish (and so
// JCT, fee, slowdown) as the built-in fifo-firstfit, bit for bit, under
// the full speed model and under a pure replay. Its wake_on ("fit") asks
// it exactly at the decision points where the built-in starts a job: the
// subset's jobs have one task each, for which the copies that fit decide
// whether first-fit succeeds, so no message is answered with nothing and
// none can be spared.
func TestPAISubsetMatchesBuiltin(t *testing.T) {
	if raceEnabled {
		t.Skip("minutes under the race detector; make test-norace runs it")
	}
	jobs := paiJobs(t)
	cmd := example(t, "fifo_firstfit.py")
	c := smallPreset(t)
	replay := sim.DefaultConfig()
	replay.Speed = sim.SpeedStandalone
	for name, cfg := range map[string]sim.Config{"model": sim.DefaultConfig(), "standalone": replay} {
		t.Run(name, func(t *testing.T) {
			pc := cmd
			if f := os.Getenv("SL_CAPTURE"); f != "" {
				pc = "sh -c 'tee " + f + "." + name + " | " + cmd + "'"
			}
			res, n, acted := matchBuiltin(t, c, jobs, cfg, "fifo-firstfit", pc)
			if n != acted {
				t.Errorf("asked %d times; the built-in started jobs at %d decision points", n, acted)
			}
			t.Logf("%d jobs, %d decisions, the policy asked %d times: decision time python %.2fs", len(res.Jobs), res.Decisions, n, res.Timing.DecisionS)
		})
	}
}
