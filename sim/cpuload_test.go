package sim_test

import (
	"context"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
)

// marlJob is a job of model with one worker of 1 GPU and 6 cores and one
// parameter server of 1 core: the MARL paper's §II shape.
func marlJob(id, model string) datasets.Job {
	return datasets.Job{JobID: id, Model: model, DurationS: 1e5, Tasks: []datasets.Task{
		{Role: datasets.RoleWorker, Instances: 1, GPU: 1, CPU: 6},
		{Role: datasets.RolePS, Instances: 1, CPU: 1},
	}}
}

func TestCPULoadRule(t *testing.T) {
	c, err := sim.FlatOf(1, sim.KindPower8)
	if err != nil {
		t.Fatal(err)
	}
	jobs := []datasets.Job{marlJob("a", "resnext-110"), marlJob("b", "ctc"), marlJob("c", "resnet-50"), marlJob("d", "")}
	for _, tc := range []struct {
		rule string
		// C_J of each job's worker, then of its PS.
		worker, ps []float64
	}{
		{"", []float64{6, 6, 6, 6}, []float64{1, 1, 1, 1}},
		{sim.CPULoadRequest, []float64{6, 6, 6, 6}, []float64{1, 1, 1, 1}},
		// resnext-110's profile is 2 cores, ctc's 8 (capped at the 6
		// requested), resnet-50's 4; a job without a model keeps its
		// request.
		{sim.CPULoadProfile, []float64{2, 6, 4, 6}, []float64{1, 1, 1, 1}},
	} {
		cfg := sim.DefaultConfig()
		cfg.CPULoad = tc.rule
		s, err := sim.New(c, jobs, cfg, sim.DefaultInterference())
		if err != nil {
			t.Fatal(err)
		}
		for i := range jobs {
			in := s.Job(i).Instances
			if in[0].Load.C != tc.worker[i] || in[1].Load.C != tc.ps[i] {
				t.Errorf("rule %q, job %s: C_J worker %v, ps %v, want %v, %v", tc.rule, jobs[i].JobID, in[0].Load.C, in[1].Load.C, tc.worker[i], tc.ps[i])
			}
		}
	}
	cfg := sim.DefaultConfig()
	cfg.CPULoad = "requested"
	if err := cfg.Validate(); err == nil {
		t.Error("cpu_load \"requested\" accepted")
	}
}

// TestCPULoadModelMatters: under the profile rule a resnet-50 worker
// beside a CTC worker on one socket runs slower than beside a ResNeXt-110
// worker of the same request; under the request rule the two co-runners
// load the CPU alike, and only their PCIe use (P_J 3 against 4 Gbit/s)
// tells them apart, by far less.
func TestCPULoadModelMatters(t *testing.T) {
	c, err := sim.FlatOf(1, sim.KindPower8)
	if err != nil {
		t.Fatal(err)
	}
	rate := func(rule, corunner string) float64 {
		cfg := sim.DefaultConfig()
		cfg.CPULoad = rule
		jobs := []datasets.Job{marlJob("target", "resnet-50"), marlJob("co", corunner)}
		s, err := sim.New(c, jobs, cfg, sim.DefaultInterference())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Next(context.Background()); err != nil {
			t.Fatal(err)
		}
		// Both workers on socket 0, both PSs on socket 1.
		pl := []sim.Placement{
			{Job: 0, Slots: []sim.Slot{{Server: 0, Socket: 0}, {Server: 0, Socket: 1}}},
			{Job: 1, Slots: []sim.Slot{{Server: 0, Socket: 0}, {Server: 0, Socket: 1}}},
		}
		if err := s.Apply(pl); err != nil {
			t.Fatal(err)
		}
		return s.Job(0).Rate()
	}
	gap := func(rule string) float64 { return rate(rule, "resnext-110")/rate(rule, "ctc") - 1 }
	req, prof := gap(sim.CPULoadRequest), gap(sim.CPULoadProfile)
	if !(prof > 0.01 && prof > 5*max(req, -req)) {
		t.Errorf("resnet-50 slower beside ctc than beside resnext-110 by %.4f under the profile rule, %.4f under the request rule: want > 0.01 and 5× the other", prof, req)
	}
	t.Logf("slower beside ctc by %.4f (profile), %.4f (request)", prof, req)
}
