package sensitivity

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync/atomic"

	"github.com/schedlab/schedlab/sim"
	"github.com/sourcegraph/conc/pool"
)

// Grid is the multipliers of a map: rows multiply the environment's
// communication scale, columns its interference scale.
type Grid struct {
	Comm, Interference []float64
}

// Validate reports an empty axis or a multiplier that is not finite,
// positive and greater than the one before.
func (g Grid) Validate() error {
	var errs []error
	for _, ax := range []struct {
		name string
		v    []float64
	}{{"comm", g.Comm}, {"interference", g.Interference}} {
		if len(ax.v) == 0 {
			errs = append(errs, fmt.Errorf("sensitivity: %s multipliers: none given", ax.name))
		}
		for i, m := range ax.v {
			if !(m > 0) || math.IsInf(m, 0) || (i > 0 && !(m > ax.v[i-1])) {
				errs = append(errs, fmt.Errorf("sensitivity: %s multipliers[%d]: want finite, > 0 and increasing, got %v", ax.name, i, m))
			}
		}
	}
	return errors.Join(errs...)
}

// Part is one map: a learned scheduler against heuristics, around a
// calibrated environment.
type Part struct {
	// Name is the part's id (its learned scheduler's name).
	Name string
	// Title heads its panel and its rows ("marl-device, fat-tree k=4").
	Title string
	// Learned is the learned scheduler, Heuristics what it is compared
	// with (display names, in table order).
	Learned    string
	Heuristics []string
	// Base is the environment at multipliers 1.
	Base sim.Environment
	// Unit of the mean JCTs an Evaluator returns ("min", "intervals").
	Unit string
	// Notes say how the part was set up (workload, training, base model),
	// for the table's notes.
	Notes []string
	// Load and Socket are the part's operating point where the map sweeps
	// them: the multiplier of the paper's jobs per pod (0: not swept) and
	// the socket rule ("": not swept). They go to the Parquet cells.
	Load   float64
	Socket string
}

// Point is one grid point of a part: the multipliers and the environment
// they make.
type Point struct {
	Comm, Interference float64 // multipliers
	// Env is the part's base environment with its communication and
	// interference scales multiplied.
	Env sim.Environment
}

// Key names the point in random-stream keys and logs: "comm=0.5,interference=2".
func (p Point) Key() string {
	return "comm=" + strconv.FormatFloat(p.Comm, 'g', -1, 64) + ",interference=" + strconv.FormatFloat(p.Interference, 'g', -1, 64)
}

// PointAt is the point of base at multipliers comm and interference; the
// environment it makes must be valid (sim.Environment.Validate).
//
// A scaled parameter outside the environment's documented range
// (sim.EnvironmentParams) is clamped to it, so that a calibrated
// environment at a bound (das-paper's interference_scale sits at its
// lower bound) still gives a full grid; the table shows the scales used,
// so clamped points read as equal to their neighbours.
func PointAt(base sim.Environment, comm, interference float64) (Point, error) {
	e := base
	e.CommScale *= comm
	e.InterferenceScale *= interference
	if base.GPUShare != nil {
		g := *base.GPUShare // the base's pointer is shared: scale a copy
		g.Scale = min(g.Scale*interference, 100)
		e.GPUShare = &g
	}
	keys, lo, hi := sim.EnvironmentParams()
	ps := e.Params()
	for i := range keys {
		ps[i] = min(max(ps[i], lo[i]), hi[i])
	}
	e.SetParams(ps)
	e.Name = fmt.Sprintf("%s×(comm %g, interference %g)", base.Name, comm, interference)
	if err := e.Validate(); err != nil {
		return Point{}, fmt.Errorf("sensitivity: %s at comm ×%g, interference ×%g: %w", base.Name, comm, interference, err)
	}
	return Point{Comm: comm, Interference: interference, Env: e}, nil
}

// Outcome is what an Evaluator measured at a point: mean JCT (any unit,
// the same for all) of each heuristic, in Part.Heuristics order, and of
// the learned scheduler.
type Outcome struct {
	Heuristics []float64
	Learned    float64
	// Floor is the mean of the cells' floors (sim.Floor: a mean JCT no
	// scheduler can beat on the point's jobs), in the same unit; 0 when
	// unknown.
	Floor float64
	// LeftOut, when not "", says why the learned scheduler was left out at
	// the point (a small workload left its model nothing to train on):
	// the point then has the heuristics' results and no learned result or
	// margin (NaN), and the table's notes give the reason.
	LeftOut string
}

// Evaluator trains the part's learned scheduler at a point and evaluates
// it and the heuristics there. It must depend only on its arguments (its
// random streams keyed by part and Point.Key), not on which goroutine runs
// it or when.
type Evaluator func(ctx context.Context, part Part, pt Point) (Outcome, error)

// Cell is one evaluated point.
type Cell struct {
	Point
	Outcome
	// Best indexes the best (lowest mean JCT) heuristic; the first on a
	// tie.
	Best int
	// Margin is (best heuristic − learned)/best heuristic.
	Margin float64
	// Headroom is (best heuristic − floor)/floor, Share the learned
	// scheduler's share of it, (best − learned)/(best − floor): NaN
	// without a floor or where the best heuristic is at it.
	Headroom, Share float64
}

// PartResult is one part's map: Cells[i][j] at Grid.Comm[i],
// Grid.Interference[j].
type PartResult struct {
	Part  Part
	Cells [][]Cell
}

// Result is every part's map.
type Result struct {
	Grid  Grid
	Parts []PartResult
	// Seed is the run seed the evaluator drew from, for the notes.
	Seed uint64
}

// Margin is the relative mean-JCT margin of learned over the best
// heuristic: positive when learned is faster. A best heuristic of 0 (no
// job) has no margin: NaN.
func Margin(best, learned float64) float64 {
	if best == 0 {
		return math.NaN()
	}
	return (best - learned) / best
}

// Headroom is how far best sits above floor, (best − floor)/floor, and
// learned's share of it, (best − learned)/(best − floor): 1 at the floor,
// 0 level with the best heuristic. NaN where floor is not positive (no
// floor known) or, for the share, where best is at the floor.
func Headroom(best, floor, learned float64) (headroom, share float64) {
	headroom, share = math.NaN(), math.NaN()
	if floor > 0 {
		headroom = (best - floor) / floor
	}
	if floor > 0 && best > floor {
		share = (best - learned) / (best - floor)
	}
	return headroom, share
}

// Workers bounds how many points Run evaluates at once.
type Workers struct {
	// Max is the most points at once (≤ 0: one).
	Max int
	// Borrow, if not nil, must lend a worker for every point that would
	// run beside another: ok false makes Run wait for a running point to
	// end before it asks again, and a lent worker is given back (release)
	// when its point ends. The first point at a time needs none (it runs
	// on the caller's worker). Nil lends always: Max points at once.
	//
	// A point trains a model, and its memory is that training's (a DAS
	// training on Small holds a 250 MiB autodiff tape at its peak), so
	// the pipeline lends only a run worker that no stage is using
	// (pipeline.BorrowWorker): the run then never trains more models at
	// once than it has workers.
	Borrow func() (release func(), ok bool)
}

// Run evaluates every point of every part, at most w allows at once.
// Every evaluation writes only its own cell, so the result does not
// depend on w; the first error cancels the rest and names the point.
// done, if not nil, is called after each point (from any goroutine).
func Run(ctx context.Context, parts []Part, g Grid, seed uint64, w Workers, eval Evaluator, done func()) (*Result, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	for _, part := range parts {
		if len(part.Heuristics) == 0 {
			return nil, fmt.Errorf("sensitivity: part %s: no heuristics", part.Name)
		}
	}
	res := &Result{Grid: g, Seed: seed, Parts: make([]PartResult, len(parts))}
	limit := max(w.Max, 1)
	// ended receives once per point that ended; never more than limit
	// are running, so sends do not block.
	ended := make(chan struct{}, limit)
	running := 0
	// failed stops the loop from starting points once one has failed (the
	// pool cancels the running ones).
	var failed atomic.Bool
	// The pool has no bound of its own: the loop below starts a point only
	// when w allows one more.
	p := pool.New().WithContext(ctx).WithCancelOnError().WithFirstError()
points:
	for pi, part := range parts {
		cells := make([][]Cell, len(g.Comm))
		for i, cm := range g.Comm {
			cells[i] = make([]Cell, len(g.Interference))
			for j, im := range g.Interference {
				pt, err := PointAt(part.Base, cm, im)
				if err != nil {
					// The points already started are abandoned: wait for
					// them (their error, if any, is less telling than
					// this one).
					_ = p.Wait()
					return nil, fmt.Errorf("part %s: %w", part.Name, err)
				}
				if failed.Load() || ctx.Err() != nil {
					break points
				}
				var release func()
				for {
					if running == 0 {
						break
					}
					if running < limit {
						if w.Borrow == nil {
							break
						}
						var ok bool
						if release, ok = w.Borrow(); ok {
							break
						}
					}
					<-ended
					running--
				}
				running++
				p.Go(func(ctx context.Context) error {
					defer func() {
						if release != nil {
							release()
						}
						ended <- struct{}{}
					}()
					out, err := eval(ctx, part, pt)
					if err == nil && len(out.Heuristics) != len(part.Heuristics) {
						err = fmt.Errorf("%d heuristic results for %d heuristics", len(out.Heuristics), len(part.Heuristics))
					}
					if err != nil {
						failed.Store(true)
						return fmt.Errorf("sensitivity: part %s, point %s: %w", part.Name, pt.Key(), err)
					}
					if out.LeftOut != "" {
						out.Learned = math.NaN()
					}
					c := Cell{Point: pt, Outcome: out}
					for k, v := range out.Heuristics {
						if v < out.Heuristics[c.Best] {
							c.Best = k
						}
					}
					c.Margin = Margin(out.Heuristics[c.Best], out.Learned)
					c.Headroom, c.Share = Headroom(out.Heuristics[c.Best], out.Floor, out.Learned)
					cells[i][j] = c
					if done != nil {
						done()
					}
					return nil
				})
			}
		}
		res.Parts[pi] = PartResult{Part: part, Cells: cells}
	}
	if err := p.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return res, nil
}
