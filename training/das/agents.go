package das

import (
	"math/rand/v2"
	"slices"

	"github.com/schedlab/schedlab/training/nn"
	"github.com/schedlab/schedlab/training/rl"
)

// The two agents are rl.ActorCritic views of one Model: both read the
// shared representation Ŝ, so both back-propagate into the trunk. Each
// has its own Adam over the model's parameters: an optimiser's moments
// stay zero for parameters its agent's loss never reaches (the other
// agent's head), so it never moves them.

// orderAgent is the ordering agent: its action is the priority vector.
type orderAgent struct {
	m       *Model
	t       nn.Tape
	opt     *nn.Adam
	lp, ent *nn.Node
	err     error // the first numerical failure of a forward pass
}

func newAgentAdam(m *Model, lr, maxNorm float64) *nn.Adam {
	return nn.NewAdam(m.ps, nn.AdamConfig{LR: lr, MaxGradNorm: maxNorm})
}

func stepObs(steps []*rl.Step[*Obs]) []*Obs {
	obs := make([]*Obs, len(steps))
	for i, s := range steps {
		obs[i] = s.Obs
	}
	return obs
}

// Evaluate: log π^j(a^j) = Σ over real rows of log N(a_i; μ_i, σ_i);
// entropy is the mean over real rows.
func (a *orderAgent) Evaluate(steps []*rl.Step[*Obs], logp, entropy, _ []float64) {
	t := &a.t
	t.Reset()
	// The loss reads the real rows only (mask below): trunkReal leaves
	// the padding out of the attention.
	shat, _ := a.m.trunkReal(t, stepObs(steps))
	mu, sd := a.m.priority(t, shat)
	a.heads(t, steps, mu, sd, logp, entropy)
}

// heads records Evaluate's log-densities and entropies from the
// priorities' Gaussians mu, sd (B·N rows).
func (a *orderAgent) heads(t *nn.Tape, steps []*rl.Step[*Obs], mu, sd *nn.Node, logp, entropy []float64) {
	n := a.m.cfg.Jobs
	B := len(steps)
	act := make([]float64, B*n)
	mask := make([]float64, B*n)
	inv := make([]float64, B)
	for b, s := range steps {
		copy(act[b*n:], s.Action.Vec)
		for r := 0; r < s.Obs.Count; r++ {
			mask[b*n+r] = 1
		}
		if s.Obs.Count > 0 {
			inv[b] = 1 / float64(s.Obs.Count)
		}
	}
	mk := t.Const(B*n, 1, mask)
	lp := t.Mul(t.GaussianLogProb(t.Const(B*n, 1, act), mu, sd), mk)
	a.lp = t.Scale(t.SegmentMeans(lp, n), float64(n))
	ent := t.Mul(t.GaussianEntropy(sd), mk)
	a.ent = t.Mul(t.Scale(t.SegmentMeans(ent, n), float64(n)), t.Const(B, 1, inv))
	copy(logp, a.lp.Data)
	copy(entropy, a.ent.Data)
}

// logProbFrom is Evaluate's log π^j(a^j) of one step whose observation
// the policy has already run on (p, with these parameters): the real
// rows' Gaussians come from p. The padded rows, which Evaluate computes
// and masks (×0, giving ±0), are given μ = 0, σ = 1 here: a signed zero
// changes no non-zero sum, so the result is Evaluate's bit for bit
// unless it is 0, when Evaluate recomputes it (as for an observation
// without a real row).
func (a *orderAgent) logProbFrom(s *rl.Step[*Obs], p *targetPass) float64 {
	lp, ent := []float64{0}, []float64{0}
	steps := []*rl.Step[*Obs]{s}
	if o := s.Obs; o.Count > 0 {
		n := a.m.cfg.Jobs
		mu, sd := make([]float64, n), make([]float64, n)
		copy(mu, p.prio[:o.Count])
		copy(sd, p.sd)
		for r := o.Count; r < n; r++ {
			sd[r] = 1
		}
		t := &a.t
		t.Reset()
		a.heads(t, steps, t.Const(n, 1, mu), t.Const(n, 1, sd), lp, ent)
		if lp[0] != 0 {
			return lp[0]
		}
	}
	a.Evaluate(steps, lp, ent, nil)
	return lp[0]
}

func (a *orderAgent) Backward(dLogp, dEntropy, _ []float64) {
	a.err = backwardPair(&a.t, a.lp, a.ent, dLogp, dEntropy, a.err)
}

func (a *orderAgent) Step() { a.opt.Step() }

// Release drops the tape of the last update (rl.Releaser); the next
// Evaluate records on a fresh one.
func (a *orderAgent) Release() { a.t, a.lp, a.ent = nn.Tape{}, nil, nil }

// backwardPair back-propagates Σ dLogp·logp + Σ dEnt·entropy, unless the
// forward pass failed numerically (a GP kernel not positive definite):
// then it adds no gradient and returns the failure (or the earlier one,
// prev), for the trainer to report after the update.
func backwardPair(t *nn.Tape, lp, ent *nn.Node, dLogp, dEnt []float64, prev error) error {
	if prev != nil {
		return prev
	}
	if err := t.Err(); err != nil {
		return err
	}
	B := lp.Rows
	loss := t.Add(t.Sum(t.Mul(lp, t.Const(B, 1, dLogp))), t.Sum(t.Mul(ent, t.Const(B, 1, dEnt))))
	t.Backward(loss)
	return nil
}

// placeAgent is the placement agent: its action is the affinity rows of
// the jobs the decision placed (Obs.Placed), concatenated.
type placeAgent struct {
	m       *Model
	t       nn.Tape
	opt     *nn.Adam
	lp, ent *nn.Node
	err     error // the first numerical failure of a forward pass
}

// Evaluate: log π^c = Σ over placed rows and machines of log N(A_ik; μ_ik,
// Σ_i); entropy is the mean over those dimensions (0 for a decision that
// placed nothing).
func (a *placeAgent) Evaluate(steps []*rl.Step[*Obs], logp, entropy, _ []float64) {
	a.evaluate(steps, logp, entropy, placedBatch(steps))
}

// evaluate is Evaluate with the trunk run on the observations batch says
// (observation b at batch[b], −1: left out; placedBatch).
func (a *placeAgent) evaluate(steps []*rl.Step[*Obs], logp, entropy []float64, batch []int) {
	t := &a.t
	t.Reset()
	// Ŝ at the rows of the placed jobs only, of the observations batch
	// keeps: the loss reads no other.
	obs, rows, at := placedRows(steps, batch, a.m.cfg.Jobs)
	var shat, sc *nn.Node
	if len(rows) > 0 {
		shat, sc = a.m.trunkAt(t, obs, rows)
	}
	a.heads(t, steps, batch, at, shat, sc, logp, entropy)
}

// placedRows lists the observations batch keeps (placedBatch), their
// placed jobs' rows in the trunk's batch (b·N + r for row r of
// observation b; ascending within each observation) and, at at[b], the
// places of observation b's placed rows in that list, in Placed order.
func placedRows(steps []*rl.Step[*Obs], batch []int, n int) (obs []*Obs, rows []int, at [][]int) {
	at = make([][]int, len(steps))
	for b, s := range steps {
		if batch[b] < 0 {
			continue
		}
		obs = append(obs, s.Obs)
		first, base := len(rows), batch[b]*n
		for _, r := range s.Obs.Placed {
			rows = append(rows, base+r)
		}
		slices.Sort(rows[first:])
		for _, r := range s.Obs.Placed {
			i, _ := slices.BinarySearch(rows[first:], base+r)
			at[b] = append(at[b], first+i)
		}
	}
	return obs, rows, at
}

// evaluateFrom is evaluate of one step whose observation the policy has
// already run on (p, with these parameters): Ŝ at the placed rows and
// S^c come from p instead of the trunk. Those are trunkAt's bit for bit
// (trunkAt), and the rest of the pass is evaluate's.
func (a *placeAgent) evaluateFrom(s *rl.Step[*Obs], p *targetPass) float64 {
	lp, ent := []float64{0}, []float64{0}
	steps, batch := []*rl.Step[*Obs]{s}, []int{0}
	t := &a.t
	t.Reset()
	_, rows, at := placedRows(steps, batch, a.m.cfg.Jobs)
	var shat, sc *nn.Node
	if len(rows) > 0 {
		e := a.m.cfg.Hidden
		shat, sc = t.Const(len(rows), e, p.shat), t.Const(s.Obs.M, e, p.sc)
	}
	a.heads(t, steps, batch, at, shat, sc, lp, ent)
	return lp[0]
}

// heads records evaluate's log-densities and entropies from Ŝ at the
// placed rows (shat, at) and S^c (sc, M rows per observation batch keeps).
func (a *placeAgent) heads(t *nn.Tape, steps []*rl.Step[*Obs], batch []int, at [][]int, shat, sc *nn.Node, logp, entropy []float64) {
	m := a.m
	var rho *nn.Node
	if m.cfg.rwgp() {
		rho = m.rho(t)
	}
	lps := make([]*nn.Node, len(steps))
	ents := make([]*nn.Node, len(steps))
	for b, s := range steps {
		o := s.Obs
		if len(o.Placed) == 0 {
			lps[b] = t.Const(1, 1, []float64{0})
			ents[b] = t.Const(1, 1, []float64{0})
			continue
		}
		var g gpState
		if rho != nil {
			g = m.gpPrepare(t, o.Hist, o.M, rho, false)
		}
		mus := make([]*nn.Node, len(o.Placed))
		sds := make([]*nn.Node, len(o.Placed))
		rep := make([]int, 0, len(o.Placed)*o.M)
		for j := range o.Placed {
			x, srow := jobAwareAt(t, shat, sc, at[b][j], batch[b], o.M)
			mus[j], sds[j], _, _ = m.affinity(t, x, srow, &g, rho)
			for k := 0; k < o.M; k++ {
				rep = append(rep, j)
			}
		}
		mu := t.ConcatRows(mus...)
		sd := t.GatherRows(t.ConcatRows(sds...), rep)
		lps[b] = t.Sum(t.GaussianLogProb(t.Const(len(rep), 1, s.Action.Vec), mu, sd))
		ents[b] = t.Mean(t.GaussianEntropy(sd))
	}
	a.lp = t.ConcatRows(lps...)
	a.ent = t.ConcatRows(ents...)
	copy(logp, a.lp.Data)
	copy(entropy, a.ent.Data)
}

// placedBatch is where each step's observation goes in the placement
// agent's trunk batch (−1: left out): the observations that placed a job,
// in order (one that placed none contributes nothing to the loss). Every
// element of a product is a chain of its own over its inner dimension
// (nn's gemm), so leaving rows out changes no bit of the others' loss or
// gradient.
func placedBatch(steps []*rl.Step[*Obs]) []int {
	batch := make([]int, len(steps))
	i := 0
	for b, s := range steps {
		batch[b] = -1
		if len(s.Obs.Placed) > 0 {
			batch[b] = i
			i++
		}
	}
	return batch
}

func (a *placeAgent) Backward(dLogp, dEntropy, _ []float64) {
	a.err = backwardPair(&a.t, a.lp, a.ent, dLogp, dEntropy, a.err)
}

func (a *placeAgent) Step() { a.opt.Step() }

// Release drops the tape of the last update (rl.Releaser); the next
// Evaluate records on a fresh one.
func (a *placeAgent) Release() { a.t, a.lp, a.ent = nn.Tape{}, nil, nil }

// critic is the centralised critic: an MLP on the whole observation
// (every job row with its mask, every machine row). The paper's critic is
// a Q-function of observations and both actions (Eq. 15); rl.MAPPO, like
// the MAPPO authors' implementation, uses a state-value baseline for GAE,
// so the actions are not an input here.
type critic struct {
	targetNet
	t, tt nn.Tape
	v     *nn.Node
	n, M  int
}

// targetNet is a critic's network: an MLP (two hidden layers of
// cfg.Hidden, one output), a target copy of it that SyncTarget refreshes,
// and the MLP's Adam optimiser.
type targetNet struct {
	mlp, target *nn.MLP
	ps, tps     *nn.Params
	opt         *nn.Adam
}

// newTargetNet draws the MLP named name on width inputs from rng, then
// the target's own initial weights (overwritten by the copy).
func newTargetNet(name string, width int, cfg Config, lr float64, rng *rand.Rand) targetNet {
	n := targetNet{ps: nn.NewParams(), tps: nn.NewParams()}
	sizes := []int{width, cfg.Hidden, cfg.Hidden, 1}
	n.mlp = nn.NewMLP(n.ps, name, sizes, nn.ReLU, rng)
	n.target = nn.NewMLP(n.tps, name, sizes, nn.ReLU, rng)
	n.tps.CopyFrom(n.ps)
	n.opt = nn.NewAdam(n.ps, nn.AdamConfig{LR: lr, MaxGradNorm: cfg.MaxGradNorm})
	return n
}

// SyncTarget copies the MLP's weights into the target.
func (n *targetNet) SyncTarget() { n.tps.CopyFrom(n.ps) }

func criticWidth(n, M int) int { return n*(JobFeatures+1) + M*MachineFeatures }

func newCritic(cfg Config, M int, lr float64, rng *rand.Rand) *critic {
	return &critic{targetNet: newTargetNet("critic", criticWidth(cfg.Jobs, M), cfg, lr, rng), n: cfg.Jobs, M: M}
}

func (c *critic) input(steps []*rl.Step[*Obs]) []float64 {
	w := criticWidth(c.n, c.M)
	x := make([]float64, 0, len(steps)*w)
	for _, s := range steps {
		x = appendObs(x, s.Obs, c.n)
	}
	return x
}

// appendObs appends what both critics read of o (criticWidth(n, o.M)
// values): its n job rows, each followed by its mask (1 real, 0 padding),
// then its machine rows.
func appendObs(x []float64, o *Obs, n int) []float64 {
	for r := 0; r < n; r++ {
		x = append(x, o.Jobs[r*JobFeatures:(r+1)*JobFeatures]...)
		if o.Mask[r] {
			x = append(x, 1)
		} else {
			x = append(x, 0)
		}
	}
	return append(x, o.Machines...)
}

func (c *critic) Values(steps []*rl.Step[*Obs], value []float64, target bool) {
	x := c.input(steps)
	w := criticWidth(c.n, c.M)
	if target {
		c.tt.Reset()
		v := c.target.Forward(&c.tt, c.tt.Const(len(steps), w, x))
		copy(value, v.Data)
		return
	}
	c.t.Reset()
	c.v = c.mlp.Forward(&c.t, c.t.Const(len(steps), w, x))
	copy(value, c.v.Data)
}

func (c *critic) Backward(dValue []float64) {
	t := &c.t
	t.Backward(t.Sum(t.Mul(c.v, t.Const(len(dValue), 1, dValue))))
}

func (c *critic) Step() { c.opt.Step() }

// Release drops both tapes (rl.Releaser): the target pass over a whole
// segment and the last fitting minibatch.
func (c *critic) Release() { c.t, c.tt, c.v = nn.Tape{}, nn.Tape{}, nil }
