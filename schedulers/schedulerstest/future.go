package schedulerstest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"slices"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
)

// decision is what a scheduler decided at one decision point.
type decision struct {
	now     float64
	pl      []sim.Placement
	preempt []int
}

// FutureDependence tells whether a scheduler's decisions depend on the
// future: the true durations of jobs that have not finished. It runs
// newSched (a fresh value per run, built alike) over jobs on c, then, for
// cut-offs at a third and two thirds of the run's decisions, permutes the
// durations of the jobs not finished at the cut-off's time (pending and
// future jobs freely; running jobs among themselves, each keeping more work
// than it has had time to do, so that none finishes earlier) and replays up
// to the cut-off. A scheduler that sees only what a real one could (the
// requirement lists, elapsed times, finished jobs) decides the same up to
// the cut-off in both runs, since the history it has seen is the same. The
// answer is "" for such a scheduler, else the first decision that changed.
// seed draws the permutations.
func FutureDependence(ctx context.Context, newSched func() (sim.Scheduler, error), c *sim.Cluster, jobs []datasets.Job, cfg sim.Config, seed uint64) (string, error) {
	base, res, err := record(ctx, newSched, c, jobs, cfg, -1)
	if err != nil {
		return "", err
	}
	if len(base) < 6 {
		return "", fmt.Errorf("schedulerstest: %d decisions: too few to cut", len(base))
	}
	r := rand.New(rand.NewPCG(seed, 46))
	for _, k := range []int{len(base) / 3, 2 * len(base) / 3} {
		// A preemptive policy's wake-ups can crowd the run's tail, where
		// too few jobs are left to permute: move the cut-off earlier.
		perm, moved := permuteFuture(jobs, res, base[k].now, r)
		for moved == 0 && k > 0 {
			k--
			perm, moved = permuteFuture(jobs, res, base[k].now, r)
		}
		if moved == 0 {
			return "", fmt.Errorf("schedulerstest: no job left unfinished at t=%g to permute", base[k].now)
		}
		got, _, err := record(ctx, newSched, c, perm, cfg, k)
		if err != nil {
			return "", err
		}
		for d := 0; d <= k; d++ {
			if d >= len(got) || got[d].now != base[d].now || !reflect.DeepEqual(got[d].pl, base[d].pl) || !slices.Equal(got[d].preempt, base[d].preempt) {
				return fmt.Sprintf("with %d unfinished jobs' durations permuted at t=%g, decision %d (t=%g) changed", moved, base[k].now, d, base[d].now), nil
			}
		}
	}
	return "", nil
}

// record runs a fresh scheduler and returns its decisions, stopping after
// decision last (all when last < 0), and the run's result.
func record(ctx context.Context, newSched func() (sim.Scheduler, error), c *sim.Cluster, jobs []datasets.Job, cfg sim.Config, last int) ([]decision, *sim.Result, error) {
	sched, err := newSched()
	if err != nil {
		return nil, nil, err
	}
	s, err := sim.New(c, jobs, cfg, nil)
	if err != nil {
		return nil, nil, err
	}
	var out []decision
	for last < 0 || len(out) <= last {
		st, err := s.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		// Preemptive policies decide through sim.DecisionOf; their
		// preemptions are part of what must not depend on the future.
		d, err := sim.DecisionOf(ctx, sched, st)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, decision{now: st.Now, pl: clonePlacements(d.Start), preempt: slices.Clone(d.Preempt)})
		if err := s.Do(d); err != nil {
			return nil, nil, err
		}
	}
	return out, s.Result(), nil
}

func clonePlacements(pl []sim.Placement) []sim.Placement {
	out := make([]sim.Placement, len(pl))
	for i, p := range pl {
		out[i] = sim.Placement{Job: p.Job, Slots: append([]sim.Slot(nil), p.Slots...)}
	}
	return out
}

// permuteFuture returns a copy of jobs in which the durations of the jobs
// not finished by t (in res) are permuted, and how many changed. A job that
// started before t moves only among such jobs, and only to a duration
// longer than t − start (it cannot have done more work than that: rates
// are at most standalone), so it is still running at t.
func permuteFuture(jobs []datasets.Job, res *sim.Result, t float64, r *rand.Rand) ([]datasets.Job, int) {
	out := append([]datasets.Job(nil), jobs...)
	var waiting, running []int
	startOf := map[int]float64{}
	for _, j := range res.Jobs {
		switch {
		case j.FinishS <= t:
		case j.StartS < t:
			running = append(running, j.Index)
			startOf[j.Index] = j.StartS
		default:
			waiting = append(waiting, j.Index)
		}
	}
	shuffle := func(idx []int, ok func(job int, d float64) bool) {
		for try := 0; try < 100; try++ {
			p := r.Perm(len(idx))
			valid := true
			for i, k := range p {
				if !ok(idx[i], jobs[idx[k]].DurationS) {
					valid = false
					break
				}
			}
			if valid {
				for i, k := range p {
					out[idx[i]].DurationS = jobs[idx[k]].DurationS
				}
				return
			}
		}
	}
	shuffle(waiting, func(int, float64) bool { return true })
	shuffle(running, func(job int, d float64) bool { return d > t-startOf[job]+1 })
	moved := 0
	for i := range out {
		if out[i].DurationS != jobs[i].DurationS {
			moved++
		}
	}
	return out, moved
}
