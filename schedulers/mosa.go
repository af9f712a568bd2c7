package schedulers

import (
	"context"
	"fmt"
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
	cfg   MetaConfig
	price float64
	dur   Durations
	name  string
	rng   *rand.Rand
}

// NewMOSA returns MOSA drawing from rng, with durations estimated by a
// HistoryEstimator.
func NewMOSA(cfg MetaConfig, price float64, rng *rand.Rand) (*MOSA, error) {
	return newMOSA("mosa", cfg, price, NewHistoryEstimator(), rng)
}

// NewOracleMOSA returns MOSA reading every job's true duration and
// remaining time (TrueDurations): an upper bound, not a baseline.
func NewOracleMOSA(cfg MetaConfig, price float64, rng *rand.Rand) (*MOSA, error) {
	return newMOSA("mosa-oracle", cfg, price, TrueDurations{}, rng)
}

func newMOSA(name string, cfg MetaConfig, price float64, d Durations, rng *rand.Rand) (*MOSA, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("schedulers: %s.%w", name, err)
	}
	return &MOSA{cfg: cfg, price: price, dur: d, name: name, rng: rng}, nil
}

// Name implements sim.Scheduler.
func (m *MOSA) Name() string { return m.name }

var _ sim.ProgressBlind = (*MOSA)(nil)

// IgnoresProgress implements sim.ProgressBlind: the annealing reads its
// Durations, which never read State.Since.Progress.
func (m *MOSA) IgnoresProgress() {}

// Schedule implements sim.Scheduler.
func (m *MOSA) Schedule(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	m.dur.Observe(st)
	if len(st.Pending) == 0 || !anyFits(st) {
		return nil, nil
	}
	p := newProblem(st, m.cfg.MaxJobs, m.price, m.dur)
	ar := archive{cap: 2 * m.cfg.Population}
	pop := make([]solution, m.cfg.Population)
	pop[0] = seedSolution(p)
	for i := 1; i < len(pop); i++ {
		pop[i] = solution{x: make([]float64, p.dim())}
		for d := range pop[i].x {
			pop[i].x[d] = m.rng.Float64()
		}
	}
	for i := range pop {
		p.eval(&pop[i])
		ar.add(pop[i])
	}
	temp := m.cfg.Temperature
	nb := solution{x: make([]float64, p.dim())}
	k := len(p.jobs)
	for it := 0; it < m.cfg.Iterations; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for i := range pop {
			copy(nb.x, pop[i].x)
			if k >= 2 && m.rng.IntN(2) == 0 {
				a, b := m.rng.IntN(k), m.rng.IntN(k)
				nb.x[a], nb.x[b] = nb.x[b], nb.x[a]
			} else {
				nb.x[k+m.rng.IntN(p.m)] = m.rng.Float64()
			}
			p.eval(&nb)
			if dominates(nb.f, pop[i].f) || accept(m.rng, nb.cost-pop[i].cost, temp) {
				pop[i].x, nb.x = nb.x, pop[i].x
				pop[i].f, pop[i].cost = nb.f, nb.cost
				ar.add(pop[i])
			}
		}
		temp *= m.cfg.Cooling
	}
	pl, _ := p.decode(ar.best().x, true)
	return p.finish(pl), nil
}
