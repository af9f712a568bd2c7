package schedulers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/internal/shareddata"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
)

// TestCountingSameResults replays the shared Tiresias traces (one-GPU
// workers: the walk's first pass counts GPUs) under each walking
// reference policy, at restart 0 and 30 s, once as is and once with
// every first-pass job booked server by server, and compares the
// results' bytes: counting is exact, not within the reference's 1 s.
func TestCountingSameResults(t *testing.T) {
	root := shareddata.Path(t, "tiresias")
	for _, tc := range []struct{ trace, cluster string }{{"ef02-500", "n8g4"}, {"tiresias-60", "n2g4"}} {
		jobs := readTiresiasTrace(t, filepath.Join(root, "traces", tc.trace+".csv"))
		c := tiresiasCluster(t, root, tc.cluster)
		for _, policy := range []string{"dlas-gpu", "dlas-gpu-gittins", "shortest", "shortest-gpu"} {
			for _, restart := range []float64{0, 30} {
				run := func(book bool) ([]byte, int) {
					info, _ := schedulers.Lookup(policy)
					s, err := schedulers.New(schedulers.Name(policy), schedulers.Options{Tiresias: &schedulers.TiresiasConfig{GittinsSamples: filepath.Join(root, "yarn-gput1000.csv")}})
					if err != nil {
						t.Fatal(err)
					}
					if book {
						schedulers.BookAlways(s)
					}
					cfg := sim.DefaultConfig()
					cfg.Speed, cfg.Trigger, cfg.SkipFloor = sim.SpeedStandalone, info.Trigger, true
					if restart != 0 {
						cfg.RestartS = sim.RestartFixed(restart)
					}
					b, _ := runBytes(t, c, jobs, s, cfg)
					return b, schedulers.Counted(s)
				}
				counted, n := run(false)
				booked, m := run(true)
				if n == 0 || m != 0 {
					t.Fatalf("%s/%s/%s restart %g: %d walks counted as is, %d with booking forced: want some and none", tc.trace, tc.cluster, policy, restart, n, m)
				}
				if !bytes.Equal(counted, booked) {
					t.Errorf("%s/%s/%s restart %g: counting GPUs changed the results", tc.trace, tc.cluster, policy, restart)
				}
			}
		}
	}
}

// runBytes runs sched over jobs on c with cfg and returns the result as
// JSON, its wall-clock Timing zeroed, and the result: two runs that must
// agree compare these bytes.
func runBytes(t *testing.T, c *sim.Cluster, jobs []datasets.Job, sched sim.Scheduler, cfg sim.Config) ([]byte, *sim.Result) {
	t.Helper()
	res, err := sim.Run(context.Background(), c, jobs, sched, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Timing = sim.Timing{}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return b, res
}
