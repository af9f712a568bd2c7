package das

import (
	"context"
	"syscall"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
	"github.com/schedlab/schedlab/training/daspaper"
)

// BenchmarkInferenceLarge runs the untrained full DAS model (N = 128,
// e = 64, h = 4, τ = 8, L = 8) as a scheduler over 300 PAI-like jobs on
// the Large cluster (32 servers) and reports the wall time of its
// decisions per job placed (the paper's inference time per job, App. F).
func BenchmarkInferenceLarge(b *testing.B) {
	c := simtest.Preset(b, "large")
	jobs := synthJobs(b, 300, 9)
	// Random, non-zero heads: the zero start would tie everything.
	m := noisyModel(DefaultConfig(), "bench", 1, 0.1)
	benchInference(b, c, jobs, m)
}

// benchInference runs m as a scheduler over jobs on c b.N times and
// reports the CPU time and the decisions' wall time per job placed and
// the wall time per decision; it returns the decisions and the jobs
// placed. The machine is shared: the CPU time of the whole run per job is
// the figure that does not depend on the load (it is an upper bound on
// the decisions' own).
func benchInference(b *testing.B, c *sim.Cluster, jobs []datasets.Job, m *Model) (decisions, placed int) {
	var decisionS float64
	cpu0 := cpuSeconds()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := sim.Run(context.Background(), c, jobs, NewScheduler(m), sim.DefaultConfig(), nil)
		if err != nil {
			b.Fatal(err)
		}
		decisionS += r.Timing.DecisionS
		placed += r.Timing.JobsPlaced
		decisions += r.Timing.Decisions
	}
	b.ReportMetric(1e3*(cpuSeconds()-cpu0)/float64(placed), "cpu-ms/job")
	b.ReportMetric(1e3*decisionS/float64(placed), "ms/job")
	b.ReportMetric(1e3*decisionS/float64(decisions), "ms/decision")
	return decisions, placed
}

// BenchmarkInferencePAI is the das-overhead measurement on a realistic
// load: each variant at DefaultConfig, weights from a seeded init with
// random non-zero heads, as a scheduler over the training part (the
// earliest 80 %, 1999 jobs) of 2500 PAI-like jobs on the Large cluster.
// The cluster stays busy: a forward pass sees about 110 pending jobs, of
// which about 8 fit, and there are two decisions per job placed. It
// reports the wall time of the decisions per job placed.
func BenchmarkInferencePAI(b *testing.B) {
	c := simtest.Preset(b, "large")
	raw, err := datasets.GeneratePAILikeJobs(context.Background(), datasets.PAILikeConfig{Jobs: 2500}, pipeline.Rand(11, "bench", "pai"))
	if err != nil {
		b.Fatal(err)
	}
	for _, v := range Variants() {
		b.Run(v, func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Variant = v
			sp := prepare(b, c, cfg, raw)
			m := noisyModel(cfg, "bench", 1, 0.1)
			decisions, placed := benchInference(b, c, sp.Train, m)
			b.ReportMetric(float64(decisions)/float64(placed), "decisions/job")
		})
	}
}

// BenchmarkTrainingEpisode is one training episode of the full model at
// the paper's settings on the Small cluster: a 1000-job segment, acting
// by sampling and learning by Algorithm 1 at every decision (DefaultConfig's
// trainer). Its cpu-s/op is the per-episode figure of docs/measurements.md.
func BenchmarkTrainingEpisode(b *testing.B) {
	c := simtest.Preset(b, "small")
	cfg := DefaultConfig()
	cfg.Episodes, cfg.LearningRates, cfg.MaxJobs = 1, []float64{1e-4}, 2500
	sp := prepare(b, c, cfg, synthJobs(b, 2500, 10))
	cfg.ValJobs = 1 // the validation run is not part of an episode
	benchTrain(b, c, cfg, sp)
}

// BenchmarkTrainingNightly is one DAS training as the nightly preset runs
// it (train.das: 2 episodes of 500 jobs, one learning rate, 300
// validation jobs) on the Small cluster, on 2500 PAI-like jobs in place
// of the ingested PAI trace. It reports the CPU seconds of a training
// (the machine is shared: wall time depends on the load, CPU time much
// less).
func BenchmarkTrainingNightly(b *testing.B) {
	c := simtest.Preset(b, "small")
	for _, v := range []string{VariantDAS, VariantDAMC} {
		b.Run(v, func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Variant = v
			cfg.Episodes, cfg.SegmentJobs, cfg.LearningRates, cfg.ValJobs, cfg.MaxJobs = 2, 500, []float64{1e-4}, 300, 2500
			sp := prepare(b, c, cfg, synthJobs(b, 2500, 10))
			benchTrain(b, c, cfg, sp)
		})
	}
}

// benchTrain trains cfg on sp b.N times (seeds 0, 1, ...) and reports the
// CPU seconds per training.
func benchTrain(b *testing.B, c *sim.Cluster, cfg Config, sp daspaper.Split) {
	cpu0 := cpuSeconds()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Train(context.Background(), cfg, sp, TrainOptions{Cluster: c, Sim: sim.DefaultConfig(), Seed: uint64(i)}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
}

// cpuSeconds is the process's user and system CPU time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
