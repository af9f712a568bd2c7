package das

import (
	"math"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
	"github.com/schedlab/schedlab/training/das/dastest"
	"github.com/schedlab/schedlab/training/nn"
	"github.com/schedlab/schedlab/training/rl"
)

// TestTrunkRowsMatchTrunk checks the promise the agents' training passes
// rest on: for a loss that reads Ŝ only at the real rows (the ordering
// agent's, whose padded rows are multiplied by a zero mask) or only at
// chosen rows (the placement agent's), trunkReal and trunkAt give trunk's
// rows and trunk's gradient of every parameter, bit for bit. It runs the
// paper's model size (N = 128, e = 64, h = 4), at which the products take
// gemm's parallel paths, on a minibatch of decisions of a contended
// episode (observations of many different job counts): 48 decisions, 16
// under the race detector (still thousands of rows, past the parallel
// paths' threshold; make test-norace runs 48).
func TestTrunkRowsMatchTrunk(t *testing.T) {
	if testing.Short() {
		t.Skip("a full-size episode")
	}
	c := simtest.Preset(t, "small")
	for _, v := range Variants() {
		t.Run(v, func(t *testing.T) {
			cfg, m, out := contendedEpisode(t, c, v)
			batch := 48
			if raceEnabled {
				batch = 16
			}
			var obs []*Obs
			for i := 0; i < out.ord.Len() && len(obs) < batch; i += 3 {
				obs = append(obs, out.ord.Steps[i].Obs)
			}
			n, e := cfg.Jobs, cfg.Hidden
			counts := map[int]bool{}
			var rows []int
			mask := make([]float64, len(obs)*n)
			for b, o := range obs {
				counts[o.Count] = true
				for r := 0; r < o.Count; r++ {
					mask[b*n+r] = 1
				}
				// One or two rows per observation, as decisions place.
				for r := b % 3; r < o.Count && r < 2+b%3; r += 1 + b%2 {
					rows = append(rows, b*n+r)
				}
			}
			if len(counts) < 3 || len(rows) == 0 {
				t.Fatalf("%d observations of %d job counts, %d rows: the episode is not contended enough to test", len(obs), len(counts), len(rows))
			}
			w := make([]float64, len(rows)*e)
			rng := pipeline.Rand(3, "test", "w")
			for i := range w {
				w[i] = rng.NormFloat64()
			}
			// Each loss returns the rows of Ŝ it reads, then the gradients.
			type pass func(tp *nn.Tape) (shat []float64)
			grads := func(f pass) (shat, g []float64) {
				m.ps.ZeroGrad()
				var tp nn.Tape
				shat = f(&tp)
				for _, p := range m.ps.List() {
					g = append(g, p.Grad...)
				}
				return shat, g
			}
			order := func(trunk func(*nn.Tape, []*Obs) (*nn.Node, *nn.Node)) pass {
				return func(tp *nn.Tape) []float64 {
					shat, _ := trunk(tp, obs)
					mu, sd := m.priority(tp, shat)
					mk := tp.Const(len(obs)*n, 1, mask)
					tp.Backward(tp.Sum(tp.Mul(tp.Add(mu, sd), mk)))
					var real []float64
					for i, k := range mask {
						if k == 1 {
							real = append(real, shat.Data[i*e:(i+1)*e]...)
						}
					}
					return real
				}
			}
			place := func(at bool) pass {
				return func(tp *nn.Tape) []float64 {
					var s *nn.Node
					if at {
						s, _ = m.trunkAt(tp, obs, rows)
					} else {
						full, _ := m.trunk(tp, obs)
						s = tp.GatherRows(full, rows)
					}
					tp.Backward(tp.Sum(tp.Mul(s, tp.Const(len(rows), e, w))))
					return append([]float64(nil), s.Data...)
				}
			}
			for _, c := range []struct {
				name      string
				want, got pass
			}{
				{"trunkReal", order(m.trunk), order(m.trunkReal)},
				{"trunkAt", place(false), place(true)},
			} {
				ws, wg := grads(c.want)
				gs, gg := grads(c.got)
				same := func(what string, want, got []float64) {
					if len(want) != len(got) {
						t.Fatalf("%s: %d %s values, trunk gives %d", c.name, len(got), what, len(want))
					}
					for i := range want {
						if math.Float64bits(want[i]) != math.Float64bits(got[i]) {
							t.Fatalf("%s: %s value %d = %v, trunk gives %v", c.name, what, i, got[i], want[i])
						}
					}
				}
				same("Ŝ", ws, gs)
				same("gradient", wg, gg)
			}
		})
	}
}

// TestPlaceAgentLeavesOutUnplaced checks that the placement agent's
// update, whose trunk leaves out the observations that placed nothing
// (placedBatch), gives the log-probabilities, entropies and gradients of
// the trunk over the whole minibatch, bit for bit, on the paper's model
// size.
func TestPlaceAgentLeavesOutUnplaced(t *testing.T) {
	if testing.Short() {
		t.Skip("a full-size episode")
	}
	c := simtest.Preset(t, "small")
	for _, v := range []string{VariantDAS, VariantDAMC} {
		t.Run(v, func(t *testing.T) {
			_, m, out := contendedEpisode(t, c, v)
			// Minibatches of the shapes that matter: many steps with
			// some unplaced, exactly one placed among many, one step.
			var placed, unplaced []*rl.Step[*Obs]
			for i := range out.plc.Steps {
				if s := &out.plc.Steps[i]; len(s.Obs.Placed) > 0 {
					placed = append(placed, s)
				} else {
					unplaced = append(unplaced, s)
				}
			}
			if len(placed) < 10 || len(unplaced) < 10 {
				t.Fatalf("%d steps placed and %d did not: too few to test", len(placed), len(unplaced))
			}
			// The placed steps with the most pending jobs first: the
			// attention's gradient then reaches many rows, where a
			// product summed in other blocks would round differently.
			slices.SortStableFunc(placed, func(a, b *rl.Step[*Obs]) int { return b.Obs.Count - a.Obs.Count })
			for name, steps := range map[string][]*rl.Step[*Obs]{
				"mixed":      append(append([]*rl.Step[*Obs]{}, unplaced[:5]...), append(placed[:8], unplaced[5:10]...)...),
				"one placed": append(append([]*rl.Step[*Obs]{}, unplaced[:6]...), placed[0]),
				"single":     {placed[1]},
			} {
				run := func(all bool) (lp, ent, g []float64) {
					a := &placeAgent{m: m}
					lp, ent = make([]float64, len(steps)), make([]float64, len(steps))
					for i := range steps {
						ent[i] = float64(i)
					}
					batch := placedBatch(steps)
					if all {
						for i := range batch {
							batch[i] = i
						}
					}
					m.ps.ZeroGrad()
					a.evaluate(steps, lp, ent, batch)
					a.Backward(ent, lp, nil)
					if a.err != nil {
						t.Fatal(a.err)
					}
					for _, p := range m.ps.List() {
						g = append(g, p.Grad...)
					}
					return lp, ent, g
				}
				wl, we, wg := run(true)
				gl, ge, gg := run(false)
				for what, p := range map[string][2][]float64{"log-prob": {wl, gl}, "entropy": {we, ge}, "gradient": {wg, gg}} {
					for i := range p[0] {
						if math.Float64bits(p[0][i]) != math.Float64bits(p[1][i]) {
							t.Fatalf("%s: %s %d = %v, with every observation %v", name, what, i, p[1][i], p[0][i])
						}
					}
				}
			}
		})
	}
}

// contendedEpisode is an episode of variant v's noisy untrained model
// (seed 2) over 300 jobs arriving about 4 times as fast as the Small
// cluster serves them (dastest.ContendedJobs at a 100 s gap): decisions
// see tens of pending jobs.
func contendedEpisode(t *testing.T, c *sim.Cluster, v string) (Config, *Model, episodeOut) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Variant = v
	sp := prepare(t, c, cfg, dastest.ContendedJobs(300, 5, 100))
	m := noisyModel(cfg, "test", 2, 0.1)
	return cfg, m, collectEpisode(t, m, c, sp, 2)
}
