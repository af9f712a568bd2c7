package sim

import (
	"container/heap"
	"math"
	"slices"

	"github.com/schedlab/schedlab/datasets"
)

// Floor is a lower bound on the mean JCT that any scheduler, the learned
// and the clairvoyant ones included, can reach on a set of jobs in this
// engine: the floor of an evaluation cell (DESIGN.md §4, "Floor and
// headroom"). It is the largest of two relaxations, each a bound on the
// sum of the jobs' JCTs:
//
//   - Standalone: every job starts at the first decision point that can
//     see it (its arrival under event triggers; the first interval
//     boundary at or after its arrival under interval triggers, where the
//     engine decides only on the boundaries) and runs at its standalone
//     speed, never slower: the engine's rate is at most 1 (slowdowns are
//     clamped at 0, communication costs time), and waiting, preemption or
//     a restart only add time.
//   - Area: for each resource (GPUs, cores, memory) the cluster is one
//     machine that processes, at most at the cluster's capacity, each
//     job's area (its request × its standalone duration), released at the
//     same decision point; preemptive shortest-remaining-area-first
//     minimises the sum of completion times on that machine (Schrage), and
//     any schedule of the cluster is a schedule of that machine, since
//     capacity is booked by requests and a job holds its request for at
//     least its standalone duration. This bound is the one that binds
//     when the cluster is loaded: jobs must queue.
//
// The bound does not read a scheduler's decisions: every scheduler of a
// cell's column (same cluster, workload and seed) has the same floor.
type Floor struct {
	// Jobs is the number of jobs bounded.
	Jobs int
	// MeanJCTS is the floor: the largest of StandaloneS and AreaS.
	MeanJCTS float64
	// StandaloneS is the mean JCT with every job at its standalone speed
	// from its first decision point.
	StandaloneS float64
	// AreaS is the largest of the per-resource area bounds, and Binding
	// names what MeanJCTS is: "standalone", or the resource of AreaS
	// ("gpu", "cpu", "mem").
	AreaS   float64
	Binding string
}

// FloorOf is the floor of jobs on cluster c under cfg: the jobs New
// accepts (pruned ones are not run, so not bounded). Errors are New's.
func FloorOf(c *Cluster, jobs []datasets.Job, cfg Config) (Floor, error) {
	s, err := New(c, jobs, cfg, nil)
	if err != nil {
		return Floor{}, err
	}
	accepted := make([]*JobState, 0, len(s.order))
	for _, i := range s.order {
		accepted = append(accepted, &s.jobs[i])
	}
	return s.floorOf(accepted), nil
}

// floor is the floor of the jobs the run finished so far (all of the
// accepted ones once Next returned io.EOF): the set Result's metrics
// cover.
func (s *Sim) floor() Floor {
	var done []*JobState
	for i := range s.jobs {
		if s.jobs[i].Status == StatusDone {
			done = append(done, &s.jobs[i])
		}
	}
	return s.floorOf(done)
}

// firstDecisionAt is the first time the engine can start a job submitted at
// submitS: the next decision point (Next's interval triggers fall on
// multiples of IntervalS).
func (s *Sim) firstDecisionAt(submitS float64) float64 {
	if s.cfg.Trigger == TriggerInterval {
		return math.Ceil(submitS/s.cfg.IntervalS) * s.cfg.IntervalS
	}
	return submitS
}

func (s *Sim) floorOf(jobs []*JobState) Floor {
	f := Floor{Jobs: len(jobs), Binding: "standalone"}
	if len(jobs) == 0 {
		return f
	}
	n := float64(len(jobs))
	rel := make([]float64, len(jobs))
	var submits float64
	for i, js := range jobs {
		rel[i] = s.firstDecisionAt(js.SubmitS)
		submits += js.SubmitS
		f.StandaloneS += rel[i] + js.DurationS - js.SubmitS
	}
	f.StandaloneS /= n
	f.MeanJCTS = f.StandaloneS
	area := make([]float64, len(jobs))
	for _, r := range [...]struct {
		name string
		get  func(Resources) float64
	}{
		{"gpu", func(x Resources) float64 { return x.GPU }},
		{"cpu", func(x Resources) float64 { return x.CPU }},
		{"mem", func(x Resources) float64 { return x.MemGiB }},
	} {
		capacity := r.get(s.total)
		if !(capacity > 0) {
			continue
		}
		for i, js := range jobs {
			area[i] = r.get(js.Total) * js.DurationS / capacity
		}
		b := (srptCompletions(rel, area) - submits) / n
		if b > f.AreaS {
			f.AreaS = b
		}
		if b > f.MeanJCTS {
			f.MeanJCTS, f.Binding = b, r.name
		}
	}
	return f
}

// srptCompletions is the sum of completion times of preemptive
// shortest-remaining-processing-time on one machine of unit speed, job i
// released at rel[i] and needing work[i]: the least sum any schedule of
// one machine reaches.
func srptCompletions(rel, work []float64) float64 {
	order := make([]int, len(rel))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case rel[a] < rel[b]:
			return -1
		case rel[a] > rel[b]:
			return 1
		}
		return 0
	})
	var q remaining
	var sum, t float64
	next := 0
	for next < len(order) || q.Len() > 0 {
		if q.Len() == 0 {
			t = max(t, rel[order[next]])
		}
		for next < len(order) && rel[order[next]] <= t {
			heap.Push(&q, work[order[next]])
			next++
		}
		arrival := math.Inf(1)
		if next < len(order) {
			arrival = rel[order[next]]
		}
		if r := q[0]; t+r <= arrival {
			t += r
			sum += t
			heap.Pop(&q)
		} else {
			q[0] -= arrival - t
			t = arrival
			heap.Fix(&q, 0)
		}
	}
	return sum
}

// remaining is a min-heap of remaining work.
type remaining []float64

func (h remaining) Len() int           { return len(h) }
func (h remaining) Less(i, j int) bool { return h[i] < h[j] }
func (h remaining) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *remaining) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *remaining) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
