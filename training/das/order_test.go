package das

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
	"github.com/schedlab/schedlab/training/daspaper"
	"github.com/schedlab/schedlab/training/nn"
)

// TestOrdererMatchesTape: the ordering agent off the tape (orderer, used
// by actRows) gives the tape's Ŝ and μ^j (trunkRows, priority) on the
// rows it is asked for, and the tape's S^c, for every variant, on random
// observations: one real row, some padding, a full window, subsets of
// rows down to one. The default size is included because gonum's Dgemm
// splits products of 4 or more 64×64 blocks over goroutines.
func TestOrdererMatchesTape(t *testing.T) {
	sizes := []struct {
		name string
		cfg  func(string) Config
		M    int
	}{
		{"tiny", tinyConfig, 5},
		{"default", func(v string) Config { c := DefaultConfig(); c.Variant = v; return c }, 32},
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for _, sz := range sizes {
		for _, v := range Variants() {
			cfg := sz.cfg(v)
			m := noisyModel(cfg, "test", 3, 0.3)
			N, e := cfg.Jobs, cfg.Hidden
			for _, count := range []int{1, N / 2, N} {
				t.Run(fmt.Sprintf("%s/%s/count%d", sz.name, v, count), func(t *testing.T) {
					o := &Obs{Obs: daspaper.Obs{Jobs: make([]float64, N*JobFeatures), Mask: make([]bool, N), Count: count,
						Machines: make([]float64, sz.M*MachineFeatures), M: sz.M}}
					for i := 0; i < count*JobFeatures; i++ {
						o.Jobs[i] = rng.Float64()
					}
					for i := range o.Machines {
						o.Machines[i] = rng.Float64()
					}
					for i := 0; i < count; i++ {
						o.Mask[i] = true
					}
					var tp nn.Tape
					shat, sc := m.trunkRows(&tp, []*Obs{o}, count)
					mu, _ := m.priority(&tp, shat)
					var w orderer
					for _, rows := range [][]int{rng.Perm(count), rng.Perm(count)[:1], rng.Perm(count)[:(count+1)/2]} {
						gotShat, gotSc, gotMu := w.order(m, o, count, rows)
						sameBits(t, "S^c", gotSc, sc.Data)
						for _, r := range rows {
							sameBits(t, fmt.Sprintf("Ŝ row %d", r), gotShat[r*e:(r+1)*e], shat.Data[r*e:(r+1)*e])
							sameBits(t, fmt.Sprintf("μ row %d", r), gotMu[r:r+1], mu.Data[r:r+1])
						}
					}
				})
			}
		}
	}
}

// sameBits fails unless got is want bit for bit. The orderer makes the
// tape's gonum calls and evaluates its expressions in the tape's order,
// whatever BLAS gonum uses, and the evaluation's decisions are only the
// same if the values are: no tolerance.
func sameBits(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s[%d]: orderer %.17g, tape %.17g", what, i, got[i], want[i])
		}
	}
}

// TestSchedulerFastPathMatchesTape: an evaluation run with the ordering
// agent off the tape on the fitting rows (actRows) finishes every job at
// the same time as one that runs every decision on the tape (act), for
// every variant, on a PAI-like load that keeps many jobs pending; and
// the fast path takes most decisions.
func TestSchedulerFastPathMatchesTape(t *testing.T) {
	c := simtest.Preset(t, "small")
	jobs := synthJobs(t, 300, 12)
	for _, v := range Variants() {
		t.Run(v, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Variant = v
			if testing.Short() {
				cfg = tinyConfig(v)
			}
			sp := prepare(t, c, cfg, jobs)
			m := noisyModel(cfg, "test", 5, 0.1)
			run := func(tapeOnly bool) (*sim.Result, *Scheduler) {
				s := NewScheduler(m)
				s.tapeOnly = tapeOnly
				r, err := sim.Run(context.Background(), c, sp.Train, s, sim.DefaultConfig(), nil)
				if err != nil {
					t.Fatal(err)
				}
				return r, s
			}
			fast, fs := run(false)
			tape, _ := run(true)
			if len(fast.Jobs) != len(tape.Jobs) {
				t.Fatalf("%d jobs finished, tape %d", len(fast.Jobs), len(tape.Jobs))
			}
			for i, f := range fast.Jobs {
				if w := tape.Jobs[i]; f.FinishS != w.FinishS || f.Machines != w.Machines {
					t.Fatalf("job %d finished at %.17g on %d machines, tape %.17g on %d", i, f.FinishS, f.Machines, w.FinishS, w.Machines)
				}
			}
			if fs.fast*2 < fast.Timing.JobsPlaced/2 {
				t.Errorf("actRows took %d decisions for %d jobs placed", fs.fast, fast.Timing.JobsPlaced)
			}
			t.Logf("%d decisions, %d by actRows, %d jobs placed", fast.Decisions, fs.fast, fast.Timing.JobsPlaced)
		})
	}
}

// TestDecodeReportsLeftOutRows: a decision from actRows that reaches a
// row it left out, and that row fits, is reported as errPartial (the
// scheduler then decides on the tape); and within catches a give-back
// that rounds a server's free resources above where they started.
func TestDecodeReportsLeftOutRows(t *testing.T) {
	_, st := burstState(t, 6)
	cfg := tinyConfig(VariantDAS)
	m := noisyModel(cfg, "test", 6, 0.1)
	o, chosen := observe(st, cfg.Jobs, nil)
	if len(fitting(st, chosen)) == 0 {
		t.Fatal("no job fits: the case tests nothing")
	}
	var tp nn.Tape
	var w orderer
	a := m.actRows(&tp, &w, o, nil) // every row left out
	if _, _, err := decode(st, chosen, a); !errors.Is(err, errPartial) {
		t.Errorf("decode with every row left out: %v, want errPartial", err)
	}

	// 0.9 − 0.3 + 0.3 rounds to 0.9000000000000001.
	free := []sim.Resources{{GPU: 1, CPU: 0.9, MemGiB: 4}}
	led := &sim.Ledger{Free: slices.Clone(free)}
	d := sim.Resources{CPU: 0.3}
	led.Take(0, d)
	led.Give(0, d)
	if within(led, free, []sim.Slot{{Server: 0}}) {
		t.Errorf("within: %v free after giving back, started at %v", led.Free[0], free[0])
	}
}
