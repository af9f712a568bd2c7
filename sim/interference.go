package sim

import (
	"fmt"
	"math"

	"github.com/schedlab/schedlab/datasets"
)

// JobLoad is what the interference model knows of one job instance on a
// socket: its standalone CPU use C (cores) and PCIe traffic P (Gbit/s).
type JobLoad struct {
	Model string
	C     float64
	P     float64
}

// Interference predicts the slowdown S ≥ 0 of one instance of target when it
// shares a server with co-runners: sameSocket are the instances homed on its
// socket (not counting the target itself), otherSocket those on the server's
// other sockets. The simulator uses S(target, co) − S(target, ∅), clamped to
// [0, MaxSlowdown], so that a model with a non-zero intercept still leaves a
// job alone on a server at its standalone speed. Implementations must be safe
// for concurrent use and must not retain the slices.
type Interference interface {
	Slowdown(target JobLoad, sameSocket, otherSocket []JobLoad, coresPerSocket int) float64
}

// MaxSlowdown caps the slowdown the simulator applies, so a model
// extrapolated far outside its fitted range cannot stall a job for ever.
const MaxSlowdown = 10

// ExpLinear is the interference model of DESIGN.md §3 (MARL paper §IV-B):
//
//	S     = S_cpu + S_p
//	S_cpu = Alpha1·exp(Alpha2·U_c + Alpha3·C_J) + Lambda1
//	U_c   = Σ_same C_j + (Σ_other C_j − n_core)_+
//	S_p   = Beta1·U_p + Beta2·P_J + Lambda2,  U_p = Σ_same P_j
//
// The fitting package produces fitted coefficients; DefaultInterference has
// hand-set defaults for runs without a fit.
type ExpLinear struct {
	Alpha1, Alpha2, Alpha3, Lambda1 float64
	Beta1, Beta2, Lambda2           float64
	// PerSocket measures C_J, U_c and the other-socket excess in units of
	// the socket's cores (C/n_core) instead of cores, so one set of
	// coefficients serves 8-core and 48-core sockets. Fitted models use
	// cores (false).
	PerSocket bool
}

// DefaultInterference returns the model used when no fitted one is given:
// the form of DESIGN.md §3 with core counts per socket (PerSocket). The
// coefficients are not fitted to anything. Relative to running alone they
// give a job ≈ 6 % (CPU) when its co-runners use half its socket's cores,
// ≈ 17 % when they fill it and ≈ 95 % at two-fold over-subscription, plus
// 0.2 % per Gbit/s of co-runners' PCIe traffic on the socket — so a
// 4-core, 12 Gbit/s job beside a like one on an 8-core socket slows by
// ≈ 8 %, within the 30–37 % average slowdowns the MARL paper measures for
// whole bin-packed and load-balanced placements (§II, Fig. 1, 3).
func DefaultInterference() ExpLinear {
	return ExpLinear{Alpha1: 0.05, Alpha2: 1.5, Alpha3: 0.5, Lambda1: -0.05, Beta1: 0.002, Beta2: 0.001, Lambda2: 0, PerSocket: true}
}

// Slowdown implements Interference.
func (m ExpLinear) Slowdown(target JobLoad, same, other []JobLoad, coresPerSocket int) float64 {
	var uc, up, oc float64
	for _, j := range same {
		uc += j.C
		up += j.P
	}
	for _, j := range other {
		oc += j.C
	}
	return m.fromSums(target, uc, up, oc, coresPerSocket)
}

// fromSums is Slowdown given the co-runners' sums: uc and up the summed C
// and P on the target's socket, oc the summed C on the others, each summed
// in the order of the lists. The simulator's fast path sums them itself
// and calls this, so its results are Slowdown's to the bit.
func (m ExpLinear) fromSums(target JobLoad, uc, up, oc float64, coresPerSocket int) float64 {
	return m.SlowdownSums(target, uc, up, oc, float64(coresPerSocket))
}

// SlowdownSums is the formula itself, given the co-runners' sums (uc and up
// the summed C and P on the target's socket, oc the summed C on the
// others) and n_core: the one implementation of the interference formula
// of DESIGN.md §3, which the fitted model (fitting.InterferenceModel)
// evaluates through it. It does not allocate.
func (m ExpLinear) SlowdownSums(target JobLoad, uc, up, oc, n float64) float64 {
	if over := oc - n; over > 0 {
		uc += over
	}
	c := target.C
	if m.PerSocket && n > 0 {
		uc /= n
		c /= n
	}
	s := m.Alpha1*math.Exp(m.Alpha2*uc+m.Alpha3*c) + m.Lambda1 + m.Beta1*up + m.Beta2*target.P + m.Lambda2
	return s
}

// Validate reports a coefficient that is not finite or outside its
// plausible range (datasets' bounds table).
func (m ExpLinear) Validate() error {
	names := [...]string{"alpha1", "alpha2", "alpha3", "lambda1", "beta1", "beta2", "lambda2"}
	for i, v := range [...]float64{m.Alpha1, m.Alpha2, m.Alpha3, m.Lambda1, m.Beta1, m.Beta2, m.Lambda2} {
		if bad := datasets.CheckValue(names[i], v); bad != nil {
			return fmt.Errorf("interference.%s: %s", names[i], bad.Reason)
		}
	}
	return nil
}

// NoInterference is a model under which co-location costs nothing.
type NoInterference struct{}

// Slowdown implements Interference.
func (NoInterference) Slowdown(JobLoad, []JobLoad, []JobLoad, int) float64 { return 0 }

// InterferenceFunc adapts a function to Interference (e.g. a fitted model
// with another signature).
type InterferenceFunc func(target JobLoad, sameSocket, otherSocket []JobLoad, coresPerSocket int) float64

// Slowdown implements Interference.
func (f InterferenceFunc) Slowdown(target JobLoad, same, other []JobLoad, coresPerSocket int) float64 {
	return f(target, same, other, coresPerSocket)
}
