package profiling

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/schedlab/schedlab/sim"
)

// WorkloadProfile is the standalone resource use of one DL model type on
// one GPU, and how its iteration time splits into phases. C_J and P_J are
// sim.Profiles' (the one profile table; see its sources); the phase shares
// and cache sensitivity belong to the synthetic ground truth's functional
// form (package doc), are schedlab's assumptions, and are used nowhere
// else.
type WorkloadProfile struct {
	Model    string
	CPUCores float64 // C_J alone, cores (sim.Profiles)
	PCIeGbps float64 // P_J alone, Gbit/s (sim.Profiles)
	// Phase shares of the standalone iteration time (they sum to ≤ 1; the
	// rest is GPU compute, which co-runners do not slow).
	CPUShare, PCIeShare float64
	// CacheSensitivity scales the shared-cache penalty of the ground truth.
	CacheSensitivity float64
}

// groundTruthForm is the ground truth's part of each Table I profile, in
// the table's order (the order of sim.MARLModels), under the paper's
// spelling of the model names: phase shares and cache sensitivity, chosen
// so that the paper's qualitative statements hold (CTC is CPU-intensive,
// VGG-16 communication-heavy, ResNet-50 relies on CPU more than VGG-16).
var groundTruthForm = []WorkloadProfile{
	{Model: "ResNet-50", CPUShare: 0.35, PCIeShare: 0.20, CacheSensitivity: 1.0},
	{Model: "VGG-16", CPUShare: 0.20, PCIeShare: 0.40, CacheSensitivity: 0.6},
	{Model: "Inception-BN", CPUShare: 0.30, PCIeShare: 0.20, CacheSensitivity: 0.9},
	{Model: "ResNeXt-110", CPUShare: 0.20, PCIeShare: 0.15, CacheSensitivity: 0.8},
	{Model: "DSSM", CPUShare: 0.30, PCIeShare: 0.15, CacheSensitivity: 0.5},
	{Model: "Seq2Seq", CPUShare: 0.25, PCIeShare: 0.25, CacheSensitivity: 0.7},
	{Model: "CTC", CPUShare: 0.50, PCIeShare: 0.10, CacheSensitivity: 1.2},
	{Model: "WLM", CPUShare: 0.20, PCIeShare: 0.20, CacheSensitivity: 0.6},
}

// TableI is the MARL paper's Table I as the generator samples it: C_J and
// P_J drawn from sim.Profiles (no copy), the phase shares from
// groundTruthForm.
var TableI = func() []WorkloadProfile {
	out := make([]WorkloadProfile, len(groundTruthForm))
	for i, w := range groundTruthForm {
		p := sim.ProfileOf(w.Model)
		if !p.Known {
			panic("profiling: Table I model " + w.Model + " has no profile in sim.Profiles")
		}
		w.CPUCores, w.PCIeGbps = p.CPU, p.PCIeGbps
		out[i] = w
	}
	return out
}()

// SynthConfig configures the synthetic co-location generator.
type SynthConfig struct {
	Samples        int     `mapstructure:"samples" yaml:"samples" json:"samples"`
	CoresPerSocket float64 `mapstructure:"cores_per_socket" yaml:"cores_per_socket" json:"cores_per_socket"`
	// HyperThreadGain is the extra throughput a physical core gives when
	// both of its hyper-threads are busy (0.3 = 30 %).
	HyperThreadGain float64 `mapstructure:"hyper_thread_gain" yaml:"hyper_thread_gain" json:"hyper_thread_gain"`
	// CachePenalty is the slowdown of a fully cache-sensitive CPU phase when
	// its socket's demand equals its physical cores.
	CachePenalty float64 `mapstructure:"cache_penalty" yaml:"cache_penalty" json:"cache_penalty"`
	PCIeGbps     float64 `mapstructure:"pcie_gbps" yaml:"pcie_gbps" json:"pcie_gbps"`
	// NoiseSigma is the standard deviation of the log-normal multiplicative
	// noise on the measured run time.
	NoiseSigma float64 `mapstructure:"noise_sigma" yaml:"noise_sigma" json:"noise_sigma"`
}

// DefaultSynthConfig is the power8-like server of the MARL paper (2 sockets ×
// 8 cores, 2 GPUs per socket, PCIe 128 Gbit/s) and 480 samples, the paper's
// count.
func DefaultSynthConfig() SynthConfig {
	return SynthConfig{Samples: 480, CoresPerSocket: 8, HyperThreadGain: 0.3, CachePenalty: 0.15, PCIeGbps: 128, NoiseSigma: 0.03}
}

// Bounds of SynthConfig beyond which the generator would exhaust memory or
// describe no real server: a million samples (the paper has 480) hold a
// few hundred MB; a socket of 1024 cores and a 100 Tbit/s PCIe link are
// past any hardware; a cache-sensitive phase at most 100 times slower.
const (
	MaxSynthSamples      = 1_000_000
	MaxCoresPerSocket    = 1024
	MaxPCIeGbps          = 100_000
	MaxSynthCachePenalty = 100
)

// Validate reports the first bad field, named by its config key. Every
// number must be finite (the flags of `profile synth` reach here without
// the configuration loader's checks).
func (c SynthConfig) Validate() error {
	switch {
	case c.Samples <= 0 || c.Samples > MaxSynthSamples:
		return fmt.Errorf("profile.synth.samples: must be in [1, %d], got %d", MaxSynthSamples, c.Samples)
	case !(c.CoresPerSocket >= 1 && c.CoresPerSocket <= MaxCoresPerSocket):
		return fmt.Errorf("profile.synth.cores_per_socket: must be in [1, %d], got %g", MaxCoresPerSocket, c.CoresPerSocket)
	case !(c.HyperThreadGain >= 0 && c.HyperThreadGain <= 1):
		return fmt.Errorf("profile.synth.hyper_thread_gain: must be in [0, 1], got %g", c.HyperThreadGain)
	case !(c.CachePenalty >= 0 && c.CachePenalty <= MaxSynthCachePenalty):
		return fmt.Errorf("profile.synth.cache_penalty: must be in [0, %d], got %g", MaxSynthCachePenalty, c.CachePenalty)
	case !(c.PCIeGbps > 0 && c.PCIeGbps <= MaxPCIeGbps):
		return fmt.Errorf("profile.synth.pcie_gbps: must be in (0, %d], got %g", MaxPCIeGbps, c.PCIeGbps)
	case !(c.NoiseSigma >= 0 && c.NoiseSigma < 1):
		return fmt.Errorf("profile.synth.noise_sigma: must be in [0, 1), got %g", c.NoiseSigma)
	}
	return nil
}

// hogModel names the synthetic CPU-load generator co-runners (the paper's
// "CPU workload generator conducting arithmetic operations").
const hogModel = "cpu-hog"

// Synthesize draws cfg.Samples co-location samples on a 2-socket, 4-GPU
// server from the ground truth described in the package documentation.
// The target job sits on GPU 0 of socket 0 ("same"); the other GPU of its
// socket and the two GPUs of socket 1 each hold a Table I job with
// probability ½, and each socket gets 0–2 CPU hogs of 0.5–8 cores. Samples
// without co-runners are redrawn. The output depends only on cfg and src.
func Synthesize(ctx context.Context, cfg SynthConfig, src rand.Source) ([]Sample, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rng := rand.New(src)
	out := make([]Sample, 0, cfg.Samples)
	for len(out) < cfg.Samples {
		if len(out)%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		target := TableI[rng.IntN(len(TableI))]
		var co []CoRunner
		addJob := func(socket string) {
			w := TableI[rng.IntN(len(TableI))]
			co = append(co, CoRunner{Socket: socket, Model: w.Model, CPUCores: w.CPUCores, PCIeGbps: w.PCIeGbps})
		}
		if rng.IntN(2) == 1 {
			addJob(SameSocket)
		}
		for g := 0; g < 2; g++ {
			if rng.IntN(2) == 1 {
				addJob(OtherSocket)
			}
		}
		for _, socket := range []string{SameSocket, OtherSocket} {
			for h := rng.IntN(3); h > 0; h-- {
				c := math.Round((0.5+7.5*rng.Float64())*10) / 10
				co = append(co, CoRunner{Socket: socket, Model: hogModel, CPUCores: c})
			}
		}
		if len(co) == 0 {
			continue
		}
		s := cfg.slowdown(target, co)
		s = (1+s)*math.Exp(cfg.NoiseSigma*rng.NormFloat64()) - 1
		out = append(out, Sample{
			SampleID:       fmt.Sprintf("synth-%06d", len(out)),
			Source:         "synthetic",
			Model:          target.Model,
			CPUCores:       target.CPUCores,
			PCIeGbps:       target.PCIeGbps,
			CoresPerSocket: cfg.CoresPerSocket,
			CoRunners:      co,
			Slowdown:       s,
			Repetitions:    1,
		})
	}
	return out, nil
}

// GroundTruth is the noise-free slowdown of a Table I target beside co
// under cfg: the function Synthesize samples from. Exposed for tests and
// for comparing fitted models against the truth.
func (c SynthConfig) GroundTruth(target WorkloadProfile, co []CoRunner) float64 {
	return c.slowdown(target, co)
}

func (c SynthConfig) slowdown(t WorkloadProfile, co []CoRunner) float64 {
	n := c.CoresPerSocket
	var d0, d1, p0 float64 // CPU demand per socket, PCIe demand on the target's link
	d0 = t.CPUCores
	p0 = t.PCIeGbps
	for _, r := range co {
		if r.Socket == SameSocket {
			d0 += r.CPUCores
			p0 += r.PCIeGbps
		} else {
			d1 += r.CPUCores
		}
	}
	// The OS balancer moves threads between sockets: half of socket 0's
	// excess over its physical cores migrates into socket 1's idle physical
	// cores (and vice versa; DL frameworks pin the rest near their GPU);
	// migrated threads run at NUMA speed.
	const numaSpeed, migrating = 0.8, 0.5
	mig0 := math.Min(migrating*math.Max(d0-n, 0), math.Max(n-d1, 0))
	mig1 := math.Min(migrating*math.Max(d1-n, 0), math.Max(n-d0, 0))
	load0 := d0 - mig0 + mig1
	alone := c.phaseTimeAt(t, c.threadSpeed(t.CPUCores, t.CacheSensitivity), t.PCIeGbps)
	// The target's threads are spread in proportion: a share mig0/d0 of
	// socket 0's demand runs remotely.
	local := c.threadSpeed(load0, t.CacheSensitivity)
	remote := numaSpeed * c.threadSpeed(math.Max(d1-mig1+mig0, 0), t.CacheSensitivity)
	fr := 0.0
	if d0 > 0 {
		fr = mig0 / d0
	}
	speed := 1 / ((1-fr)/local + fr/remote)
	real := c.phaseTimeAt(t, speed, p0)
	return real/alone - 1
}

// threadSpeed is the throughput of one busy thread on a socket carrying
// demand d cores: full speed up to n threads, hyper-thread pairs beyond n
// (a core gives 1+h for two threads), time-slicing beyond 2n; the shared
// cache costs a further factor that grows with the square of d/n.
func (c SynthConfig) threadSpeed(d, sens float64) float64 {
	n, h := c.CoresPerSocket, c.HyperThreadGain
	v := 1.0
	switch {
	case d > 2*n:
		v = n * (1 + h) / d
	case d > n:
		v = (n + h*(d-n)) / d
	}
	u := d / n
	return v / (1 + c.CachePenalty*sens*u*u)
}

// phaseTimeAt is the iteration time (standalone GPU time = 1) with the CPU
// phase at thread speed v and the PCIe phase on a link with demand p: the
// link is shared in proportion to demand once it saturates, and queueing
// before saturation costs up to 30 % (continuous at saturation).
func (c SynthConfig) phaseTimeAt(t WorkloadProfile, v, p float64) float64 {
	rho := p / c.PCIeGbps
	var pcie float64
	if rho >= 1 {
		pcie = rho * 1.3
	} else {
		pcie = 1 + 0.3*rho*rho
	}
	gpu := 1 - t.CPUShare - t.PCIeShare
	return gpu + t.CPUShare/v + t.PCIeShare*pcie
}
