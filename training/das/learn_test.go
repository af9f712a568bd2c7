package das

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/daspaper"
)

// TestTrainingLearns is the core claim: on the Small cluster and a small,
// contended job set, training the full DAS model (by Algorithm 1, and by
// the per-episode MAPPO variant) lowers the validation mean JCT of the
// deterministic policy below that of its own untrained initialisation
// (FIFO first-fit: the zero-initialised heads tie every job), and the
// trained policy no longer decides like FIFO-FirstFit. The validation
// jobs are later than, and disjoint from, the training jobs.
func TestTrainingLearns(t *testing.T) {
	if testing.Short() {
		t.Skip("20 training episodes")
	}
	c := simtest.Preset(t, "small")
	for _, trainer := range []string{TrainerAlgorithm1, TrainerMAPPO} {
		t.Run(trainer, func(t *testing.T) {
			cfg := tinyConfig(VariantDAS)
			cfg.Trainer = trainer
			cfg.Episodes, cfg.MaxJobs, cfg.ValidateEvery = 20, 500, 5
			if raceEnabled {
				// Each trainer's code under the detector, on 2 episodes
				// of 100 jobs; the learning asserted below needs the 20
				// of 500 that make test-norace runs.
				cfg.Episodes, cfg.MaxJobs, cfg.ValidateEvery = 2, 100, 1
			}
			sp := prepare(t, c, cfg, contendedJobs(cfg.MaxJobs, 1))
			var steps int64
			res, err := Train(context.Background(), cfg, sp, TrainOptions{Cluster: c, ClusterName: "small", Sim: sim.DefaultConfig(), Seed: 1,
				OnEpisode: func(_ float64, rows []training.Curve) {
					for _, r := range rows {
						steps += r.AdamSteps
						t.Logf("episode %2d %-10s return %7.2f mean JCT %7.0f s fee %6.2f $ Adam steps %d", r.Episode, r.Split, r.Return, r.MeanJCT, r.MeanFee, r.AdamSteps)
					}
				}})
			if err != nil {
				t.Fatal(err)
			}
			if raceEnabled {
				return
			}
			b := res.Best()
			init, final := b.InitVal.Metrics, b.FinalVal.Metrics
			t.Logf("validation (%d jobs): untrained mean JCT %.0f s, fee %.2f $, %.0f %% of decisions not FIFO-FirstFit's; trained %.0f s, %.2f $, %.0f %%; %.0f Adam steps an episode",
				final.Jobs, init.MeanJCTS, init.MeanFeeUSD, 100*b.InitVal.NotFIFO, final.MeanJCTS, final.MeanFeeUSD, 100*b.FinalVal.NotFIFO, float64(steps)/float64(cfg.Episodes))
			// Submission order on this workload is about twice as slow as
			// small-first; demand a clear gain, not noise.
			if !(final.MeanJCTS < 0.85*init.MeanJCTS) {
				t.Errorf("trained mean JCT %.0f s is not 15 %% below the untrained %.0f s", final.MeanJCTS, init.MeanJCTS)
			}
			// The untrained policy is FIFO first-fit within its window
			// of N = 8 jobs: it departs from FIFO-FirstFit only where a
			// job beyond the window would have fitted.
			if !(b.FinalVal.NotFIFO > b.InitVal.NotFIFO+0.1) {
				t.Errorf("decisions not FIFO-FirstFit's: untrained %.3f, trained %.3f: training did not move the policy off FIFO-FirstFit", b.InitVal.NotFIFO, b.FinalVal.NotFIFO)
			}
		})
	}
}

// TestAlgorithm1StepsEveryDecision: Algorithm 1 learns from every
// decision of an episode, each an Adam step of the critic and the
// ordering agent, and of the placement agent when the decision placed a
// job; its target copies follow z.
func TestAlgorithm1StepsEveryDecision(t *testing.T) {
	c := simtest.Preset(t, "small")
	cfg := tinyConfig(VariantDAS)
	sp := prepare(t, c, cfg, synthJobs(t, 300, 2))
	m := NewModel(cfg, pipeline.Rand(1, Stage, "init"))
	ord := &orderAgent{m: m, opt: newAgentAdam(m, 1e-3, cfg.MaxGradNorm)}
	plc := &placeAgent{m: m, opt: newAgentAdam(m, 1e-3, cfg.MaxGradNorm)}
	a1 := newAlgorithm1(cfg, m, ord, plc, len(c.Servers), 1e-3, 1, pipeline.Rand(1, "test", "upd"))
	out, err := runEpisode(context.Background(), m, c, sim.DefaultConfig(), nil, sp.Train[:120], sp.Norm, episodeMode{rng: pipeline.Rand(1, "test", "act"), learn: a1})
	if err != nil {
		t.Fatal(err)
	}
	n := out.decisions
	if a1.t != n || a1.adam < int64(2*n) || a1.adam > int64(3*n) || ord.opt.Steps() != n || plc.opt.Steps() != int(a1.adam)-2*n {
		t.Errorf("%d decisions: %d learnt, %d Adam steps (ordering %d, placement %d); want %d, in [%d, %d]", n, a1.t, a1.adam, ord.opt.Steps(), plc.opt.Steps(), n, 2*n, 3*n)
	}
	// The last copy was at t = z·⌊(n−1)/z⌋; the placement agent may have
	// moved the model since only if it stepped after that.
	if (n-1)%cfg.MAPPO.TargetEvery == 0 && !slices.EqualFunc(a1.old.ps.Values(), m.ps.Values(), slices.Equal) {
		t.Error("the target policy was not refreshed at the last decision with t % z = 0")
	}
}

// TestTargetPassReuseSameBits: Algorithm 1 runs the target policy once
// per observation and target copy, reading the acting pass right after a
// copy and the TD target's pass in the next step's ratio denominators.
// Two episodes of each variant with that reuse and with every pass run
// afresh end with the same parameters, critic and losses, bit for bit,
// and the reuse took place.
func TestTargetPassReuseSameBits(t *testing.T) {
	eachVariant(t, 300, 3, func(t *testing.T, c *sim.Cluster, cfg Config, sp daspaper.Split) {
		train := func(noReuse bool) (*algorithm1, [3]float64) {
			m := NewModel(cfg, pipeline.Rand(1, Stage, "init"))
			ord := &orderAgent{m: m, opt: newAgentAdam(m, 1e-3, cfg.MaxGradNorm)}
			plc := &placeAgent{m: m, opt: newAgentAdam(m, 1e-3, cfg.MaxGradNorm)}
			a1 := newAlgorithm1(cfg, m, ord, plc, len(c.Servers), 1e-3, 1, pipeline.Rand(1, "test", "upd"))
			a1.noReuse = noReuse
			act := pipeline.Rand(1, "test", "act")
			var losses [3]float64
			for ep := range 2 {
				jobs := sp.Train[ep*60 : (ep+1)*60]
				if _, err := runEpisode(context.Background(), m, c, sim.DefaultConfig(), nil, jobs, sp.Norm, episodeMode{rng: act, learn: a1}); err != nil {
					t.Fatal(err)
				}
				p, val, ent := a1.episodeStats()
				losses[0], losses[1], losses[2] = losses[0]+p, losses[1]+val, losses[2]+ent
			}
			return a1, losses
		}
		fresh, lf := train(true)
		reuse, lr := train(false)
		if fresh.reused != 0 || reuse.reused < fresh.t/2 {
			t.Errorf("%d decisions: %d passes reused afresh, %d with reuse; want 0 and at least half", fresh.t, fresh.reused, reuse.reused)
		}
		same := func(what string, a, b [][]float64) {
			if !slices.EqualFunc(a, b, func(x, y []float64) bool {
				return slices.EqualFunc(x, y, func(p, q float64) bool { return math.Float64bits(p) == math.Float64bits(q) })
			}) {
				t.Errorf("%s differ with the target pass reused", what)
			}
		}
		same("parameters", fresh.m.ps.Values(), reuse.m.ps.Values())
		same("target parameters", fresh.old.ps.Values(), reuse.old.ps.Values())
		same("critic", fresh.q.ps.Values(), reuse.q.ps.Values())
		if lf != lr {
			t.Errorf("losses (policy, value, entropy) %v afresh, %v with reuse", lf, lr)
		}
	})
}
