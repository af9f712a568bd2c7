package schedulers_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/internal/shareddata"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/schedulers/schedulerstest"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
)

// measuredThroughputs is Gavel's measured table from the shared data
// (skipping without it).
func measuredThroughputs(t testing.TB) schedulers.Throughputs {
	t.Helper()
	thr, err := schedulers.GavelThroughputsAt(shareddata.Path(t, schedulers.GavelThroughputsFile))
	if err != nil || thr == nil {
		t.Fatalf("Gavel's throughputs: %v (nil table: %v)", err, thr == nil)
	}
	return thr
}

// TestGPUTypeSpeed: on a cluster of one GPU type a job's run time is its
// recorded (V100) duration divided by its model's measured throughput on
// that type relative to V100, under the standalone and the modelled
// speed; a model whose throughput differs by type finishes sooner on the
// faster type by exactly the measured ratio.
func TestGPUTypeSpeed(t *testing.T) {
	thr := measuredThroughputs(t)
	for _, speed := range []string{sim.SpeedStandalone, sim.SpeedModel} {
		for _, model := range []string{"resnet-50", "cyclegan", "recommendation"} {
			run := map[string]float64{}
			for _, typ := range []string{"v100", "p100", "k80"} {
				c := simtest.Flat(t, 1, typ)
				c.GPUSpeed = sim.GPUSpeed(thr)
				j := gpuJob("j", 0, 3600, 1)
				j.Model = model
				cfg := sim.DefaultConfig()
				cfg.Speed = speed
				res, err := sim.Run(context.Background(), c, []datasets.Job{j}, newScheduler(t, "fifo-firstfit", 1), cfg, nil)
				if err != nil {
					t.Fatal(err)
				}
				run[typ] = res.Jobs[0].RunS
			}
			for _, typ := range []string{"p100", "k80"} {
				r := thr(model, typ)
				if r == 1 {
					t.Fatalf("%s on %s: Gavel's table gives no measured ratio", model, typ)
				}
				// run time ∝ 1/throughput: v100's time over typ's is
				// the measured ratio (to 1e-12: one division each).
				if got := run["v100"] / run[typ]; math.Abs(got-r) > 1e-12*r {
					t.Errorf("%s, %s speed: v100 %g s, %s %g s: ratio %g, measured %g", model, speed, run["v100"], typ, run[typ], got, r)
				}
			}
		}
	}
}

// TestGPUTypeSpeedHomogeneous: a table on a cluster of servers of no
// measured type (pai-v100) multiplies every rate by exactly 1: the run is
// the same to the bit as without one, for a non-preemptive and a
// preemptive policy, under the modelled speed, at two workload seeds.
func TestGPUTypeSpeedHomogeneous(t *testing.T) {
	// As Gavel's table: 1 on a type it did not measure.
	slow := sim.GPUSpeed(func(_, gpuType string) float64 {
		if gpuType == "k80" {
			return 0.5
		}
		return 1
	})
	for _, name := range []schedulers.Name{"fifo-firstfit", "tiresias-las"} {
		for _, seed := range []uint64{1, 2} {
			jobs := schedulerstest.PAILike(80, 0.02, seed)
			cfg := sim.DefaultConfig()
			cfg.Trigger = sim.TriggerEvery
			var digest [2]string
			for k, speed := range []sim.GPUSpeed{nil, slow} {
				c := simtest.Flat(t, 2, "pai-v100")
				c.GPUSpeed = speed
				digest[k] = runDigest(t, c, jobs, name, cfg)
			}
			if digest[0] != digest[1] {
				t.Errorf("%s seed %d: %s without a table, %s with one", name, seed, digest[0], digest[1])
			}
		}
	}
}

// TestGavelHeterogeneityAware: on Gavel's kind of cluster (equal numbers
// of V100, P100 and K80 servers) whose jobs run at their types' measured
// speeds, Gavel's max-min fairness with the measured throughputs (the
// registered gavel-las) gives a lower mean JCT than its type-blind form
// (no table: the program pools the types), on jobs of Gavel's models
// arriving faster than the cluster serves them.
func TestGavelHeterogeneityAware(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("two Gavel replays with a linear program per round: make test-norace runs it")
	}
	thr := measuredThroughputs(t)
	models := []string{"resnet-50", "resnet-18", "transformer", "lm", "a3c", "cyclegan", "recommendation"}
	var jobs []datasets.Job
	for i := range 60 {
		j := gpuJob(fmt.Sprintf("j%02d", i), float64(i)*120, 1800+float64(i%7)*900, 1)
		j.Model = models[i%len(models)]
		jobs = append(jobs, j)
	}
	mean := map[string]float64{}
	for _, form := range []struct {
		name string
		thr  schedulers.Throughputs
	}{{"aware", thr}, {"blind", nil}} {
		c, err := sim.Racks(1, 3, sim.KindV100)
		if err != nil {
			t.Fatal(err)
		}
		c.Servers[1].Kind, c.Servers[2].Kind = sim.KindP100, sim.KindK80
		c.GPUSpeed = sim.GPUSpeed(thr)
		s, err := schedulers.NewGavelMaxMin(0, form.thr)
		if err != nil {
			t.Fatal(err)
		}
		cfg := sim.DefaultConfig()
		cfg.Speed = sim.SpeedStandalone
		cfg.Trigger = sim.TriggerEvery
		res, err := sim.Run(context.Background(), c, jobs, s, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		for _, j := range res.Jobs {
			sum += j.JCTS
		}
		mean[form.name] = sum / float64(len(res.Jobs))
	}
	t.Logf("mean JCT: heterogeneity-aware %.0f s, type-blind %.0f s (%.1f %% lower)", mean["aware"], mean["blind"], 100*(1-mean["aware"]/mean["blind"]))
	if !(mean["aware"] < mean["blind"]) {
		t.Errorf("mean JCT: aware %g s, blind %g s: want the measured throughputs to help", mean["aware"], mean["blind"])
	}
}
