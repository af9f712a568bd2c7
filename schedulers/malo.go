package schedulers

import (
	"context"
	"math/rand/v2"

	"github.com/schedlab/schedlab/sim"
)

// MALO is the hybrid ant-lion optimiser with elite differential evolution
// (Abualigah & Diabat 2021, as the DAS paper's baseline). Each iteration,
// every ant walks randomly around an antlion chosen by roulette and around
// the elite, within a radius that shrinks with the iterations (the ALO
// trap); an antlion that is beaten by its ant takes the ant's position. The
// elite is then refined by DE/best/1/bin (F = 0.5, CR = 0.9) with
// simulated-annealing acceptance at temperature T (the paper's T and P are
// this anneal's). Non-dominated solutions go to an archive whose knee is
// applied. Its surrogate needs durations: NewMALO estimates them from
// finished jobs (HistoryEstimator), NewOracleMALO reads the truth.
type MALO struct {
	metaSearch
}

// NewMALO returns MALO drawing from rng, with durations estimated by a
// HistoryEstimator.
func NewMALO(cfg MetaConfig, price float64, rng *rand.Rand) (*MALO, error) {
	return newMeta[MALO]("malo", cfg, price, NewHistoryEstimator(), rng)
}

// NewOracleMALO returns MALO reading every job's true duration and
// remaining time (TrueDurations): an upper bound, not a baseline.
func NewOracleMALO(cfg MetaConfig, price float64, rng *rand.Rand) (*MALO, error) {
	return newMeta[MALO]("malo-oracle", cfg, price, TrueDurations{}, rng)
}

var _ sim.ProgressBlind = (*MALO)(nil)

// Schedule implements sim.Scheduler.
func (m *MALO) Schedule(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	p := m.problem(st)
	if p == nil {
		return nil, nil
	}
	n, dim := m.cfg.Population, p.dim()
	ar := archive{cap: 2 * n}
	lions := m.population(p, &ar, false)
	elite := 0
	for i := range lions {
		if lions[i].cost < lions[elite].cost {
			elite = i
		}
	}
	ant := solution{x: make([]float64, dim)}
	trial := solution{x: make([]float64, dim)}
	weights := make([]float64, n)
	temp := m.cfg.Temperature
	for it := 0; it < m.cfg.Iterations; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// ALO's shrinking trap: radius 1/I_ratio, I_ratio growing with the
		// iterations (10^w steps in Mirjalili 2015; linear here).
		radius := 0.5 * (1 - float64(it)/float64(m.cfg.Iterations))
		radius = max(radius, 0.01)
		var wsum float64
		for i, l := range lions {
			weights[i] = 1 / (1 + l.cost)
			wsum += weights[i]
		}
		for a := 0; a < n; a++ {
			sel := roulette(m.rng, weights, wsum)
			for d := 0; d < dim; d++ {
				ra := lions[sel].x[d] + radius*(2*m.rng.Float64()-1)
				re := lions[elite].x[d] + radius*(2*m.rng.Float64()-1)
				ant.x[d] = clamp01((ra + re) / 2)
			}
			p.eval(&ant)
			ar.add(ant)
			if ant.cost < lions[sel].cost {
				copy(lions[sel].x, ant.x)
				lions[sel].f, lions[sel].cost = ant.f, ant.cost
				if ant.cost < lions[elite].cost {
					elite = sel
				}
			}
		}
		// Elite DE/best/1/bin local search with annealed acceptance.
		r1, r2 := m.rng.IntN(n), m.rng.IntN(n)
		jr := m.rng.IntN(dim)
		for d := 0; d < dim; d++ {
			trial.x[d] = lions[elite].x[d]
			if d == jr || m.rng.Float64() < 0.9 {
				trial.x[d] = clamp01(lions[elite].x[d] + 0.5*(lions[r1].x[d]-lions[r2].x[d]))
			}
		}
		p.eval(&trial)
		ar.add(trial)
		if accept(m.rng, trial.cost-lions[elite].cost, temp) {
			copy(lions[elite].x, trial.x)
			lions[elite].f, lions[elite].cost = trial.f, trial.cost
			for i := range lions {
				if lions[i].cost < lions[elite].cost {
					elite = i
				}
			}
		}
		temp *= m.cfg.Cooling
	}
	return p.placements(&ar), nil
}

func roulette(r *rand.Rand, w []float64, sum float64) int {
	u := r.Float64() * sum
	for i, x := range w {
		u -= x
		if u < 0 {
			return i
		}
	}
	return len(w) - 1
}
