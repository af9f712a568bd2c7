package das

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/nn"
	"github.com/schedlab/schedlab/training/rl"
)

// algorithm1 trains both agents as the DAS paper's Algorithm 1: after
// every decision t (once its reward r_t is known, at decision t+1) it
//
//  1. regresses the centralised critic Q_φ(O_t, a^j_t, A^c_t) (Eq. 15) on
//     y_t = r_t + γ Q_φold(O_{t+1}, π_θold(O_{t+1})) (Eq. 16), the target
//     policy's action being its means;
//  2. takes one clipped-surrogate step of each agent (Eq. 17) with
//     ratio π_θ(a_t|O_t) / π_θold(a_t|O_t) and the advantage
//     B_t = y_t − V_old(O_t), V_old(O) = Q_φold(O, π_θold(O)): GAE over the
//     one step an update at every decision sees;
//  3. copies θ into θ_old and φ into φ_old when t % z = 0.
//
// The target policy runs once per observation and copy of θ_old
// (targetPass): step t's ratio denominators on O_t read the pass that
// step t−1's TD target ran on O_t when no copy came between, and right
// after a copy, when θ_old equals θ, the TD target reads the acting
// pass on O_{t+1} instead of running the same weights again. Either
// way the numbers are the ones a fresh pass gives, bit for bit.
//
// The placement agent is stepped only at decisions that placed a job (its
// action is empty otherwise). Every step is one Adam step of its
// optimiser; adam counts them.
type algorithm1 struct {
	cfg             Config
	m, old          *Model
	ord, ordOld     *orderAgent // on m (stepped) and on old (never)
	place, placeOld *placeAgent
	q               *qCritic
	rng             *rand.Rand
	t               int // decisions learned from, over the run
	tt              nn.Tape
	adam            int64
	vNext           float64 // V_old of the observation the next transition starts from; NaN: not yet known

	// gen counts the target copies; synced is set while θ_old equals θ
	// (from a copy to the next agent step). pass is the target policy's
	// pass on the observation the next transition starts from.
	gen     int
	synced  bool
	pass    *targetPass
	noReuse bool // run every target pass afresh (tests)
	reused  int  // target passes read instead of run (tests)

	// Sums over the current episode, for its curve row.
	n                        int
	policyLoss, entropy, vlo float64
}

// newAlgorithm1 learns into m through the agents ord and place (their
// Adams are the agents' optimisers), drawing from rng.
func newAlgorithm1(cfg Config, m *Model, ord *orderAgent, place *placeAgent, M int, lr float64, seed uint64, rng *rand.Rand) *algorithm1 {
	old := NewModel(cfg, pipeline.Rand(seed, Stage, training.KeyInit))
	old.ps.CopyFrom(m.ps)
	return &algorithm1{
		cfg: cfg, m: m, old: old,
		ord: ord, ordOld: &orderAgent{m: old},
		place: place, placeOld: &placeAgent{m: old},
		q:      newQCritic(cfg, M, lr, pipeline.Rand(seed, Stage, keyQCriticInit)),
		rng:    rng,
		vNext:  math.NaN(),
		synced: true,
	}
}

// a1State is what a resumed run needs of algorithm1 between episodes
// (the agents' optimisers are saved with them).
type a1State struct {
	Old, Q, QTarget [][]float64
	QOpt            nn.AdamState
	T               int
	Adam            int64
}

func (a *algorithm1) state() *a1State {
	return &a1State{Old: a.old.ps.Values(), Q: a.q.ps.Values(), QTarget: a.q.tps.Values(), QOpt: a.q.opt.State(), T: a.t, Adam: a.adam}
}

func (a *algorithm1) restore(s *a1State) error {
	if s == nil {
		return errors.New("no algorithm1 state saved")
	}
	a.t, a.adam = s.T, s.Adam
	// Whether θ_old equals θ is not saved: reuse starts again at the
	// next copy.
	a.synced, a.pass = false, nil
	return errors.Join(a.old.ps.SetValues(s.Old), a.q.ps.SetValues(s.Q), a.q.tps.SetValues(s.QTarget), a.q.opt.SetState(s.QOpt))
}

// targetPass is the target policy's forward pass on one observation o:
// its action (the means) and value for the TD target, and what the
// agents' ratio denominators read of it.
type targetPass struct {
	o    *Obs
	gen  int         // the target copy it ran with (algorithm1.gen)
	prio []float64   // mean priorities, N (padding 0)
	sd   []float64   // the priorities' standard deviations, real rows
	aff  [][]float64 // mean affinity rows of o.Placed, in that order
	shat []float64   // Ŝ at o.Placed's rows, ascending, Hidden values each
	sc   []float64   // S^c, M×Hidden
	v    float64     // V_old(o) = Q_φold(o, π_θold(o))
}

// targetPassOn runs the target policy on o, or reads acting, the acting
// policy's pass on o, when θ_old equals θ (nil: run it). V_old reads the
// target policy's mean priorities and, for the rows the decision placed,
// its mean affinity rows.
func (a *algorithm1) targetPassOn(o *Obs, acting *agents) (*targetPass, error) {
	ag := acting
	if ag == nil || !a.synced || a.noReuse {
		ag = a.old.act(&a.tt, o, nil)
	} else {
		a.reused++
	}
	p := &targetPass{o: o, gen: a.gen, prio: make([]float64, a.cfg.Jobs), aff: make([][]float64, len(o.Placed))}
	copy(p.prio[:o.Count], ag.mu.Data)
	p.sd = slices.Clone(ag.sd.Data[:o.Count])
	for j, r := range o.Placed {
		p.aff[j] = ag.meanAffinity(r)
	}
	if err := ag.t.Err(); err != nil {
		return nil, err
	}
	p.v = a.q.value(o, p.prio, p.aff, true)
	rows := slices.Sorted(slices.Values(o.Placed))
	e := a.cfg.Hidden
	p.shat = make([]float64, 0, len(rows)*e)
	for _, r := range rows {
		p.shat = append(p.shat, ag.shat.Data[r*e:(r+1)*e]...)
	}
	p.sc = slices.Clone(ag.sc.Data)
	return p, nil
}

// passOn is the kept pass if it ran on o with the current target copy,
// else nil.
func (a *algorithm1) passOn(o *Obs) *targetPass {
	if p := a.pass; p != nil && p.o == o && p.gen == a.gen && !a.noReuse {
		a.reused++
		return p
	}
	return nil
}

// learn is one timestep of Algorithm 1 on the transition from the
// decision ord/place (with its reward) to next, nil when the episode
// ended there; nextAg is the acting policy's pass on next.
func (a *algorithm1) learn(ord, place rl.Step[*Obs], next *Obs, nextAg *agents) error {
	o := ord.Obs
	if math.IsNaN(a.vNext) {
		p, err := a.targetPassOn(o, nil)
		if err != nil {
			return err
		}
		a.vNext, a.pass = p.v, p
	}
	cur := a.passOn(o)
	v, y := a.vNext, ord.Reward
	a.vNext, a.pass = math.NaN(), nil
	if next != nil {
		p, err := a.targetPassOn(next, nextAg)
		if err != nil {
			return err
		}
		a.vNext, a.pass = p.v, p
		y += a.cfg.MAPPO.Gamma * a.vNext
	}
	a.vlo += a.q.fit(o, ord.Action.Vec, affRows(place.Action.Vec, len(o.Placed), o.M), y)
	a.adam++
	adv := y - v
	ppo := rl.PPOConfig{Clip: a.cfg.MAPPO.PPO.Clip, EntropyCoef: a.cfg.MAPPO.PPO.EntropyCoef, Epochs: 1, Minibatch: 1}
	pairs := []struct {
		cur, old rl.ActorCritic[*Obs]
		step     rl.Step[*Obs]
	}{{a.ord, a.ordOld, ord}}
	if len(o.Placed) > 0 {
		pairs = append(pairs, struct {
			cur, old rl.ActorCritic[*Obs]
			step     rl.Step[*Obs]
		}{a.place, a.placeOld, place})
	}
	for i, p := range pairs {
		s := p.step
		switch {
		case cur != nil && i == 0:
			s.LogProb = a.ordOld.logProbFrom(&s, cur)
		case cur != nil:
			s.LogProb = a.placeOld.evaluateFrom(&s, cur)
		default:
			lp, ent := []float64{0}, []float64{0}
			p.old.Evaluate([]*rl.Step[*Obs]{&s}, lp, ent, nil)
			s.LogProb = lp[0]
		}
		r := &rl.Rollout[*Obs]{Steps: []rl.Step[*Obs]{s}, Advantages: []float64{adv}, Returns: []float64{y}}
		st := rl.PPOUpdate(p.cur, r, ppo, false, a.rng)
		a.policyLoss += st.PolicyLoss / float64(len(pairs))
		a.entropy += st.Entropy / float64(len(pairs))
		a.adam++
		a.synced = false
	}
	// The agents' tapes are kept from step to step (each Evaluate resets
	// its tape and records over the same buffers): releasing them here, as
	// a MAPPO update does once per episode, made every decision allocate
	// and clear four fresh tapes. episodeStats drops them.
	if err := errors.Join(a.ord.err, a.place.err, a.ordOld.err, a.placeOld.err); err != nil {
		return err
	}
	a.n++
	if a.t%a.cfg.MAPPO.TargetEvery == 0 {
		a.old.ps.CopyFrom(a.m.ps)
		a.q.SyncTarget()
		a.gen++
		a.synced = true
	}
	a.t++
	return nil
}

// episodeStats returns the episode's mean losses and entropy, starts the
// next episode's sums and drops the agents' tapes (rl.Releaser) until the
// next episode's first step.
func (a *algorithm1) episodeStats() (policy, value, entropy float64) {
	for _, r := range []interface{ Release() }{a.ord, a.ordOld, a.place, a.placeOld} {
		r.Release()
	}
	if a.n > 0 {
		k := float64(a.n)
		policy, value, entropy = a.policyLoss/k, a.vlo/k, a.entropy/k
	}
	a.n, a.policyLoss, a.entropy, a.vlo = 0, 0, 0, 0
	return policy, value, entropy
}

// affRows cuts a placement action (the affinity rows of the placed jobs,
// concatenated) into its rows.
func affRows(vec []float64, rows, M int) [][]float64 {
	out := make([][]float64, rows)
	for j := range out {
		out[j] = vec[j*M : (j+1)*M]
	}
	return out
}

// qCritic is the centralised critic of Eq. 15, Q_φ(O^j, O^c, a^j, A^c):
// an MLP on every job row with its mask, every machine row, the N
// priorities and the N×M affinity matrix (the rows of the jobs the
// decision placed; zero for the others, whose affinities did not act).
type qCritic struct {
	targetNet
	t, tt nn.Tape
	n, M  int
}

func qCriticWidth(n, M int) int { return criticWidth(n, M) + n + n*M }

func newQCritic(cfg Config, M int, lr float64, rng *rand.Rand) *qCritic {
	return &qCritic{targetNet: newTargetNet("qcritic", qCriticWidth(cfg.Jobs, M), cfg, lr, rng), n: cfg.Jobs, M: M}
}

func (c *qCritic) input(o *Obs, prio []float64, aff [][]float64) []float64 {
	x := appendObs(make([]float64, 0, qCriticWidth(c.n, c.M)), o, c.n)
	x = append(x, prio[:c.n]...)
	a := make([]float64, c.n*c.M)
	for j, r := range o.Placed {
		copy(a[r*c.M:(r+1)*c.M], aff[j])
	}
	return append(x, a...)
}

// value is Q of one observation and action, by the target network when
// target is set.
func (c *qCritic) value(o *Obs, prio []float64, aff [][]float64, target bool) float64 {
	x := c.input(o, prio, aff)
	net, t := c.mlp, &c.t
	if target {
		net, t = c.target, &c.tt
	}
	t.Reset()
	return net.Forward(t, t.Const(1, len(x), x)).Data[0]
}

// fit takes one Adam step on (Q(o, a) − y)² and returns that loss.
func (c *qCritic) fit(o *Obs, prio []float64, aff [][]float64, y float64) float64 {
	x := c.input(o, prio, aff)
	t := &c.t
	t.Reset()
	d := t.AddScalar(c.mlp.Forward(t, t.Const(1, len(x), x)), -y)
	loss := t.Sum(t.Mul(d, d))
	t.Backward(loss)
	c.opt.Step()
	return loss.Data[0]
}
