package schedulers

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/schedulers/schedulerstest"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
)

// TestEvalChanged: a neighbour evaluated from its parent's trace
// (evalChanged) has the order and, to the bit, the objectives that a
// decode from the start gives, over MOSA's moves (two jobs' keys swapped,
// a server's affinity redrawn) and a move that ties two servers' keys, on
// every decision of a PAI-like workload that outgrows 4 and 8 servers.
// Half of each population's keys take four values, so that ties (broken
// by index) are common; neighbours chain, accepted at random.
func TestEvalChanged(t *testing.T) {
	for _, servers := range []int{4, 8} {
		c := simtest.Flat(t, servers, "pai-v100")
		chk := &evalChecker{t: t, rng: rand.New(rand.NewPCG(uint64(servers), 4))}
		jobs := schedulerstest.PAILike(120, 0.02, 3)
		if _, err := sim.Run(context.Background(), c, jobs, chk, sim.DefaultConfig(), nil); err != nil {
			t.Fatal(err)
		}
		if chk.moves < 1000 {
			t.Fatalf("%d servers: %d moves: too few to check", servers, chk.moves)
		}
	}
}

// evalChecker is a scheduler that checks evalChanged at each decision and
// applies what its small search found.
type evalChecker struct {
	t     *testing.T
	rng   *rand.Rand
	moves int
}

func (c *evalChecker) Name() string { return "eval-checker" }

func (c *evalChecker) Schedule(_ context.Context, st *sim.State) ([]sim.Placement, error) {
	if len(st.Pending) == 0 || !anyFits(st) {
		return nil, nil
	}
	p := newProblem(st, 32, 3, TrueDurations{})
	k := len(p.jobs)
	ms := &metaSearch{cfg: MetaConfig{Population: 6}, rng: c.rng}
	ar := archive{cap: 12}
	pop := ms.population(p, &ar, true)
	for i := 1; i < len(pop); i += 2 {
		for d := range pop[i].x {
			pop[i].x[d] = float64(c.rng.IntN(4)) / 3
		}
		p.eval(&pop[i])
	}
	nb := solution{x: make([]float64, p.dim()), ord: make([]int, p.dim()), tr: p.newTrace()}
	fresh := solution{x: make([]float64, p.dim())}
	for range 150 {
		par := &pop[c.rng.IntN(len(pop))]
		copy(nb.x, par.x)
		copy(nb.ord, par.ord)
		var i, j int
		switch c.rng.IntN(3) {
		case 0:
			i, j = c.rng.IntN(k), c.rng.IntN(k)
			nb.x[i], nb.x[j] = nb.x[j], nb.x[i]
		case 1:
			i = k + c.rng.IntN(p.m)
			j = i
			nb.x[i] = c.rng.Float64()
		case 2:
			i = k + c.rng.IntN(p.m)
			j = i
			nb.x[i] = nb.x[k+c.rng.IntN(p.m)]
		}
		p.evalChanged(&nb, par, i, j)
		copy(fresh.x, nb.x)
		p.eval(&fresh)
		if nb.f != fresh.f || nb.cost != fresh.cost || !slices.Equal(nb.ord, p.ord) {
			c.t.Fatalf("t=%v, move of keys %d and %d: evalChanged gives %v (order %v), a decode from the start %v (order %v)",
				st.Now, i, j, nb.f, nb.ord, fresh.f, p.ord)
		}
		c.moves++
		if c.rng.IntN(2) == 0 {
			*par, nb = nb, *par
			ar.add(*par)
		}
	}
	return p.placements(&ar), nil
}

// TestFitsNowhere: a demand that fitsNowhere covers fits on no server of
// the ledger, through Takes of what fits first and Gives of what was
// taken (which fitsNowhere.given hears of), with fractional demands whose
// sums round. Demands come from a few sizes, so that one is often at
// least another that fit nowhere.
func TestFitsNowhere(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	sizes := []sim.Resources{{GPU: 0.25, CPU: 1, MemGiB: 2}, {GPU: 1, CPU: 0.1, MemGiB: 1}, {GPU: 1, CPU: 4, MemGiB: 1.0 / 3}, {GPU: 2, CPU: 4, MemGiB: 8}, {GPU: 0.1, CPU: 0.3, MemGiB: 0.7}}
	covered := 0
	for trial := range 200 {
		l := sim.Ledger{Free: make([]sim.Resources, 2+trial%5)}
		for s := range l.Free {
			l.Free[s] = sim.Resources{GPU: 8, CPU: 16, MemGiB: 64}
		}
		var none fitsNowhere
		type took struct {
			s int
			r sim.Resources
		}
		var taken []took
		for range 300 {
			if len(taken) > 0 && rng.IntN(6) == 0 {
				n := rng.IntN(len(taken))
				g := taken[n]
				taken = slices.Delete(taken, n, n+1)
				l.Give(g.s, g.r)
				none.given(l.Free[g.s])
				continue
			}
			r := sizes[rng.IntN(len(sizes))]
			r.CPU *= float64(1 + rng.IntN(3))
			fits := slices.IndexFunc(l.Free, r.Fits)
			if none.covers(r) {
				covered++
				if fits >= 0 {
					t.Fatalf("trial %d: %v is covered by %v but fits on server %d (%v)", trial, r, none.d[:none.n], fits, l.Free[fits])
				}
				continue
			}
			if fits < 0 {
				none.add(r)
				continue
			}
			l.Take(fits, r)
			taken = append(taken, took{fits, r})
		}
	}
	if covered < 1000 {
		t.Fatalf("%d demands covered: too few to check", covered)
	}
}
