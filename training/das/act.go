package das

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/schedlab/schedlab/internal/sortorder"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/nn"
)

var halfLog2Pi = 0.5 * math.Log(2*math.Pi)

// gaussLogp is log N(x; μ, σ²), the same expression as nn.GaussianLogProb.
func gaussLogp(x, mu, sd float64) float64 {
	z := (x - mu) / sd
	return -0.5*z*z - math.Log(sd) - halfLog2Pi
}

// decision is both agents' actions at one decision point. Affinity rows
// are computed only for the jobs the decoder tries to place (aff[r] is
// nil for the others): they are independent per job, so leaving out the
// rows of jobs that cannot fit changes no action that is used, and saves
// most of the placement agent's work on a busy cluster.
type decision struct {
	prio     []float64   // N priorities (padding rows 0)
	prioLogp float64     // log π^j(a^j), over the real rows
	aff      [][]float64 // per real row, M affinities, or nil
	affLogp  []float64   // per real row, log-density of its affinity row
	// affMean is, under sampling, the mean of each affinity row computed
	// (nil otherwise): the action the target policy would take there,
	// which Algorithm 1 reads when its target equals the acting policy.
	affMean [][]float64
	hist    []*HistEntry
}

// agents holds one decision's forward pass, from which affinity rows are
// drawn on demand.
type agents struct {
	m       *Model
	t       *nn.Tape
	o       *Obs
	rng     *rand.Rand
	shat    *nn.Node
	sc, rho *nn.Node
	mu, sd  *nn.Node // the ordering agent's Gaussian (act only; nil from actRows)
	g       gpState
	walk    *walker // RWGP variants
	d       decision
	// computed marks the rows actRows computed; nil when act computed
	// them all.
	computed []bool
}

// errPartial is decode's report that a decision from actRows would
// place a row that actRows left out.
var errPartial = errors.New("das: decision needs a row the ordering agent left out")

// act runs the ordering agent on o and prepares the placement agent. With
// rng it samples a^j ~ N(μ^j, σ^j) and A^c ~ N(μ, Σ) (training); without,
// it takes the means (evaluation).
func (m *Model) act(t *nn.Tape, o *Obs, rng *rand.Rand) *agents {
	t.Reset()
	n := m.cfg.Jobs
	a := &agents{m: m, t: t, o: o, rng: rng}
	a.shat, a.sc = m.trunkRows(t, []*Obs{o}, max(o.Count, 1))
	mu, sd := m.priority(t, a.shat)
	a.mu, a.sd = mu, sd
	d := &a.d
	d.prio = make([]float64, n)
	for r := 0; r < o.Count; r++ {
		p := mu.Data[r]
		if rng != nil {
			p += sd.Data[r] * rng.NormFloat64()
		}
		d.prio[r] = p
		d.prioLogp += gaussLogp(p, mu.Data[r], sd.Data[r])
	}
	a.preparePlacement()
	return a
}

// actRows is act in evaluation for the rows of o that can fit the
// cluster (fitting), with the ordering agent run by w off the tape: the
// other rows get no representation and priority −Inf. Decode visits the
// rows in the order act's priorities give them, the others last, and
// books exactly what it would after act: a row that cannot fit at the
// start cannot fit later while the ledger stays within the start's free
// resources, and decode reports errPartial if it does not or one of the
// others fits after all. It returns nil if a row's priority is NaN:
// sorting by NaN is not a stable sort, so the order would depend on the
// rows left out, and act must decide. (Priorities are tanh of finite
// values for finite weights; a NaN among the rows left out, which act
// alone would see, needs activations that overflow.)
func (m *Model) actRows(t *nn.Tape, w *orderer, o *Obs, rows []int) *agents {
	t.Reset()
	n, e := max(o.Count, 1), m.cfg.Hidden
	shat, sc, mu := w.order(m, o, n, rows)
	a := &agents{m: m, t: t, o: o, computed: make([]bool, o.Count)}
	for _, r := range rows {
		if math.IsNaN(mu[r]) {
			return nil
		}
		a.computed[r] = true
	}
	a.shat, a.sc = t.Const(n, e, shat), t.Const(o.M, e, sc)
	a.d.prio = make([]float64, m.cfg.Jobs)
	copy(a.d.prio[:o.Count], mu)
	a.preparePlacement()
	return a
}

// preparePlacement readies the placement agent once Ŝ and S^c are known.
func (a *agents) preparePlacement() {
	m, t, o, d := a.m, a.t, a.o, &a.d
	if m.cfg.rwgp() {
		a.rho = m.rho(t)
		a.g = m.gpPrepare(t, o.Hist, o.M, a.rho, true)
		a.walk = newWalker(o.M, a.rho.Data[0], walkCoefs(t, m.logBeta, m.cfg.WalkLength).Data)
		d.hist = make([]*HistEntry, o.Count)
	}
	d.aff = make([][]float64, o.Count)
	d.affLogp = make([]float64, o.Count)
	if a.rng != nil {
		d.affMean = make([][]float64, o.Count)
	}
}

// affinity returns row r of A^c, computing it on first use.
func (a *agents) affinity(r int) []float64 {
	d := &a.d
	if d.aff[r] != nil {
		return d.aff[r]
	}
	m, t, M := a.m, a.t, a.o.M
	x, srow := jobAware(t, a.shat, a.sc, 0, r, a.shat.Rows, M)
	var amu, asd, phi, mean *nn.Node
	if a.walk != nil {
		// Acting needs no gradient: the graph feature, the bulk of the
		// work, is computed off the tape.
		phi = t.Const(1, len(a.walk.coefs), a.walk.features(x.Data, x.Cols))
		amu, asd, mean = m.posterior(t, x, phi, &a.g)
	} else {
		amu, asd, _, _ = m.affinity(t, x, srow, &a.g, a.rho)
	}
	row := make([]float64, M)
	s := asd.Data[0]
	lp := 0.0
	for k := range row {
		v := amu.Data[k]
		if a.rng != nil {
			v += s * a.rng.NormFloat64()
		}
		row[k] = v
		lp += gaussLogp(v, amu.Data[k], s)
	}
	d.aff[r], d.affLogp[r] = row, lp
	if d.affMean != nil {
		d.affMean[r] = slices.Clone(amu.Data[:M])
	}
	if d.hist != nil {
		d.hist[r] = &HistEntry{X: slices.Clone(x.Data), Y: row, phi: slices.Clone(phi.Data), mean: slices.Clone(mean.Data)}
	}
	return row
}

// meanAffinity is the mean of row r of A^c: the row itself when acting
// took the means, else the mean kept beside the sample (the row must
// have been computed, as every placed row is).
func (a *agents) meanAffinity(r int) []float64 {
	if a.d.affMean != nil {
		return a.d.affMean[r]
	}
	return a.affinity(r)
}

// passOver skips the affinity row of a job that roomFor rules out. Under
// sampling it still takes the row's M draws from the stream, as computing
// the row would: the job could not have been placed whatever its
// affinities, so the shortcut changes no later draw, and training
// rollouts are the same with it as without.
func (a *agents) passOver() {
	if a.rng == nil {
		return
	}
	for range a.o.M {
		a.rng.NormFloat64()
	}
}

// decode turns the agents' actions into placements: jobs in descending
// priority (ties to submission order); each job's instances, one after
// another, on the machine of highest affinity that still has room in the
// decision's ledger. A job with an instance that fits nowhere gives back
// what it booked and stays pending (ζ = 0); a job that cannot fit what is
// left (mayFit, roomFor) is passed over without asking for its
// affinities. Because every instance is booked in the ledger, a decision
// never over-commits a server.
//
// A GP kernel matrix that is not numerically positive definite (nn's
// CholSolve failure) is returned as an error.
func decode(st *sim.State, jobs []*sim.JobState, a *agents) (pl []sim.Placement, placed []int, err error) {
	d := &a.d
	rows := make([]int, len(jobs))
	for i := range rows {
		rows[i] = i
	}
	slices.SortStableFunc(rows, func(x, y int) int { return sortorder.Desc(d.prio[x], d.prio[y]) })
	led := st.Ledger()
	M := len(st.Free)
	order := make([]int, M)
	for _, r := range rows {
		js := jobs[r]
		if !mayFit(led, js) {
			continue
		}
		if roomFor(led, js) < len(js.Instances) {
			a.passOver()
			continue
		}
		if a.computed != nil && !a.computed[r] {
			return nil, nil, errPartial
		}
		aff := a.affinity(r)
		for k := range order {
			order[k] = k
		}
		slices.SortStableFunc(order, func(x, y int) int { return sortorder.Desc(aff[x], aff[y]) })
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
			led.GiveBack(js, slots)
			if a.computed != nil && !within(led, st.Free, slots) {
				// Giving back can round a server's free resources
				// above where the decision started, where a row that
				// did not fit then might fit now.
				return nil, nil, errPartial
			}
			continue
		}
		pl = append(pl, sim.Placement{Job: js.Index, Slots: slots})
		placed = append(placed, r)
	}
	if err := a.t.Err(); err != nil {
		return nil, nil, fmt.Errorf("das: at t=%gs: %w", st.Now, err)
	}
	return pl, placed, nil
}

// within reports whether the ledger's servers of slots have at most the
// free resources of free. While every server has, mayFit and roomFor are
// no easier to pass than with free (both are monotone in the ledger).
func within(led *sim.Ledger, free []sim.Resources, slots []sim.Slot) bool {
	for _, s := range slots {
		l, f := led.Free[s.Server], free[s.Server]
		if l.GPU > f.GPU || l.CPU > f.CPU || l.MemGiB > f.MemGiB {
			return false
		}
	}
	return true
}

// mayFit is a necessary condition for js to fit the ledger: its total
// within the total free, and each instance within some server.
func mayFit(led *sim.Ledger, js *sim.JobState) bool {
	var free sim.Resources
	for _, f := range led.Free {
		free = free.Add(f)
	}
	if !js.Total.Fits(free) {
		return false
	}
	for _, in := range js.Instances {
		ok := false
		for k := range led.Free {
			if led.Fits(k, in.Demand) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// roomFor bounds how many of js's instances the ledger can take in any
// order: how often each server fits the element-wise least demand of
// the instances, booked as Ledger.Take books (floating-point subtraction
// is monotone, so no sequence of larger demands fits more often). On a
// fragmented cluster most jobs that pass mayFit fail here, and skipping
// their affinities is most of what acting saves.
func roomFor(led *sim.Ledger, js *sim.JobState) int {
	need := len(js.Instances)
	if need == 0 {
		return 0
	}
	least := js.Instances[0].Demand
	for _, in := range js.Instances[1:] {
		least.GPU = min(least.GPU, in.Demand.GPU)
		least.CPU = min(least.CPU, in.Demand.CPU)
		least.MemGiB = min(least.MemGiB, in.Demand.MemGiB)
	}
	n := 0
	for _, free := range led.Free {
		for n < need && least.Fits(free) {
			free = free.Sub(least)
			n++
		}
	}
	return n
}
