package das

import (
	"math"
	"math/rand/v2"

	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/daspaper"
)

// Feature widths of the observation rows (daspaper's).
const (
	JobFeatures     = daspaper.JobFeatures
	MachineFeatures = daspaper.MachineFeatures
)

// Obs is what both agents see at one decision point: the DAS paper's
// observation (daspaper.Obs) and what DAS adds to it.
type Obs struct {
	daspaper.Obs
	// Placed lists the rows whose jobs this decision started, in the
	// order placed: only their affinity rows acted on the environment, so
	// only they enter the placement log-probability (the other rows are
	// independent Gaussians, marginalised out exactly).
	Placed []int
	// Hist is the GP's conditioning set at this decision (RWGP variants).
	Hist []*HistEntry
}

// HistEntry is one past placement the RWGP conditions on: the job-aware
// machine features x_k = Ŝ_i ⊙ S^c_k it was computed from (held fixed, as
// GP data are) and the affinity row that was acted on.
type HistEntry struct {
	X []float64 // M×e
	Y []float64 // M
	// The entry's random-walk feature and GP mean m(x) when it was acted
	// on: acting reuses them while the parameters stay fixed.
	phi, mean []float64
}

// observe is daspaper.Observe of st with n job rows, for DAS's agents to
// add to.
func observe(st *sim.State, n int, rng *rand.Rand) (*Obs, []*sim.JobState) {
	o, chosen := daspaper.Observe(st, n, rng)
	return &Obs{Obs: *o}, chosen
}

// positionEmbedding is the sinusoidal table PE(i)_{2k} = sin(i/10000^{2k/e}),
// PE(i)_{2k+1} = cos(i/10000^{2k/e}), n×e.
func positionEmbedding(n, e int) []float64 {
	pe := make([]float64, n*e)
	for i := 0; i < n; i++ {
		for d := 0; d < e; d++ {
			k := d / 2
			a := float64(i) / math.Pow(10000, float64(2*k)/float64(e))
			if d%2 == 0 {
				pe[i*e+d] = math.Sin(a)
			} else {
				pe[i*e+d] = math.Cos(a)
			}
		}
	}
	return pe
}
