package marl

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
	"github.com/schedlab/schedlab/training/rl"
	"github.com/schedlab/schedlab/training/trainingtest"
)

// TestGraphsFatTree checks the partition graphs of fattree(4) with power8
// servers against the topology: a pod has 4 servers of 2 sockets, 2 edge
// switches and 1 fused aggregation switch; the 4 core switches are shared.
func TestGraphsFatTree(t *testing.T) {
	c := simtest.FatTree(t, 4, "power8")
	tests := []struct {
		variant                  string
		parts, cands, nodes, und int // und: undirected inner links per partition
	}{
		// 8 PCIe + 4 QPI + 8 CPU–edge (both sockets of a server reach the
		// edge switch) + 2 edge–aggregation.
		{VariantDevice, 4, 8, 8 + 8 + 3, 8 + 4 + 8 + 2},
		// 4 server–edge + 2 edge–aggregation.
		{VariantServer, 4, 4, 4 + 3, 4 + 2},
		// The whole cluster: 64 GPU groups, 64 CPUs, 8 edge, 4 agg, 4 core;
		// 32 PCIe + 16 QPI + 32 CPU–edge + 8 edge–agg + 16 agg–core.
		{VariantSingle, 1, 32, 32 + 32 + 8 + 4 + 4, 32 + 16 + 32 + 8 + 16},
	}
	for _, tc := range tests {
		t.Run(tc.variant, func(t *testing.T) {
			cg, err := buildGraphs(c, tc.variant)
			if err != nil {
				t.Fatal(err)
			}
			if len(cg.parts) != tc.parts {
				t.Fatalf("%d partitions, want %d", len(cg.parts), tc.parts)
			}
			for p, pt := range cg.parts {
				if len(pt.cands) != tc.cands || pt.nodes != tc.nodes || pt.graph.Edges() != 2*tc.und {
					t.Errorf("partition %d: %d candidates, %d nodes, %d edges; want %d, %d, %d",
						p, len(pt.cands), pt.nodes, pt.graph.Edges(), tc.cands, tc.nodes, 2*tc.und)
				}
				for _, s := range pt.servers {
					if tc.parts > 1 && c.Servers[s].Pod != p {
						t.Errorf("server %d of pod %d in partition %d", s, c.Servers[s].Pod, p)
					}
				}
			}
			if tc.variant == VariantSingle {
				if cg.inter != nil {
					t.Error("single agent has an inter-scheduler graph")
				}
				return
			}
			// 4 schedulers + 4 core switches; every pod's aggregation
			// switch has one 40 Gbit/s link to every core.
			ig := cg.inter
			if ig.nodes != 8 || len(ig.switches) != 4 || ig.graph.Edges() != 2*16 {
				t.Fatalf("inter graph: %d nodes, %d switches, %d edges; want 8, 4, 32", ig.nodes, len(ig.switches), ig.graph.Edges())
			}
			for e := range ig.gbps {
				if ig.gbps[e] != 40 || len(ig.links[e]) != 1 {
					t.Errorf("inter edge %d: %v Gbit/s over %d links, want 40 over 1", e, ig.gbps[e], len(ig.links[e]))
				}
			}
		})
	}
}

// TestGraphsOtherTopologies checks node ownership in VL2 and BCube: every
// server in exactly one partition, and the shared switches those the
// package documentation names.
func TestGraphsOtherTopologies(t *testing.T) {
	vl2, err := sim.VL2(4, "power8") // 4 pods of one ToR (20 servers), 4 aggregation, 2 intermediate switches
	if err != nil {
		t.Fatal(err)
	}
	bc, err := sim.BCube(3, 2, "mixed") // 27 servers, pods of 18: 2 pods
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		c        *sim.Cluster
		shared   int
		localPer []int
	}{
		{vl2, 4 + 2, []int{1, 1, 1, 1}},
		// Level-0 and level-1 switches lie within one pod of two BCube_1
		// (pod 1 holds one BCube_1 only); the 9 level-2 switches join
		// servers of both pods.
		{bc, 9, []int{6 + 6, 3 + 3}},
	} {
		cg, err := buildGraphs(tc.c, VariantDevice)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(cg.inter.switches); got != tc.shared {
			t.Errorf("%s: %d shared switches, want %d", tc.c.Name, got, tc.shared)
		}
		seen := 0
		for p, pt := range cg.parts {
			seen += len(pt.servers)
			cpus := 0
			for _, s := range pt.servers {
				cpus += len(tc.c.Servers[s].Kind.Sockets)
			}
			if local := pt.nodes - len(pt.cands) - cpus; local != tc.localPer[p] {
				t.Errorf("%s partition %d: %d local switches, want %d", tc.c.Name, p, local, tc.localPer[p])
			}
		}
		if seen != len(tc.c.Servers) {
			t.Errorf("%s: %d servers in partitions, want %d", tc.c.Name, seen, len(tc.c.Servers))
		}
	}
}

// handJobs is a small MARL-like workload written without the evaluation
// generator (which may come to import this package).
func handJobs(n int, pods int, rng *rand.Rand) []datasets.Job {
	jobs := make([]datasets.Job, n)
	for i := range jobs {
		jobs[i] = datasets.Job{
			JobID: string(rune('a'+i%26)) + string(rune('a'+i/26)), SubmitS: float64(i/pods) * 600, DurationS: 1200 + float64(rng.IntN(3600)),
			User:  "pod-0" + string(rune('0'+i%pods)),
			Model: sim.MARLModels[rng.IntN(len(sim.MARLModels))],
			Tasks: []datasets.Task{
				{Role: datasets.RoleWorker, Instances: int32(1 + rng.IntN(4)), GPU: 1, CPU: 2, MemGiB: 8},
				{Role: datasets.RolePS, Instances: int32(1 + rng.IntN(4)), CPU: 2, MemGiB: 8},
			},
		}
	}
	return jobs
}

// agentSteps is the decisions that agent 1 (the single agent's 0) of a
// policy of cfg drawn from seed records at the first decision point of
// jobs on c, the actor sampling from rng, with the policy and its
// evaluator.
func agentSteps(t *testing.T, c *sim.Cluster, cfg Config, seed uint64, jobs []datasets.Job, rng *rand.Rand) (*Policy, *evaluator, []*rl.Step[*obs]) {
	t.Helper()
	pol, err := NewPolicy(cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	cg, err := buildGraphs(c, cfg.Variant)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(c, jobs, sim.Config{Trigger: sim.TriggerInterval, IntervalS: 1800, PruneOversized: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ev := newEvaluator(pol.net, cg)
	a := newActor(ev, cfg.Jobs, rng, false)
	var steps []*rl.Step[*obs]
	a.record = func(d decision) {
		if d.agent == 1 || cfg.Variant == VariantSingle {
			steps = append(steps, &rl.Step[*obs]{Obs: d.o, Action: rl.Action{Index: d.action}})
		}
	}
	if _, err := a.decide(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	return pol, ev, steps
}

// TestGradientComposed checks, against central finite differences, the
// gradient of a loss built on everything the model composes from nn's
// operators (batched block graphs, the scatter of z⁰ into the inter graph,
// the per-step cut of candidate scores, masked log-probabilities, entropy
// and values), for every variant.
func TestGradientComposed(t *testing.T) {
	c := simtest.FatTree(t, 4, "power8")
	for _, variant := range Variants() {
		t.Run(variant, func(t *testing.T) {
			cfg := Config{Variant: variant, Jobs: 2, InnerDim: 3, InnerLayers: 2, InterDim: 4, InterLayers: 2, Hidden: 5,
				LR: 1e-3, Gamma: 0.9, ValueCoef: 0.5, EntropyCoef: 0.01, Reward: RewardSpeed}
			rng := rand.New(rand.NewPCG(1, 2))
			pol, ev, steps := agentSteps(t, c, cfg, 3, handJobs(12, 4, rng), rng)
			if len(steps) < 2 {
				t.Fatalf("only %d decisions recorded", len(steps))
			}
			steps = steps[:min(len(steps), 4)]
			n := len(steps)
			wl, we, wv := make([]float64, n), make([]float64, n), make([]float64, n)
			for i := range wl {
				wl[i], we[i], wv[i] = rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
			}
			lrn := &learner{e: ev}
			loss := func() float64 {
				lp, en, v := make([]float64, n), make([]float64, n), make([]float64, n)
				lrn.Evaluate(steps, lp, en, v)
				var s float64
				for i := range lp {
					s += wl[i]*lp[i] + we[i]*en[i] + wv[i]*v[i]
				}
				return s
			}
			ps := pol.net.ps
			ps.ZeroGrad()
			loss()
			lrn.Backward(wl, we, wv)
			gc := trainingtest.CheckGradients(t, variant, ps, loss)
			t.Logf("%s: %d entries of %d parameters over %d steps, worst relative error %.2g", variant, gc.Checked, len(ps.List()), n, gc.Worst)
		})
	}
}
