package schedulers

import (
	"github.com/schedlab/schedlab/sim"
)

// LeastLoad puts an instance on the fitting server with the least
// normalised load, the mean of its used GPU, CPU and memory shares (the MARL
// paper's Load Balancing baseline).
//
// It finds that server in a tree over the servers (loadTree) rather than
// by scanning them all per instance, which on a k = 20 fat-tree was most
// of a Load-Balancing decision; the tree gives the same server as the
// scan. It follows the ledger through Booked and Unbooked, so the ledger
// given to Pick must change only by the Takes and Gives that those calls
// report (as Greedy's does); a Pick with another ledger than the
// decision's first scans the servers instead.
type LeastLoad struct {
	inv  capInverse
	tree loadTree
	l    *sim.Ledger // the decision's ledger, set by its first Pick
	// Per demand picked in this decision (the first maxFitTrees of
	// them), the answer kept up to date (fitTree): a decision's jobs
	// mostly request a few instance shapes, and a search per pick
	// visited some 230 nodes of a k = 20 fat-tree's tree.
	fit  []*fitTree
	nfit int
}

// maxFitTrees bounds the fit trees of a decision: each booking updates
// every one of them.
const maxFitTrees = 4

// Begin implements Placer.
func (p *LeastLoad) Begin(st *sim.State) {
	p.inv.update(st.Cluster)
	p.tree.build(st.Free, &p.inv)
	p.l = nil
	p.nfit = 0
}

// Booked implements Placer.
func (p *LeastLoad) Booked(_ *sim.JobState, _, s int) {
	if p.l != nil {
		p.changed(s)
	}
}

// Unbooked implements Placer.
func (p *LeastLoad) Unbooked(_ *sim.JobState, _, s int) {
	if p.l != nil {
		p.changed(s)
	}
}

// changed follows a change of server s's free resources in the
// decision's ledger.
func (p *LeastLoad) changed(s int) {
	p.tree.set(s, p.l.Free[s], &p.inv)
	for _, f := range p.fit[:p.nfit] {
		f.set(s, p.l, &p.tree)
	}
}

// Pick implements Placer.
func (p *LeastLoad) Pick(_ *sim.State, l *sim.Ledger, j *sim.JobState, i int) int {
	if p.l == nil && len(l.Free) == p.tree.servers {
		p.l = l
	}
	d := j.Instances[i].Demand
	if l != p.l {
		return bestServer(l, d, func(s int) float64 { return p.inv.load(s, l.Free[s]) })
	}
	for _, f := range p.fit[:p.nfit] {
		if f.d == d {
			return f.best()
		}
	}
	if p.nfit < maxFitTrees {
		if p.nfit == len(p.fit) {
			p.fit = append(p.fit, &fitTree{})
		}
		f := p.fit[p.nfit]
		p.nfit++
		f.build(d, l, &p.tree)
		return f.best()
	}
	return p.tree.best(d, l)
}
