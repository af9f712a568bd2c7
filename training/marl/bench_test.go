package marl_test

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/marl"
	"github.com/schedlab/schedlab/training/nn"
)

// Benchmark sizes come from the environment so that `go test -bench .
// -benchtime 1x` stays fast while the paper's scale remains one variable
// away: MARL_BENCH_K (fat-tree k, default 4; the paper's is 20: 2000
// servers, 20 agents), MARL_BENCH_INTERVALS (intervals receiving jobs,
// default 4; the paper's episodes are 100) and MARL_BENCH_JOBS (jobs per
// pod per interval; default the paper's 15 per 400 GPUs scaled to the pod,
// so 15 at k = 20). MARL_BENCH_PRECISION sets Config.Precision for the
// training benchmarks (float32: the actors' inner passes in single
// precision).
func benchSize(b *testing.B) (k, intervals int, jobsPerPod float64) {
	k, intervals = 4, 4
	if v, err := strconv.Atoi(os.Getenv("MARL_BENCH_K")); err == nil {
		k = v
	}
	if v, err := strconv.Atoi(os.Getenv("MARL_BENCH_INTERVALS")); err == nil {
		intervals = v
	}
	jobsPerPod = 15 * float64(k*k/4*4) / 400 // (k/2)² power8 servers of 4 GPUs per pod
	if v, err := strconv.ParseFloat(os.Getenv("MARL_BENCH_JOBS"), 64); err == nil {
		jobsPerPod = v
	}
	return k, intervals, jobsPerPod
}

func tasks(jobs []datasets.Job) int {
	n := 0
	for _, j := range jobs {
		for _, t := range j.Tasks {
			n += int(t.Instances)
		}
	}
	return n
}

// BenchmarkTrainEpisode is one training episode (sampling every task's
// placement, an A2C update per interval) of the device-level variant over
// the whole workload; tasks/op counts the workers and PS it places (at
// least one inference each).
func BenchmarkTrainEpisode(b *testing.B) { benchTrainEpisode(b, marl.VariantDevice) }

// BenchmarkTrainEpisodeSingle is BenchmarkTrainEpisode for the
// single-agent variant: one agent whose inner graph is the whole cluster
// (the nightly's train-marl-single trains it on fat-tree k = 8).
func BenchmarkTrainEpisodeSingle(b *testing.B) { benchTrainEpisode(b, marl.VariantSingle) }

func benchTrainEpisode(b *testing.B, variant string) {
	k, intervals, jpp := benchSize(b)
	c, err := sim.FatTree(k, "power8")
	if err != nil {
		b.Fatal(err)
	}
	jobs := workload(b, c, jpp, intervals, 1)
	cfg := marl.VariantConfig(variant)
	cfg.Episodes, cfg.ValidateEvery = 1, 0
	cfg.Precision = os.Getenv("MARL_BENCH_PRECISION") // "" (float64) or float32
	b.ReportMetric(float64(len(c.Servers)), "servers")
	b.ReportMetric(float64(tasks(jobs)), "tasks/op")
	var decisions, points, learned int
	marl.OnTrainEpisode(func(d, p, l int) { decisions, points, learned = decisions+d, points+p, learned+l })
	defer marl.OnTrainEpisode(nil)
	b.ResetTimer()
	nn.CountFlops(true)
	defer nn.CountFlops(false)
	flops0 := nn.GemmFlops()
	for range b.N {
		if _, _, err := marl.Train(context.Background(), cfg, marl.TrainOptions{Cluster: c, Train: jobs, Sim: intervalConfig(), Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/float64(tasks(jobs))*1e3, "ms/task")
	// Where an episode's time goes: the actor's decisions (forwards and
	// tries of jobs that then did not fit included), the decision points
	// (the episode runs on past the last arrivals until every job is
	// done) and the steps the updates learnt from.
	b.ReportMetric(float64(decisions)/float64(b.N), "decisions/op")
	b.ReportMetric(float64(points)/float64(b.N), "intervals/op")
	b.ReportMetric(float64(learned)/float64(b.N), "learned/op")
	if decisions > 0 {
		b.ReportMetric(b.Elapsed().Seconds()/float64(decisions)*1e3, "ms/decision")
	}
	// The matrix products' work, and their rate over the whole wall time
	// (not the kernels' own: the time between products counts).
	flops := float64(nn.GemmFlops() - flops0)
	b.ReportMetric(flops/float64(b.N)/1e12, "TFLOP/op")
	b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkDecision is inference only: the greedy device-level policy
// scheduling the workload; ms/inference is the time per decision (forwards
// included), ms/task per worker or PS placed. The policy is untrained
// unless MARL_BENCH_POLICY names a saved one (a policy trained on any
// cluster runs on any other); an untrained greedy policy tends to forward
// tasks through every agent, which inflates inferences per task.
func BenchmarkDecision(b *testing.B) {
	k, intervals, jpp := benchSize(b)
	c, err := sim.FatTree(k, "power8")
	if err != nil {
		b.Fatal(err)
	}
	jobs := workload(b, c, jpp, intervals, 1)
	pol, err := marl.NewPolicy(marl.DefaultConfig(), 1)
	if dir := os.Getenv("MARL_BENCH_POLICY"); dir != "" {
		pol, err = marl.LoadPolicy(dir)
	}
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var dec float64
	var calls int
	for range b.N {
		s := pol.Scheduler(marl.SchedulerOptions{})
		res, err := sim.Run(context.Background(), c, jobs, s, intervalConfig(), nil)
		if err != nil {
			b.Fatal(err)
		}
		dec += res.Timing.DecisionS
		calls += s.(interface{ Inferences() int }).Inferences()
	}
	b.ReportMetric(float64(calls)/float64(b.N), "inferences/op")
	b.ReportMetric(dec/float64(calls)*1e3, "ms/inference")
	b.ReportMetric(dec/float64(b.N)/float64(tasks(jobs))*1e3, "ms/task")
}
