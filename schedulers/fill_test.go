package schedulers_test

import (
	"bytes"
	"testing"

	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
)

// TestFillSameResults replays the first 2,000 jobs of the PAI subset
// (jobs of up to hundreds of identical instances) on Large under SRSF,
// LAS and SRTF (SRSF alone under the race detector), once as is and once with
// every instance of a first-pass booking subtracted one by one (no
// runnable.fills), and compares the results' bytes: reading a run's end
// from a fill is exact.
func TestFillSameResults(t *testing.T) {
	jobs := paiSubset(t)[:2000]
	large := paiCluster(t, 32)
	policies := []string{"srsf", "las", "srtf"}
	if raceEnabled {
		policies = policies[:1] // sim and schedulers start no goroutine: the detector has little to watch
	}
	for _, policy := range policies {
		run := func(fill bool) ([]byte, int) {
			info, _ := schedulers.Lookup(policy)
			s, err := schedulers.New(schedulers.Name(policy), schedulers.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !fill {
				schedulers.FillNever(s)
			}
			cfg := sim.DefaultConfig()
			cfg.Speed, cfg.Trigger, cfg.SkipFloor = sim.SpeedStandalone, info.Trigger, true
			b, _ := runBytes(t, large, jobs, s, cfg)
			return b, schedulers.Filled(s)
		}
		filled, n := run(true)
		subtracted, m := run(false)
		if n == 0 || m != 0 {
			t.Fatalf("%s: %d runs read from fills as is, %d with fills off: want some and none", policy, n, m)
		}
		if !bytes.Equal(filled, subtracted) {
			t.Errorf("%s: reading runs from fills changed the results", policy)
		}
	}
}
