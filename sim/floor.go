package sim

import (
	"container/heap"
	"math"
	"slices"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/internal/jobheap"
)

// Floor is a lower bound on the mean JCT that any scheduler, the learned
// and the clairvoyant ones included, can reach on a set of jobs in this
// engine: the floor of an evaluation cell (DESIGN.md §4, "Floor and
// headroom"). It is the largest of several relaxations, each a bound on
// the sum of the jobs' JCTs:
//
//   - Standalone: every job starts at the first decision point that can
//     see it (its arrival under event triggers; the first interval
//     boundary at or after its arrival under interval triggers, where the
//     engine decides only on the boundaries) and runs at its standalone
//     speed, never slower: the engine's rate is at most 1 (slowdowns are
//     clamped at 0, communication costs time), and waiting, preemption or
//     a restart only add time.
//   - Capacity: for each resource (GPUs, cores, memory) the cluster is one
//     machine of unit speed, and job j one piece of work p_j released at
//     its first decision point: its request over the capacity, times its
//     standalone duration d_j. Any schedule of the cluster is a schedule
//     of that machine (capacity is booked by requests, and a job holds its
//     request for at least d_j), so two single-machine bounds hold:
//     preemptive shortest-remaining-work-first, which minimises the sum of
//     completion times on one machine (Schrage); and the mean-busy-time
//     bound: a job that holds its request for d_j of time ending at its
//     completion C_j has its work's mean time M_j ≤ C_j − d_j/2, so
//     Σ C_j ≥ min Σ M_j + Σ d_j/2, and the least Σ M_j on one machine is
//     that of preemptive shortest-work-first by p_j (Goemans' LP
//     schedule). The second charges each job its standalone duration, not
//     its share p_j of the pooled capacity: it binds when jobs queue.
//   - Packing: the same two bounds with each instance's request counted
//     through a dual-feasible function of the servers' capacities
//     (Fekete and Schepers' u⁽ᵏ⁾, k = 1 … 4), which charges an instance
//     the share of a server it keeps from others: two 6-core workers and
//     no third fit a 16-core server, so each counts as half of one.
//     Whatever fits on one server has weights summing to at most one, so
//     the servers are a machine of capacity one per server.
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
	// AreaS is the largest of the capacity and packing bounds, and
	// Binding names what MeanJCTS is: "standalone", or the resource of
	// AreaS ("gpu", "cpu", "mem").
	AreaS   float64
	Binding string
	// Bound names the relaxation that gave MeanJCTS: BoundStandalone,
	// BoundCapacity (pooled capacity, shortest remaining work first),
	// BoundMeanBusy (pooled capacity, mean busy time) or BoundPacking
	// (either single-machine bound over the dual-feasible weights). On a
	// tie the first in that order names it.
	Bound string
}

// The relaxations of Floor.Bound.
const (
	BoundStandalone = "standalone"
	BoundCapacity   = "capacity"
	BoundMeanBusy   = "mean-busy"
	BoundPacking    = "packing"
)

// Name is the relaxation that binds and, for the area bounds, its
// resource: "standalone", or "capacity/gpu", "mean-busy/cpu",
// "packing/gpu" and so on; the floor_bound column of the metrics.
func (f Floor) Name() string {
	if f.Bound == BoundStandalone {
		return f.Bound
	}
	return f.Bound + "/" + f.Binding
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

// packingKs are the k of the dual-feasible functions u⁽ᵏ⁾ the packing
// bound tries (k = 1 counts the instances that take more than half a
// server; larger k, smaller ones).
var packingKs = [...]int{1, 2, 3, 4}

func (s *Sim) floorOf(jobs []*JobState) Floor {
	f := Floor{Jobs: len(jobs), Binding: "standalone", Bound: BoundStandalone}
	if len(jobs) == 0 {
		return f
	}
	n := float64(len(jobs))
	rel := make([]float64, len(jobs))
	var submits, halfDur float64
	for i, js := range jobs {
		rel[i] = s.firstDecisionAt(js.SubmitS)
		submits += js.SubmitS
		halfDur += js.DurationS / 2
		f.StandaloneS += rel[i] + js.DurationS - js.SubmitS
	}
	f.StandaloneS /= n
	f.MeanJCTS = f.StandaloneS
	work := make([]float64, len(jobs))
	caps := make([]Resources, len(s.cluster.Servers))
	for i := range caps {
		caps[i] = s.cluster.Capacity(i)
	}
	// bound takes the two single-machine bounds of work; pooled names
	// the capacity relaxations (pooled capacity, not packing).
	bound := func(resource string, pooled bool) {
		srpt, meanBusy := BoundPacking, BoundPacking
		if pooled {
			srpt, meanBusy = BoundCapacity, BoundMeanBusy
		}
		for _, c := range [...]struct {
			b    float64
			name string
		}{
			{(srptCompletions(rel, work) - submits) / n, srpt},
			{(minMeanBusy(rel, work) + halfDur - submits) / n, meanBusy},
		} {
			if c.b > f.AreaS {
				f.AreaS = c.b
			}
			if c.b > f.MeanJCTS {
				f.MeanJCTS, f.Binding, f.Bound = c.b, resource, c.name
			}
		}
	}
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
			work[i] = r.get(js.Total) * js.DurationS / capacity
		}
		bound(r.name, true)
		// Packing: the servers that have some of the resource, each a
		// capacity of one; an instance weighs its least u⁽ᵏ⁾ over them.
		var kinds []float64
		for _, c := range caps {
			if v := r.get(c); v > 0 && !slices.Contains(kinds, v) {
				kinds = append(kinds, v)
			}
		}
		servers := 0.0
		for _, c := range caps {
			if r.get(c) > 0 {
				servers++
			}
		}
		for _, k := range packingKs {
			for i, js := range jobs {
				var w float64
				for _, in := range js.Instances {
					w += packedWeight(r.get(in.Demand), kinds, k)
				}
				work[i] = w * js.DurationS / servers
			}
			bound(r.name, false)
		}
	}
	return f
}

// packedWeight is the weight of an instance requesting x of a resource
// in the packing bound: the least u⁽ᵏ⁾(x / c) over the servers' capacities
// c that can hold it (1 where none can: such a job is never accepted).
func packedWeight(x float64, kinds []float64, k int) float64 {
	if !(x > 0) {
		return 0
	}
	w := 1.0
	for _, c := range kinds {
		if x <= c {
			w = min(w, dff(x/c, k))
		}
	}
	return w
}

// dff is Fekete and Schepers' dual-feasible function u⁽ᵏ⁾ on y in [0, 1]:
// y where (k+1)·y is an integer, else ⌊(k+1)·y⌋ / k. Items whose sizes sum
// to at most 1 have images that sum to at most 1. (k+1)·y within 1e-9 of
// an integer counts as one, so that a request that fills a server exactly
// (6 cores of 12, say) is not rounded the wrong way.
func dff(y float64, k int) float64 {
	t := float64(k+1) * y
	if r := math.Round(t); math.Abs(t-r) <= 1e-9*max(1, t) {
		return y
	}
	return math.Floor(t) / float64(k)
}

// minMeanBusy is the least sum of mean busy times on one machine of unit
// speed, job i released at rel[i] and needing work[i]: that of the
// preemptive schedule that always runs the released job of least work
// (Goemans' LP schedule for weights 1). A job without work counts its
// release.
func minMeanBusy(rel, work []float64) float64 {
	var q jobheap.Heap // by whole work
	left := make([]float64, len(rel))
	moment := make([]float64, len(rel)) // ∫ t over the job's processing
	var sum float64
	oneMachine(rel, func() bool { return q.Len() > 0 }, func(j int) {
		if !(work[j] > 0) {
			sum += rel[j]
			return
		}
		left[j] = work[j]
		heap.Push(&q, jobheap.Item{Key: work[j], Job: j})
	}, func(t, arrival float64) float64 {
		j := q[0].Job
		if end := t + left[j]; end <= arrival {
			moment[j] += left[j] * (t + end) / 2
			sum += moment[j] / work[j]
			heap.Pop(&q)
			return end
		}
		moment[j] += (arrival - t) * (t + arrival) / 2
		left[j] -= arrival - t
		return arrival
	})
	return sum
}

// oneMachine walks one machine of unit speed through the releases of jobs
// released at rel[i], in order of release (ties by index), for a policy
// that keeps its own queue: queued reports whether the queue holds a job,
// release(j) is called as job j is released, and, while the queue holds a
// job, run(t, arrival) runs the queue's first one from t until it ends or
// the next release arrives (+Inf when none is left) and returns the time
// it stopped. When the queue is empty the machine idles to the next
// release.
func oneMachine(rel []float64, queued func() bool, release func(j int), run func(t, arrival float64) float64) {
	order := byRelease(rel)
	var t float64
	next := 0
	for next < len(order) || queued() {
		if !queued() {
			t = max(t, rel[order[next]])
		}
		for next < len(order) && rel[order[next]] <= t {
			release(order[next])
			next++
		}
		if !queued() {
			continue
		}
		arrival := math.Inf(1)
		if next < len(order) {
			arrival = rel[order[next]]
		}
		t = run(t, arrival)
	}
}

// byRelease is the jobs' indices in order of release, ties by index.
func byRelease(rel []float64) []int {
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
	return order
}

// srptCompletions is the sum of completion times of preemptive
// shortest-remaining-processing-time on one machine of unit speed, job i
// released at rel[i] and needing work[i]: the least sum any schedule of
// one machine reaches.
func srptCompletions(rel, work []float64) float64 {
	var q jobheap.Heap // by remaining work
	var sum float64
	oneMachine(rel, func() bool { return q.Len() > 0 }, func(j int) {
		heap.Push(&q, jobheap.Item{Key: work[j], Job: j})
	}, func(t, arrival float64) float64 {
		if r := q[0].Key; t+r <= arrival {
			sum += t + r
			heap.Pop(&q)
			return t + r
		}
		q[0].Key -= arrival - t
		heap.Fix(&q, 0)
		return arrival
	})
	return sum
}
