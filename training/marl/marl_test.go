package marl_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/marl"
	"github.com/schedlab/schedlab/training/nn"
)

func intervalConfig() sim.Config {
	c := sim.DefaultConfig()
	c.Trigger = sim.TriggerInterval
	return c
}

// workload draws a MARL workload (uniform arrivals) for a cluster, of
// the legacy job shape: the learner's tests and golden digests pin its
// arithmetic and learning on the workload they were written for, not the
// experiments' operating point.
func workload(t testing.TB, c *sim.Cluster, jobsPerPod float64, intervals int, seed uint64) []datasets.Job {
	t.Helper()
	jobs, err := datasets.GenerateMARL(datasets.MARLWorkload{Kind: datasets.MARLUniform, Pods: c.Pods, JobsPerPod: jobsPerPod, Intervals: intervals, IntervalS: 1800, Shape: datasets.LegacyMARLShape()},
		pipeline.Rand(seed, "test", "workload"))
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

// fatTreeSplit builds the k = 4 fat tree of POWER8 servers that these
// tests train on, draws a workload of it (most tests: seed 3) and splits
// it into training and validation jobs as the MARL experiments do.
func fatTreeSplit(t testing.TB, jobsPerPod float64, intervals int, seed uint64) (c *sim.Cluster, train, val []datasets.Job) {
	t.Helper()
	c = simtest.FatTree(t, 4, "power8")
	train, val = datasets.SplitMARL(workload(t, c, jobsPerPod, intervals, seed), c.Pods, 0.1, 1800)
	return c, train, val
}

func tinyConfig(variant string) marl.Config {
	cfg := marl.DefaultConfig()
	cfg.Variant = variant
	cfg.InnerDim, cfg.InterDim, cfg.Hidden = 8, 8, 16
	return cfg
}

// TestMasking runs sampling policies of every variant through overloaded
// clusters of every topology: the simulator rejects any infeasible
// placement (sim.ErrInfeasible), so a clean run means the masks never let
// one through, forwarding included.
func TestMasking(t *testing.T) {
	clusters := []sim.ClusterSpec{
		{Topology: "fattree", K: 4, Servers: "power8"},
		{Topology: "fattree", K: 4, Servers: "mixed"},
		{Topology: "vl2", K: 4, Servers: "hetero-cpu"},
		{Topology: "bcube", N: 3, K: 1, Servers: "dgx1"},
	}
	for _, spec := range clusters {
		c, err := spec.Build()
		if err != nil {
			t.Fatal(err)
		}
		jobs := workload(t, c, 3, 4, 7) // far more than fits: queues and forwarding
		for _, v := range marl.Variants() {
			pol, err := marl.NewPolicy(tinyConfig(v), 5)
			if err != nil {
				t.Fatal(err)
			}
			res, err := sim.Run(context.Background(), c, jobs, pol.Scheduler(marl.SchedulerOptions{Sample: true, Seed: 9}), intervalConfig(), nil)
			if errors.Is(err, sim.ErrInfeasible) {
				t.Fatalf("%s %s: %v", c.Name, v, err)
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Metrics.Jobs != len(jobs) {
				t.Errorf("%s %s: %d of %d jobs finished", c.Name, v, res.Metrics.Jobs, len(jobs))
			}
		}
	}
}

// trainTiny trains a tiny policy and saves it into dir.
func trainTiny(t *testing.T, dir string, seed uint64) []training.Curve {
	t.Helper()
	c, train, test := fatTreeSplit(t, 0.5, 6, 3)
	cfg := tinyConfig(marl.VariantDevice)
	cfg.Episodes, cfg.ValidateEvery = 2, 1
	pol, curves, err := marl.Train(context.Background(), cfg, marl.TrainOptions{Cluster: c, Train: train, Validation: test, Sim: intervalConfig(), Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	if err := pol.Save(dir, map[string]string{"seed": "x"}); err != nil {
		t.Fatal(err)
	}
	return curves
}

// TestDeterministic trains twice with each of two seeds, the second time
// on one thread (identical checkpoint bytes and curves), and checks that
// the two seeds differ.
func TestDeterministic(t *testing.T) {
	read := func(d string) []byte {
		b, err := os.ReadFile(filepath.Join(d, marl.CheckpointFile))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var first [][]byte
	for _, seed := range []uint64{1, 7} {
		dirs := []string{t.TempDir(), t.TempDir()}
		a := trainTiny(t, dirs[0], seed)
		prev := runtime.GOMAXPROCS(1)
		b := trainTiny(t, dirs[1], seed)
		runtime.GOMAXPROCS(prev)
		if !bytes.Equal(read(dirs[0]), read(dirs[1])) {
			t.Errorf("seed %d: different checkpoints at GOMAXPROCS %d and 1", seed, prev)
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) {
			t.Errorf("seed %d: different curves at GOMAXPROCS %d and 1:\n%s\n%s", seed, prev, ja, jb)
		}
		first = append(first, read(dirs[0]))
	}
	if bytes.Equal(first[0], first[1]) {
		t.Error("different seeds, same checkpoint")
	}
}

// TestCheckpoint round-trips a policy and refuses a checkpoint whose
// sidecar describes another architecture.
func TestCheckpoint(t *testing.T) {
	dir := t.TempDir()
	pol, err := marl.NewPolicy(tinyConfig(marl.VariantServer), 4)
	if err != nil {
		t.Fatal(err)
	}
	if err := pol.Save(dir, nil); err != nil {
		t.Fatal(err)
	}
	got, err := marl.LoadPolicy(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Config() != pol.Config() {
		t.Errorf("config %+v, want %+v", got.Config(), pol.Config())
	}
	for i, p := range pol.Params().List() {
		if !equalBits(p.Data, got.Params().List()[i].Data) {
			t.Fatalf("parameter %s differs after loading", p.Name)
		}
	}
	// Another architecture under a consistent sidecar: the checkpoint
	// does not fit.
	other := pol.Config()
	other.InnerDim++
	writeSidecar(t, dir, other)
	if _, err := marl.LoadPolicy(dir); !errors.Is(err, nn.ErrArchMismatch) {
		t.Errorf("loading a checkpoint into another architecture: %v, want nn.ErrArchMismatch", err)
	} else {
		t.Logf("mismatch reported as: %v", err)
	}
	// A sidecar edited without its hash.
	if err := pol.Save(dir, nil); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, marl.SidecarFile))
	if !bytes.Contains(b, []byte(`"hidden": 16`)) {
		t.Fatalf("sidecar lacks the hidden width:\n%s", b)
	}
	b = bytes.Replace(b, []byte(`"hidden": 16`), []byte(`"hidden": 17`), 1)
	if err := os.WriteFile(filepath.Join(dir, marl.SidecarFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := marl.LoadPolicy(dir); !errors.Is(err, marl.ErrSidecar) {
		t.Errorf("edited sidecar: %v, want ErrSidecar", err)
	}
}

func writeSidecar(t *testing.T, dir string, cfg marl.Config) {
	t.Helper()
	var sc marl.Sidecar
	b, _ := os.ReadFile(filepath.Join(dir, marl.SidecarFile))
	if err := json.Unmarshal(b, &sc); err != nil {
		t.Fatal(err)
	}
	sc.Config = cfg
	sc.ConfigHash, _ = pipeline.HashJSON(cfg)
	b, _ = json.Marshal(sc)
	if err := os.WriteFile(filepath.Join(dir, marl.SidecarFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func equalBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(a[i] != a[i] && b[i] != b[i]) {
			return false
		}
	}
	return true
}

// TestConcurrentSchedulers runs two schedulers of one policy at once (as
// an evaluation's parallel cells do) and checks they agree with a run
// alone; run with -race to check they share nothing mutable.
func TestConcurrentSchedulers(t *testing.T) {
	c := simtest.FatTree(t, 4, "power8")
	jobs := workload(t, c, 1, 3, 2)
	pol, err := marl.NewPolicy(tinyConfig(marl.VariantDevice), 1)
	if err != nil {
		t.Fatal(err)
	}
	run := func() (float64, error) {
		res, err := sim.Run(context.Background(), c, jobs, pol.Scheduler(marl.SchedulerOptions{Sample: true, Seed: 4}), intervalConfig(), nil)
		if err != nil {
			return 0, err
		}
		return res.Metrics.MeanJCTS, nil
	}
	want, err := run()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	got := make([]float64, 2)
	errs := make([]error, 2)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = run()
		}()
	}
	wg.Wait()
	for i := range got {
		if errs[i] != nil || got[i] != want {
			t.Errorf("concurrent run %d: %v, %v; alone %v", i, got[i], errs[i], want)
		}
	}
}
