package schedulers

import (
	"context"
	"math/rand/v2"

	"github.com/schedlab/schedlab/sim"
)

// MOSA is multi-objective simulated annealing (Sekkal & Belkaid 2020, as
// the DAS paper's baseline): Population solutions, each annealed for
// Iterations steps by a neighbour move (swap two job priorities, or
// re-draw one server's affinity), accepting a worse neighbour with
// probability exp(−Δ/T); T cools by Cooling per iteration; non-dominated
// solutions (JCT, fee) go to an archive whose knee is applied. Durations
// come as MALO's do: estimated (NewMOSA) or true (NewOracleMOSA).
type MOSA struct {
	metaSearch
}

// NewMOSA returns MOSA drawing from rng, with durations estimated by a
// HistoryEstimator.
func NewMOSA(cfg MetaConfig, price float64, rng *rand.Rand) (*MOSA, error) {
	return newMeta[MOSA]("mosa", cfg, price, NewHistoryEstimator(), rng)
}

// NewOracleMOSA returns MOSA reading every job's true duration and
// remaining time (TrueDurations): an upper bound, not a baseline.
func NewOracleMOSA(cfg MetaConfig, price float64, rng *rand.Rand) (*MOSA, error) {
	return newMeta[MOSA]("mosa-oracle", cfg, price, TrueDurations{}, rng)
}

var _ sim.ProgressBlind = (*MOSA)(nil)

// Schedule implements sim.Scheduler.
func (m *MOSA) Schedule(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	p := m.problem(st)
	if p == nil {
		return nil, nil
	}
	ar := archive{cap: 2 * m.cfg.Population}
	pop := m.population(p, &ar, true)
	temp := m.cfg.Temperature
	nb := solution{x: make([]float64, p.dim()), ord: make([]int, p.dim()), tr: m.trace(p)}
	k := len(p.jobs)
	for it := 0; it < m.cfg.Iterations; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for i := range pop {
			copy(nb.x, pop[i].x)
			copy(nb.ord, pop[i].ord)
			if k >= 2 && m.rng.IntN(2) == 0 {
				a, b := m.rng.IntN(k), m.rng.IntN(k)
				nb.x[a], nb.x[b] = nb.x[b], nb.x[a]
				p.evalChanged(&nb, &pop[i], a, b)
			} else {
				s := k + m.rng.IntN(p.m)
				nb.x[s] = m.rng.Float64()
				p.evalChanged(&nb, &pop[i], s, s)
			}
			if dominates(nb.f, pop[i].f) || accept(m.rng, nb.cost-pop[i].cost, temp) {
				pop[i].x, nb.x = nb.x, pop[i].x
				pop[i].ord, nb.ord = nb.ord, pop[i].ord
				pop[i].tr, nb.tr = nb.tr, pop[i].tr
				pop[i].f, pop[i].cost = nb.f, nb.cost
				ar.add(pop[i])
			}
		}
		temp *= m.cfg.Cooling
	}
	m.spare = append(m.spare, nb.tr)
	for i := range pop {
		m.spare = append(m.spare, pop[i].tr)
	}
	return p.placements(&ar), nil
}
