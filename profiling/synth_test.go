package profiling

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
)

func TestSynthesizeDeterministicAndSane(t *testing.T) {
	cfg := DefaultSynthConfig()
	a, err := Synthesize(context.Background(), cfg, pipeline.RandSource(7, "profile", "synthetic"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Synthesize(context.Background(), cfg, pipeline.RandSource(7, "profile", "synthetic"))
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed gave different samples")
	}
	if len(a) != cfg.Samples {
		t.Fatalf("got %d samples, want %d", len(a), cfg.Samples)
	}
	mean := 0.0
	for _, s := range a {
		if len(s.CoRunners) == 0 {
			t.Fatalf("%s: no co-runners", s.SampleID)
		}
		// Noise is multiplicative on run time with σ = 0.03, so S > −0.15
		// holds with overwhelming probability (5σ).
		if math.IsNaN(s.Slowdown) || s.Slowdown < -0.15 || s.Slowdown > 10 {
			t.Fatalf("%s: implausible slowdown %g", s.SampleID, s.Slowdown)
		}
		mean += s.Slowdown / float64(len(a))
	}
	// The paper observes ~30 % average slowdown under bin packing; the
	// synthetic server should be in the same regime, not 0 and not 10×.
	if mean < 0.05 || mean > 1.5 {
		t.Errorf("mean slowdown %g outside [0.05, 1.5]", mean)
	}
	t.Logf("mean synthetic slowdown %.3f over %d samples", mean, len(a))
}

func TestGroundTruthShape(t *testing.T) {
	cfg := DefaultSynthConfig()
	resnet := TableI[0]
	hog := func(socket string, c float64) CoRunner { return CoRunner{Socket: socket, Model: hogModel, CPUCores: c} }
	tests := []struct {
		name      string
		co        []CoRunner
		wantAbove float64
		wantBelow float64
	}{
		{"idle other socket", []CoRunner{hog(OtherSocket, 1)}, -1e-9, 1e-9},
		{"same-socket hog saturates cores", []CoRunner{hog(SameSocket, 8)}, 0.1, 2},
		{"other socket over-full", []CoRunner{hog(OtherSocket, 16)}, -1e-9, 0.05},
		{"pcie-heavy neighbour", []CoRunner{{Socket: SameSocket, Model: "VGG-16", PCIeGbps: 100}}, 0.04, 1},
	}
	for _, tt := range tests {
		got := cfg.GroundTruth(resnet, tt.co)
		if got < tt.wantAbove || got > tt.wantBelow {
			t.Errorf("%s: S = %g, want in [%g, %g]", tt.name, got, tt.wantAbove, tt.wantBelow)
		}
	}
	// More same-socket CPU load never speeds the target up.
	prev := -1.0
	for c := 0.0; c <= 24; c += 0.5 {
		s := cfg.GroundTruth(resnet, []CoRunner{hog(SameSocket, c)})
		if s < prev-1e-12 {
			t.Fatalf("slowdown fell from %g to %g at hog %g cores", prev, s, c)
		}
		prev = s
	}
}

// TestSynthConfigValidate: every bad value, non-finite and oversized ones
// included (issue 16: --pcie-gbps inf passed, --samples 1e11 ran out of
// memory), is refused naming its key.
func TestSynthConfigValidate(t *testing.T) {
	if err := DefaultSynthConfig().Validate(); err != nil {
		t.Fatalf("default: %v", err)
	}
	inf, nan := math.Inf(1), math.NaN()
	for _, tc := range []struct {
		set  func(*SynthConfig)
		want string
	}{
		{func(c *SynthConfig) { c.Samples = -3 }, "profile.synth.samples: must be in [1, 1000000], got -3"},
		{func(c *SynthConfig) { c.Samples = 100_000_000_000 }, "profile.synth.samples: must be in [1, 1000000], got 100000000000"},
		{func(c *SynthConfig) { c.CoresPerSocket = inf }, "profile.synth.cores_per_socket"},
		{func(c *SynthConfig) { c.CoresPerSocket = nan }, "profile.synth.cores_per_socket"},
		{func(c *SynthConfig) { c.HyperThreadGain = nan }, "profile.synth.hyper_thread_gain"},
		{func(c *SynthConfig) { c.CachePenalty = inf }, "profile.synth.cache_penalty"},
		{func(c *SynthConfig) { c.PCIeGbps = inf }, "profile.synth.pcie_gbps"},
		{func(c *SynthConfig) { c.NoiseSigma = nan }, "profile.synth.noise_sigma"},
	} {
		c := DefaultSynthConfig()
		tc.set(&c)
		if err := c.Validate(); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", c, err, tc.want)
		}
	}
}

// TestTableIIsSimProfiles: the generator's C_J and P_J are the simulator's
// one profile table, model for model in Table I's order, so a model fitted
// on its samples is applied on the range it was fitted on.
func TestTableIIsSimProfiles(t *testing.T) {
	if len(TableI) != len(sim.MARLModels) {
		t.Fatalf("TableI has %d models, sim.MARLModels %d", len(TableI), len(sim.MARLModels))
	}
	for i, w := range TableI {
		p := sim.ProfileOf(w.Model)
		if p.Name != sim.MARLModels[i] {
			t.Errorf("TableI[%d] = %s, want %s", i, w.Model, sim.MARLModels[i])
		}
		if w.CPUCores != p.CPU || w.PCIeGbps != p.PCIeGbps {
			t.Errorf("%s: C_J %g, P_J %g; sim.Profiles has %g, %g", w.Model, w.CPUCores, w.PCIeGbps, p.CPU, p.PCIeGbps)
		}
	}
}
