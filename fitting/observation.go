package fitting

import (
	"fmt"
	"math"

	"github.com/schedlab/schedlab/profiling"
)

// Observation is one co-location sample reduced to the inputs of the
// interference models (DESIGN.md §3):
//
//	UC = Σ_same C_j + (Σ_other C_j − n_core)_+   interfering CPU use, cores
//	CJ = C_J                                      target's CPU use alone, cores
//	UP = Σ_same P_j                               interfering PCIe use, Gbit/s
//	PJ = P_J                                      target's PCIe use alone, Gbit/s
//	S                                             measured slowdown
type Observation struct {
	UC, CJ, UP, PJ, S float64
}

// Quarantined is a sample the fit refused, with the reason.
type Quarantined struct {
	Row      int    // 0-based index in the input
	SampleID string // the sample's id
	Reason   string
}

// Observations validates samples and reduces the good ones to
// Observations. Rows in = len(obs) + len(quarantined), always. A sample is
// quarantined for a non-finite number, a negative utilisation or core
// count, an unknown co-runner socket, no co-runners at all (a standalone
// run is the baseline of the slowdown, not a co-location), or a slowdown
// ≤ −1 (a non-positive run time).
func Observations(samples []profiling.Sample) ([]Observation, []Quarantined) {
	obs := make([]Observation, 0, len(samples))
	var bad []Quarantined
	for i, s := range samples {
		o, err := observe(s)
		if err != nil {
			bad = append(bad, Quarantined{Row: i, SampleID: s.SampleID, Reason: err.Error()})
			continue
		}
		obs = append(obs, o)
	}
	return obs, bad
}

func observe(s profiling.Sample) (Observation, error) {
	check := func(field string, v float64, nonNeg bool) error {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: not finite (%g)", field, v)
		}
		if nonNeg && v < 0 {
			return fmt.Errorf("%s: negative utilisation %g", field, v)
		}
		return nil
	}
	if err := check("cpu_cores", s.CPUCores, true); err != nil {
		return Observation{}, err
	}
	if err := check("pcie_gbps", s.PCIeGbps, true); err != nil {
		return Observation{}, err
	}
	if err := check("slowdown", s.Slowdown, false); err != nil {
		return Observation{}, err
	}
	if s.Slowdown <= -1 {
		return Observation{}, fmt.Errorf("slowdown: %g ≤ −1 means a non-positive run time", s.Slowdown)
	}
	if err := check("cores_per_socket", s.CoresPerSocket, true); err != nil || s.CoresPerSocket == 0 {
		return Observation{}, fmt.Errorf("cores_per_socket: must be a positive number, got %g", s.CoresPerSocket)
	}
	if len(s.CoRunners) == 0 {
		return Observation{}, fmt.Errorf("co_runners: none (a standalone run is the baseline, not a co-location sample)")
	}
	o := Observation{CJ: s.CPUCores, PJ: s.PCIeGbps, S: s.Slowdown}
	other := 0.0
	for k, r := range s.CoRunners {
		if err := check(fmt.Sprintf("co_runners[%d].cpu_cores", k), r.CPUCores, true); err != nil {
			return Observation{}, err
		}
		if err := check(fmt.Sprintf("co_runners[%d].pcie_gbps", k), r.PCIeGbps, true); err != nil {
			return Observation{}, err
		}
		switch r.Socket {
		case profiling.SameSocket:
			o.UC += r.CPUCores
			o.UP += r.PCIeGbps
		case profiling.OtherSocket:
			other += r.CPUCores
		default:
			return Observation{}, fmt.Errorf("co_runners[%d].socket: %q is neither %q nor %q", k, r.Socket, profiling.SameSocket, profiling.OtherSocket)
		}
	}
	o.UC += math.Max(other-s.CoresPerSocket, 0)
	return o, nil
}
