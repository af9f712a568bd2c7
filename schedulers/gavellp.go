package schedulers

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// The linear programs of Gavel's policies (Narayanan et al.,
// "Heterogeneity-Aware Cluster Scheduling Policies for Deep Learning
// Workloads", OSDI 2020, §4), solved with gonum's simplex. Gavel writes a
// policy as an optimisation over the allocation X: X[m][k] is the fraction
// of wall time job m spends on GPU type k, with
//
//	Σ_k X[m][k] ≤ 1              (a job runs on one type at a time)
//	Σ_m s_m · X[m][k] ≤ N_k      (type k has N_k GPUs; job m asks s_m)
//	X ≥ 0
//
// and a job's effective throughput is throughput(m, X) = Σ_k T[m][k] X[m][k],
// T[m][k] its throughput on type k (Gavel's measured table; here in
// standalone seconds of work per second, 1 on the reference type).
//
// Two exact reductions keep the programs small. Types whose T columns are
// equal for every job are pooled into one (a fractional allocation of the
// pool splits over its types in proportion to their GPUs, meeting every
// constraint), so a cluster of one GPU type is a program over one type.
// For max-min fairness, jobs with the same request, throughputs and weight
// form one class with one allocation (the program is symmetric in them and
// convex, so averaging any optimum over the class is an optimum), and on
// one (pooled) type its program is solved by water-filling
// (maxMinOneType), not the simplex.

// gavelJob is what the programs know of one job.
type gavelJob struct {
	gpus float64   // s_m
	thr  []float64 // T[m][k], per type
	// Finish-time fairness only (ftfAllocation): the time since the job
	// arrived, its remaining work (standalone seconds, estimated) and the
	// time it would have taken so far on its isolated share (Gavel's
	// cumulative_isolated_time).
	sinceS, remainingS, isolatedS float64
}

// lpMax solves max cᵀx subject to G x ≤ h, x ≥ 0 for h ≥ 0 (so that x = 0
// is feasible and the slacks are a first basis), with gonum's simplex.
func lpMax(c []float64, g [][]float64, h []float64) ([]float64, error) {
	rows, n := len(g), len(c)
	a := mat.NewDense(rows, n+rows, nil)
	cost := make([]float64, n+rows)
	for j, v := range c {
		cost[j] = -v
	}
	basic := make([]int, rows)
	for i, row := range g {
		for j, v := range row {
			a.Set(i, j, v)
		}
		a.Set(i, n+i, 1)
		basic[i] = n + i
		if !(h[i] >= 0) {
			panic("schedulers: lpMax: h must be >= 0")
		}
	}
	_, x, err := lp.Simplex(cost, a, slices.Clone(h), 1e-10, basic)
	if err != nil {
		return nil, err
	}
	return x[:n], nil
}

// poolTypes groups the types whose throughput columns are equal for every
// job: pool[k] is type k's group, in order of first appearance.
func poolTypes(jobs []gavelJob, types int) (pool []int, groups int) {
	pool = make([]int, types)
	var firsts []int
	for k := range types {
		pool[k] = -1
		for g, f := range firsts {
			same := true
			for _, j := range jobs {
				if j.thr[k] != j.thr[f] {
					same = false
					break
				}
			}
			if same {
				pool[k] = g
				break
			}
		}
		if pool[k] < 0 {
			pool[k] = len(firsts)
			firsts = append(firsts, k)
		}
	}
	return pool, len(firsts)
}

// pooled is the problem over the pooled types: each job's throughput on a
// group (its value on any type of it) and each group's GPUs.
func pooled(jobs []gavelJob, gpus []float64, pool []int, groups int) ([]gavelJob, []float64) {
	out := make([]gavelJob, len(jobs))
	n := make([]float64, groups)
	for k, g := range pool {
		n[g] += gpus[k]
	}
	for m, j := range jobs {
		out[m] = j
		out[m].thr = make([]float64, groups)
		for k, g := range pool {
			out[m].thr[g] = j.thr[k]
		}
	}
	return out, n
}

// unpool splits a job's allocation on each group over the group's types
// in proportion to their GPUs.
func unpool(xg []float64, gpus []float64, pool []int) []float64 {
	tot := make([]float64, len(xg))
	for k, g := range pool {
		tot[g] += gpus[k]
	}
	x := make([]float64, len(pool))
	for k, g := range pool {
		if tot[g] > 0 {
			x[k] = xg[g] * gpus[k] / tot[g]
		}
	}
	return x
}

// proportionalShare is Gavel's proportional allocation (policies/
// proportional.py): the cluster split equally among the m jobs, type by
// type, scaled so that no job's row exceeds 1. It is the same row for
// every job.
func proportionalShare(gpus []float64, m int) []float64 {
	x := make([]float64, len(gpus))
	sum := 0.0
	for k, n := range gpus {
		x[k] = n / float64(m)
		sum += x[k]
	}
	if sum > 1 {
		for k := range x {
			x[k] /= sum
		}
	}
	return x
}

// maxMinAllocation is Gavel's max-min fairness, its LAS policy with
// throughputs (policies/max_min_fairness.py, MaxMinFairnessPolicyWithPerf;
// the paper's §4.1 "Max-min fairness"):
//
//	maximise min_m  (1/w_m) · throughput(m, X) · s_m / throughput(m, X^equal)
//
// over the constraints above, where X^equal is the proportional share
// (proportionalShare) and w_m the job's weight (1 here: the traces carry
// no priorities). The factor s_m gives a 1-GPU job s times the time of an
// s-GPU job of equal throughput, as Gavel does. It returns X and the
// program's optimum (the smallest normalised throughput). On one pooled
// type X is water-filling's (maxMinOneType); on several, the simplex's.
func maxMinAllocation(jobs []gavelJob, gpus []float64) ([][]float64, float64, error) {
	if len(jobs) == 0 {
		return nil, 0, nil
	}
	pool, groups := poolTypes(jobs, len(gpus))
	pj, pn := pooled(jobs, gpus, pool, groups)
	equal := proportionalShare(pn, len(pj))
	// Classes of identical jobs.
	classOf := make([]int, len(pj))
	var reps []int
	var count []float64
	for m, j := range pj {
		classOf[m] = -1
		for c, r := range reps {
			if pj[r].gpus == j.gpus && slices.Equal(pj[r].thr, j.thr) {
				classOf[m] = c
				count[c]++
				break
			}
		}
		if classOf[m] < 0 {
			classOf[m] = len(reps)
			reps = append(reps, m)
			count = append(count, 1)
		}
	}
	K := groups
	var x []float64 // x[c][k] at c*K+k
	var t float64
	ok := false
	if K == 1 {
		x, t, ok = maxMinOneType(pj, reps, count, equal[0], pn[0])
	}
	if !ok {
		var err error
		if x, t, err = maxMinSimplex(pj, reps, count, equal, pn); err != nil {
			return nil, 0, err
		}
	}
	out := make([][]float64, len(jobs))
	for m := range jobs {
		ci := classOf[m]
		out[m] = unpool(clip01(x[ci*K:ci*K+K]), gpus, pool)
	}
	return out, t, nil
}

// maxMinSimplex is maxMinAllocation's program over the classes reps (of
// count jobs each) on the pooled types, solved by the simplex: X, class
// by class, and t.
func maxMinSimplex(pj []gavelJob, reps []int, count, equal, pn []float64) ([]float64, float64, error) {
	nc, K := len(reps), len(pn)
	// Variables: x[c][k] at c*K+k, then t; t ≤ throughput(c, X) · s_c /
	// throughput(c, X^equal) for each class.
	g, h := allocationRows(nc, pn, func(ci int) float64 { return count[ci] * pj[reps[ci]].gpus },
		func(ci int, row []float64) {
			j := pj[reps[ci]]
			base := 0.0
			for k := range K {
				base += j.thr[k] * equal[k]
			}
			row[len(row)-1] = 1
			for k := range K {
				if base > 0 {
					row[ci*K+k] = -j.thr[k] * j.gpus / base
				}
			}
		})
	nv := nc*K + 1
	c := make([]float64, nv)
	c[nv-1] = 1
	x, err := lpMax(c, g, h)
	if err != nil {
		return nil, 0, fmt.Errorf("max-min fairness program: %w", err)
	}
	return x[:nv-1], x[nv-1], nil
}

// maxMinOneType solves maxMinAllocation's program on one (pooled) type
// without the simplex, by water-filling. With a_c = T_c·s_c /
// throughput(c, X^equal) (class c's normalised throughput per unit of
// allocation) and w_c = count_c·s_c (its GPUs), the program is
//
//	max t  subject to  t ≤ a_c·x_c,  0 ≤ x_c ≤ 1,  Σ_c w_c·x_c ≤ N,
//
// whose optimum is t* = min(min_c a_c, N / Σ_c w_c/a_c): x_c ≥ t/a_c for
// every class, so t is bounded by each a_c (x_c ≤ 1) and by the capacity
// the smallest such x take. Water-filling raises a level τ, giving each
// class x_c = min(1, τ/a_c), until the capacity is used or every class
// has x_c = 1. That X is feasible and min_c a_c·x_c = min(min_c a_c, τ) =
// t*, so it is an optimum of the program. Where the capacity binds below
// min_c a_c the optimum X is unique (x_c = t*/a_c), and it is the
// simplex's; where it does not (fewer GPUs asked than the cluster has at
// t*), the program has many optima, the simplex returns one vertex of
// them, and water-filling gives the capacity left over to the classes in
// proportion to 1/a_c, as max-min fairness does at its next level. It
// reports false, leaving the program to the simplex, when some class has
// a_c ≤ 0 (a job of no GPUs or no throughput: then t* = 0).
func maxMinOneType(pj []gavelJob, reps []int, count []float64, equal, n float64) (x []float64, t float64, ok bool) {
	nc := len(reps)
	a, w := make([]float64, nc), make([]float64, nc)
	for ci, r := range reps {
		j := pj[r]
		base := j.thr[0] * equal
		if !(base > 0) {
			return nil, 0, false
		}
		a[ci] = j.thr[0] * j.gpus / base
		w[ci] = count[ci] * j.gpus
		if !(a[ci] > 0) || math.IsInf(a[ci], 0) {
			return nil, 0, false
		}
	}
	// Classes in the order they reach x = 1 as τ rises.
	order := make([]int, nc)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(p, q int) int { return cmp.Compare(a[p], a[q]) })
	// rest[i]: Σ w/a over order[i:], summed from the end so that each is
	// a sum, not a running difference.
	rest := make([]float64, nc+1)
	for i := nc - 1; i >= 0; i-- {
		c := order[i]
		rest[i] = rest[i+1] + w[c]/a[c]
	}
	level, used := math.Inf(1), 0.0
	for i, c := range order {
		// Classes order[:i] are at x = 1 and use used GPUs; the others at
		// τ/a_c use τ·rest[i].
		if tau := (n - used) / rest[i]; tau <= a[c] {
			level = max(tau, 0)
			break
		}
		used += w[c]
	}
	x = make([]float64, nc)
	t = math.Inf(1)
	for c := range nc {
		x[c] = min(1, level/a[c])
		t = min(t, a[c]*x[c])
	}
	return x, t, true
}

// allocationRows is G x ≤ h of both programs over n allocation rows
// (classes or jobs) of len(gpus) types, with variables x[i][k] at i·K+k
// and the program's own variable (t, λ) last: for each row i, the
// policy's row (objective fills it; its bound is 0), then Σ_k x[i][k] ≤ 1;
// then, per type k, Σ_i weight(i)·x[i][k] ≤ N_k.
func allocationRows(n int, gpus []float64, weight func(i int) float64, objective func(i int, row []float64)) (g [][]float64, h []float64) {
	K := len(gpus)
	nv := n*K + 1
	g, h = make([][]float64, 0, 2*n+K), make([]float64, 0, 2*n+K)
	for i := range n {
		row := make([]float64, nv)
		objective(i, row)
		g, h = append(g, row), append(h, 0)
		row = make([]float64, nv)
		for k := range K {
			row[i*K+k] = 1
		}
		g, h = append(g, row), append(h, 1)
	}
	for k := range K {
		row := make([]float64, nv)
		for i := range n {
			row[i*K+k] = weight(i)
		}
		g, h = append(g, row), append(h, gpus[k])
	}
	return g, h
}

func clip01(x []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = min(max(v, 0), 1)
	}
	return out
}

// isolatedShare is Gavel's isolated allocation of a job asking s GPUs
// among m jobs (policies/isolated.py): N_k/m GPUs of each type, as a time
// fraction of its s GPUs, scaled so that its row is at most 1.
func isolatedShare(gpus []float64, m int, s float64) []float64 {
	x := make([]float64, len(gpus))
	sum := 0.0
	for k, n := range gpus {
		x[k] = n / float64(m) / s
		sum += x[k]
	}
	if sum > 1 {
		for k := range x {
			x[k] /= sum
		}
	}
	return x
}

// errNoFTF: the finish-time fairness program found no allocation.
var errNoFTF = errors.New("finish-time fairness: no feasible allocation")

// ftfAllocation is finish-time fairness, Themis' metric (Mahajan et al.,
// "Themis: Fair and Efficient GPU Cluster Scheduling", NSDI 2020, §3: ρ =
// T_shared / T_independent) as Gavel defines its policy
// (policies/finish_time_fairness.py, FinishTimeFairnessPolicyWithPerf; the
// paper's §4.1 "Finish-time fairness"):
//
//	minimise max_m ρ_m(X),  ρ_m(X) = (since_m + R_m / throughput(m, X)) /
//	                                 (isolated_m + R_m / throughput(m, X^isolated))
//
// with R_m the remaining work, since_m the time since the job arrived and
// isolated_m the time its progress so far would have taken on its
// isolated share. ρ_m(X) ≤ ρ is linear in X for a fixed ρ:
// throughput(m, X) ≥ R_m / (ρ·D_m − since_m) with D_m the denominator. So
// the program is solved as linear programs: bisection on ρ, each step
// asking whether max λ subject to throughput(m, X) ≥ λ·need_m(ρ) and the
// constraints reaches 1 (on one pooled type that program is the check
// Σ s_m·need_m/T_m ≤ N with each need_m/T_m ≤ 1, which is what the
// simplex would find). It returns X at the smallest feasible ρ found
// (within a relative 1e-9) and that ρ.
func ftfAllocation(jobs []gavelJob, gpus []float64) ([][]float64, float64, error) {
	if len(jobs) == 0 {
		return nil, 0, nil
	}
	pool, groups := poolTypes(jobs, len(gpus))
	pj, pn := pooled(jobs, gpus, pool, groups)
	K := groups
	den := make([]float64, len(pj))
	lo := 0.0
	for m, j := range pj {
		iso := isolatedShare(pn, len(pj), j.gpus)
		thrIso := 0.0
		for k := range K {
			thrIso += j.thr[k] * iso[k]
		}
		if !(thrIso > 0) || !(j.remainingS > 0) {
			return nil, 0, fmt.Errorf("%w: job %d has no throughput or no remaining work", errNoFTF, m)
		}
		den[m] = j.isolatedS + j.remainingS/thrIso
		lo = max(lo, j.sinceS/den[m])
	}
	need := func(m int, rho float64) float64 {
		return pj[m].remainingS / (rho*den[m] - pj[m].sinceS)
	}
	// feasible reports whether ρ can be met and the allocation that meets
	// it (pooled types).
	feasible := func(rho float64) ([][]float64, bool) {
		x := make([][]float64, len(pj))
		if rho <= lo {
			return nil, false
		}
		if K == 1 {
			used := 0.0
			for m, j := range pj {
				if !(j.thr[0] > 0) {
					return nil, false
				}
				v := need(m, rho) / j.thr[0]
				if v > 1 {
					return nil, false
				}
				x[m] = []float64{v}
				used += j.gpus * v
			}
			return x, used <= pn[0]*(1+1e-12)
		}
		// max λ: λ·need_m − Σ_k T[m][k] x[m][k] ≤ 0; rows ≤ 1; types ≤ N_k.
		g, h := allocationRows(len(pj), pn, func(m int) float64 { return pj[m].gpus },
			func(m int, row []float64) {
				row[len(row)-1] = need(m, rho)
				for k := range K {
					row[m*K+k] = -pj[m].thr[k]
				}
			})
		nv := len(pj)*K + 1
		c := make([]float64, nv)
		c[nv-1] = 1
		sol, err := lpMax(c, g, h)
		if err != nil || sol[nv-1] < 1-1e-9 {
			return nil, false
		}
		for m := range pj {
			x[m] = clip01(sol[m*K : m*K+K])
		}
		return x, true
	}
	hi := max(2*lo, 1)
	best, ok := feasible(hi)
	for i := 0; !ok && i < 200; i++ {
		hi *= 2
		best, ok = feasible(hi)
	}
	if !ok {
		return nil, 0, errNoFTF
	}
	for range 200 {
		if hi-lo <= 1e-9*hi {
			break
		}
		mid := lo + (hi-lo)/2
		if x, ok := feasible(mid); ok {
			hi, best = mid, x
		} else {
			lo = mid
		}
	}
	out := make([][]float64, len(jobs))
	for m := range jobs {
		out[m] = unpool(best[m], gpus, pool)
	}
	if math.IsNaN(hi) {
		return nil, 0, errNoFTF
	}
	return out, hi, nil
}
