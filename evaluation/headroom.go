package evaluation

import (
	"math"
)

// Floor and headroom (DESIGN.md §4). Every cell has a floor, a mean JCT
// that no scheduler can beat on its jobs (sim.Floor: the same for every
// scheduler of a column, which replays the same jobs); the column's best
// heuristic is the lowest mean JCT of a scheduler that is neither learned
// nor an oracle (schedulers.Name.Heuristic). The headroom is how far the
// best heuristic is above the floor, (best − floor) / floor: no scheduler
// can beat the best heuristic by more than headroom / (1 + headroom) of
// its mean JCT, so a claimed margin larger than that cannot be shown in
// the cell, whatever the scheduler. A row's share of the headroom is
// (best − its mean JCT) / (best − floor): 1 at the floor, 0 level with the
// best heuristic, negative behind it.

// Headroom is one cell's floor and headroom.
type Headroom struct {
	FloorJCTS float64
	// BestHeuristic is the canonical name of the column's best heuristic,
	// "" when the column has none; BestHeuristicJCTS its mean JCT (NaN
	// then).
	BestHeuristic     string
	BestHeuristicJCTS float64
	// Headroom is (best − floor) / floor, NaN without a best heuristic
	// or a positive floor.
	Headroom float64
	// Share is the cell's share of the headroom, NaN where the headroom
	// is not positive.
	Share float64
}

// HeadroomOf is the headroom of a cell of mean JCT jct, in a column of
// the floor and best heuristic given (best "" when the column has none).
func HeadroomOf(floor float64, best string, bestJCT, jct float64) Headroom {
	h := Headroom{FloorJCTS: floor, BestHeuristic: best, BestHeuristicJCTS: math.NaN(), Headroom: math.NaN(), Share: math.NaN()}
	if best == "" {
		return h
	}
	h.BestHeuristicJCTS = bestJCT
	if floor > 0 {
		h.Headroom = (bestJCT - floor) / floor
	}
	if bestJCT > floor {
		h.Share = (bestJCT - jct) / (bestJCT - floor)
	}
	return h
}

// MaxMargin is the largest relative margin, (baseline − x) / baseline,
// by which any scheduler can beat a baseline that sits headroom above
// the floor: the margin of a scheduler at the floor.
func MaxMargin(headroom float64) float64 { return headroom / (1 + headroom) }

// headrooms is the headroom of every cell of the report, by position in
// r.Cells: the best heuristic of a cell's column (same cluster, workload
// and seed) over the heuristic cells of that column.
func (r *Report) headrooms() []Headroom {
	type column struct{ ci, wi, seed int }
	type best struct {
		name string
		jct  float64
	}
	bests := map[column]best{}
	for _, cr := range r.Cells {
		c := cr.Cell
		if !c.Scheduler.Heuristic() {
			continue
		}
		k := column{c.ci, c.wi, c.Seed}
		// Ties go to the first in spec order (cells are in spec order).
		if b, ok := bests[k]; !ok || cr.Metrics.MeanJCTS < b.jct {
			bests[k] = best{string(c.Scheduler), cr.Metrics.MeanJCTS}
		}
	}
	out := make([]Headroom, len(r.Cells))
	for i, cr := range r.Cells {
		c := cr.Cell
		b := bests[column{c.ci, c.wi, c.Seed}]
		out[i] = HeadroomOf(cr.Metrics.FloorJCTS, b.name, b.jct, cr.Metrics.MeanJCTS)
	}
	return out
}
