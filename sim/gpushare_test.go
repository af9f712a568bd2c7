package sim_test

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
)

// halfSpeed is a GPU-sharing term under which a job sharing a GPU with any
// utilisation runs at 1/(1 + uc): easy to check by hand.
type halfSpeed struct{}

func (halfSpeed) SharedSpeed(uj, uc float64) float64 { return 1 / (1 + uc) }

func sharing(cpu sim.Interference) sim.SharingModel {
	return sim.SharingModel{Interference: cpu, Sharing: halfSpeed{},
		Profiles: []sim.GPUProfile{{Model: "resnet-50", GPUUtil: 0.5}, {Model: "vgg-16", GPUUtil: 0.8}}}
}

func fracJob(id, model string, gpu float64) datasets.Job {
	return datasets.Job{JobID: id, DurationS: 1000, Model: model,
		Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: 1, GPU: gpu, CPU: 1, MemGiB: 1}}}
}

// TestGPUSharingSlowsSharers: two half-GPU jobs on one socket share a GPU
// (next-fit packing) and each runs at the term's speed; a third half-GPU
// job starts a second GPU, alone on it; a whole-GPU job never shares.
// Standalone speed and a gpu_share_scale of 0 leave every job at its
// recorded duration.
func TestGPUSharingSlowsSharers(t *testing.T) {
	c := simtest.Flat(t, 1, "pai-v100")
	jobs := []datasets.Job{fracJob("a", "resnet-50", 0.5), fracJob("b", "vgg-16", 0.5), fracJob("c", "resnet-50", 0.75), fracJob("d", "vgg-16", 1)}
	var pl []sim.Placement
	for i := range jobs {
		pl = append(pl, sim.Placement{Job: i, Slots: []sim.Slot{{Server: 0, Socket: 0}}})
	}
	ctx := context.Background()
	run := func(cfg sim.Config, m sim.Interference) *sim.Result {
		t.Helper()
		r, err := sim.Run(ctx, c, jobs, fixed{pl}, cfg, m)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := run(sim.DefaultConfig(), sharing(sim.NoInterference{}))
	// b (u 0.8) beside a (u 0.5): speed 1/1.5, so 1500 s; a beside b:
	// speed 1/1.8 until b ends, then alone: 1500 + 1000 − 1500/1.8 s. c
	// alone on the second GPU, d on a whole GPU: 1000 s.
	for i, want := range []float64{1500 + 1000 - 1500/1.8, 1500, 1000, 1000} {
		if got := r.Jobs[i].RunS; math.Abs(got-want) > 1e-6 {
			t.Errorf("job %s ran %g s, want %g", jobs[i].JobID, got, want)
		}
	}
	cfg := sim.DefaultConfig()
	cfg.Speed = sim.SpeedStandalone
	r = run(cfg, sharing(sim.NoInterference{}))
	for i := range jobs {
		if r.Jobs[i].RunS != 1000 {
			t.Errorf("standalone: job %d ran %g s, want 1000", i, r.Jobs[i].RunS)
		}
	}
	env := sim.NeutralEnvironment()
	env.GPUShare = &sim.GPUShareParams{Scale: 0, ProfileRule: sim.GPUProfileDraw, ProfileSeed: 1}
	r = run(sim.DefaultConfig(), env.Interference(sharing(sim.NoInterference{})))
	for i := range jobs {
		if r.Jobs[i].RunS != 1000 {
			t.Errorf("scale 0: job %d ran %g s, want 1000", i, r.Jobs[i].RunS)
		}
	}
	env.GPUShare.Scale = 2
	r = run(sim.DefaultConfig(), env.Interference(sharing(sim.NoInterference{})))
	// Slowdowns doubled: b 1.0 (2000 s), a 1.6 until then.
	if got := r.Jobs[0].RunS; math.Abs(got-(2000+1000-2000/2.6)) > 1e-6 {
		t.Errorf("scale 2: job a ran %g s, want %g", got, 2000+1000-2000/2.6)
	}
	// Without a sharing model nothing changes: the CPU term alone.
	r = run(sim.DefaultConfig(), sim.NoInterference{})
	if r.Jobs[0].RunS != 1000 {
		t.Errorf("no sharing model: job a ran %g s", r.Jobs[0].RunS)
	}
}

// TestGPUProfileRule: a job naming a measured model gets its utilisation;
// the others a seeded draw from the pool, the same whatever the order of
// the trace, or the pool's median.
func TestGPUProfileRule(t *testing.T) {
	c, _ := sim.Flat(1, "pai-v100")
	var jobs []datasets.Job
	for _, id := range []string{"x1", "x2", "x3", "x4", "x5", "x6"} {
		jobs = append(jobs, fracJob(id, "", 0.5))
	}
	jobs = append(jobs, fracJob("named", "VGG-16", 0.5))
	utils := func(jobs []datasets.Job, env *sim.Environment) map[string]float64 {
		m := sim.Interference(sharing(sim.NoInterference{}))
		if env != nil {
			m = env.Interference(m)
		}
		s, err := sim.New(c, jobs, sim.DefaultConfig(), m)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for i := range jobs {
			u, ok := s.GPUUtil(i)
			if !ok {
				t.Fatal("no GPU utilisation under a sharing model")
			}
			out[jobs[i].JobID] = u
		}
		return out
	}
	a := utils(jobs, nil)
	if a["named"] != 0.8 {
		t.Errorf("named job: %g, want vgg-16's 0.8", a["named"])
	}
	seen := map[float64]bool{}
	for _, id := range []string{"x1", "x2", "x3", "x4", "x5", "x6"} {
		if a[id] != 0.5 && a[id] != 0.8 {
			t.Errorf("%s: %g is not in the pool", id, a[id])
		}
		seen[a[id]] = true
	}
	if len(seen) != 2 {
		t.Errorf("six draws from a pool of two gave %v", seen)
	}
	rev := append([]datasets.Job(nil), jobs...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	if b := utils(rev, nil); b["x3"] != a["x3"] || b["x6"] != a["x6"] {
		t.Errorf("draw depends on trace order: %v vs %v", a, b)
	}
	env := sim.NeutralEnvironment()
	env.GPUShare = &sim.GPUShareParams{Scale: 1, ProfileRule: sim.GPUProfileMedian, ProfileSeed: 1}
	if m := utils(jobs, &env); m["x1"] != 0.65 || m["named"] != 0.8 {
		t.Errorf("median rule: %v", m)
	}
}

func TestEnvironmentGPUShareKeys(t *testing.T) {
	env := sim.NeutralEnvironment()
	b, err := env.MarshalJSON()
	if err != nil || strings.Contains(string(b), "gpu_") {
		t.Fatalf("default environment wrote GPU keys: %s %v", b, err)
	}
	env.GPUShare = &sim.GPUShareParams{Scale: 0.5, ProfileRule: sim.GPUProfileMedian, ProfileSeed: 7}
	b, err = env.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var back sim.Environment
	if err := back.UnmarshalJSON(b); err != nil || back.GPUShare == nil || !reflect.DeepEqual(*back.GPUShare, *env.GPUShare) {
		t.Fatalf("round trip: %v %+v from %s", err, back.GPUShare, b)
	}
	// With a term and its pool: they travel, and a run in the environment
	// charges GPU sharing whatever model it is given.
	env.GPUShare.Term = &sim.ShareTerm{Form: sim.ShareFormLinear, Params: []float64{1, 0, -0.5}}
	env.GPUShare.Profiles = []sim.GPUProfile{{Model: "resnet-50", GPUUtil: 0.5}, {Model: "vgg-16", GPUUtil: 0.8}}
	env.GPUShare.Scale = 1
	if b, err = env.MarshalJSON(); err != nil {
		t.Fatal(err)
	}
	back = sim.Environment{}
	if err := back.UnmarshalJSON(b); err != nil || !reflect.DeepEqual(*back.GPUShare, *env.GPUShare) {
		t.Fatalf("round trip with term: %v %+v from %s", err, back.GPUShare, b)
	}
	c, _ := sim.Flat(1, "pai-v100")
	jobs := []datasets.Job{fracJob("a", "resnet-50", 0.5), fracJob("b", "vgg-16", 0.5)}
	pl := []sim.Placement{{Job: 0, Slots: []sim.Slot{{Server: 0, Socket: 0}}}, {Job: 1, Slots: []sim.Slot{{Server: 0, Socket: 0}}}}
	r, err := sim.Run(context.Background(), c, jobs, fixed{pl}, sim.DefaultConfig(), back.Interference(sim.NoInterference{}))
	if err != nil {
		t.Fatal(err)
	}
	// b beside a (u_C 0.5): speed 0.75, so 1000/0.75 s.
	if got := r.Jobs[1].RunS; math.Abs(got-1000/0.75) > 1e-6 {
		t.Errorf("job b in the environment ran %g s, want %g", got, 1000/0.75)
	}
	for name, bad := range map[string]string{
		"scale": `"gpu_share_scale": -1`,
		"rule":  `"gpu_profile_rule": "guess"`,
		"type":  `"gpu_profile_seed": "one"`,
		"form":  `"gpu_share_term": {"form": "cubic", "params": [1]}`,
		"pool":  `"gpu_profiles": [{"model": "x", "gpu_util": 0.5}]`,
		"field": `"gpu_share_term": {"form": "median", "params": [1], "extra": 1}`,
	} {
		raw := `{"name": "x", "source": "y", "interference_scale": 1, "comm_scale": 1, "ps_share": 1, ` + bad + `}`
		var e sim.Environment
		err := e.UnmarshalJSON([]byte(raw))
		if !errors.Is(err, sim.ErrBadEnvironment) || !strings.Contains(err.Error(), "gpu_") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestSharingModelValidate(t *testing.T) {
	c, _ := sim.Flat(1, "pai-v100")
	jobs := []datasets.Job{fracJob("a", "", 0.5)}
	for name, m := range map[string]sim.SharingModel{
		"no term":     {Interference: sim.NoInterference{}, Profiles: []sim.GPUProfile{{GPUUtil: 0.5}}},
		"no pool":     {Interference: sim.NoInterference{}, Sharing: halfSpeed{}},
		"bad util":    {Interference: sim.NoInterference{}, Sharing: halfSpeed{}, Profiles: []sim.GPUProfile{{GPUUtil: 1.5}}},
		"no cpu term": {Sharing: halfSpeed{}, Profiles: []sim.GPUProfile{{GPUUtil: 0.5}}},
	} {
		if _, err := sim.New(c, jobs, sim.DefaultConfig(), m); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestGPUSharingRunsAtTheTermsSpeed: the term's speeds are relative to
// running alone, so a constant term (the median form) slows every sharer
// to it, whatever the utilisations.
func TestGPUSharingRunsAtTheTermsSpeed(t *testing.T) {
	c, _ := sim.Flat(1, "pai-v100")
	jobs := []datasets.Job{fracJob("a", "resnet-50", 0.5), fracJob("b", "vgg-16", 0.5)}
	pl := []sim.Placement{{Job: 0, Slots: []sim.Slot{{Server: 0, Socket: 0}}}, {Job: 1, Slots: []sim.Slot{{Server: 0, Socket: 0}}}}
	m := sim.SharingModel{Interference: sim.NoInterference{}, Sharing: sim.ShareTerm{Form: sim.ShareFormMedian, Params: []float64{0.5}},
		Profiles: []sim.GPUProfile{{Model: "x", GPUUtil: 0.3}}}
	r, err := sim.Run(context.Background(), c, jobs, fixed{pl}, sim.DefaultConfig(), m)
	if err != nil {
		t.Fatal(err)
	}
	for i := range jobs {
		if got := r.Jobs[i].RunS; math.Abs(got-2000) > 1e-6 {
			t.Errorf("job %d ran %g s at half speed, want 2000", i, got)
		}
	}
}
