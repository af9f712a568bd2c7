package das

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/nn"
)

var halfLog2Pi = 0.5 * math.Log(2*math.Pi)

// gaussLogp is log N(x; μ, σ²), the same expression as nn.GaussianLogProb.
func gaussLogp(x, mu, sd float64) float64 {
	z := (x - mu) / sd
	return -0.5*z*z - math.Log(sd) - halfLog2Pi
}

// decision is both agents' actions at one decision point.
type decision struct {
	prio     []float64   // N priorities (padding rows 0)
	prioLogp float64     // log π^j(a^j), over the real rows
	aff      [][]float64 // per real row, M affinities
	affLogp  []float64   // per real row, log-density of its affinity row
	x        [][]float64 // per real row, the job-aware features (M×e), RWGP only
}

// act runs both agents on o. With rng it samples a^j ~ N(μ^j, σ^j) and
// A^c ~ N(μ, Σ) (training); without, it takes the means (evaluation).
func (m *Model) act(t *nn.Tape, o *Obs, rng *rand.Rand) decision {
	t.Reset()
	n, e, M := m.cfg.Jobs, m.cfg.Hidden, o.M
	shat, sc := m.trunk(t, []*Obs{o})
	mu, sd := m.priority(t, shat)
	d := decision{prio: make([]float64, n)}
	for r := 0; r < o.Count; r++ {
		a := mu.Data[r]
		if rng != nil {
			a += sd.Data[r] * rng.NormFloat64()
		}
		d.prio[r] = a
		d.prioLogp += gaussLogp(a, mu.Data[r], sd.Data[r])
	}
	var rho *nn.Node
	var g gpState
	if m.cfg.rwgp() {
		rho = m.rho(t)
		g = m.gpPrepare(t, o.Hist, M, rho)
	}
	d.aff = make([][]float64, o.Count)
	d.affLogp = make([]float64, o.Count)
	if m.cfg.rwgp() {
		d.x = make([][]float64, o.Count)
	}
	for r := 0; r < o.Count; r++ {
		x, srow := jobAware(t, shat, sc, 0, r, n, M)
		amu, asd := m.affinity(t, x, srow, &g, rho)
		row := make([]float64, M)
		s := asd.Data[0]
		lp := 0.0
		for k := range row {
			a := amu.Data[k]
			if rng != nil {
				a += s * rng.NormFloat64()
			}
			row[k] = a
			lp += gaussLogp(a, amu.Data[k], s)
		}
		d.aff[r], d.affLogp[r] = row, lp
		if d.x != nil {
			d.x[r] = slices.Clone(x.Data[:M*e])
		}
	}
	return d
}

// decode turns the agents' actions into placements: jobs in descending
// priority (ties to submission order); each job's instances, one after
// another, on the machine of highest affinity that still has room in the
// decision's ledger. A job with an instance that fits nowhere gives back
// what it booked and stays pending (ζ = 0). Because every instance is
// booked in the ledger, a decision never over-commits a server.
func decode(st *sim.State, jobs []*sim.JobState, d decision) (pl []sim.Placement, placed []int) {
	rows := make([]int, len(jobs))
	for i := range rows {
		rows[i] = i
	}
	slices.SortStableFunc(rows, func(a, b int) int { return cmpDesc(d.prio[a], d.prio[b]) })
	led := st.Ledger()
	M := len(st.Free)
	order := make([]int, M)
	for _, r := range rows {
		js := jobs[r]
		for k := range order {
			order[k] = k
		}
		aff := d.aff[r]
		slices.SortStableFunc(order, func(a, b int) int { return cmpDesc(aff[a], aff[b]) })
		slots := make([]sim.Slot, 0, len(js.Instances))
		for _, in := range js.Instances {
			booked := false
			for _, k := range order {
				if led.Fits(k, in.Demand) {
					led.Take(k, in.Demand)
					slots = append(slots, sim.Slot{Server: k, Socket: -1})
					booked = true
					break
				}
			}
			if !booked {
				break
			}
		}
		if len(slots) < len(js.Instances) {
			for i, s := range slots {
				led.Give(s.Server, js.Instances[i].Demand)
			}
			continue
		}
		pl = append(pl, sim.Placement{Job: js.Index, Slots: slots})
		placed = append(placed, r)
	}
	return pl, placed
}

func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}
