package das

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/schedlab/schedlab/training/nn"
)

// Model is the dual-agent policy: the ordering agent (feature networks,
// squeeze-and-communicate gate, position embedding, self-attention,
// Gaussian priority head) and the placement agent (an MLP head or the
// Random-Walk Gaussian Process) on the shared job representation Ŝ. Its
// parameters do not depend on the number of machines, so a policy runs on
// any cluster. The centralised critic is separate (critic.go): it is not
// needed to act.
type Model struct {
	cfg Config
	ps  *nn.Params

	jobFF, clusterFF *nn.Linear // Eq. 4
	gate             *nn.Linear // Eq. 5 (gated variants)
	attn             *nn.MultiHeadAttention
	norm             *nn.LayerNorm
	muHead, sdHead   *nn.Linear // Eq. 8

	// MLP placement (DA, DA+MC).
	placeMLP *nn.MLP
	placeSd  *nn.Linear
	// RWGP placement (DA+RWGP, DAS).
	logRho, logBeta, logNoise *nn.Node
	gpMean                    *nn.Linear // the learned linear mean m(x) = x·w + b

	pe []float64 // N×e position embedding
}

// NewModel builds a freshly initialised model; rng fixes the weights.
// cfg must be valid.
func NewModel(cfg Config, rng *rand.Rand) *Model {
	if err := cfg.Validate(); err != nil {
		panic("das: NewModel: " + err.Error())
	}
	e := cfg.Hidden
	ps := nn.NewParams()
	m := &Model{cfg: cfg, ps: ps}
	m.jobFF = nn.NewLinear(ps, "order.job", JobFeatures, e, nn.He, rng)
	m.clusterFF = nn.NewLinear(ps, "order.cluster", MachineFeatures, e, nn.He, rng)
	if cfg.gated() {
		m.gate = nn.NewLinear(ps, "order.gate", 2*e, e, nn.Glorot, rng)
	}
	m.attn = nn.NewMultiHeadAttention(ps, "order.attn", e, cfg.Heads, rng)
	m.norm = nn.NewLayerNorm(ps, "order.norm", e)
	m.muHead = nn.NewLinear(ps, "order.mu", e, 1, nn.Glorot, rng)
	m.sdHead = nn.NewLinear(ps, "order.sd", e, 1, nn.Glorot, rng)
	if cfg.rwgp() {
		m.logRho = ps.New("place.log_rho", 1, 1)
		m.logRho.Data[0] = 0.5 * math.Log(float64(e)) // ρ = √e: x rows are e-wide
		m.logBeta = ps.New("place.log_beta", 1, 1)    // β = 1
		m.logNoise = ps.New("place.log_noise", 1, 1)
		m.logNoise.Data[0] = math.Log(0.1)
		m.gpMean = nn.NewLinear(ps, "place.mean", e, 1, nn.Glorot, rng)
	} else {
		m.placeMLP = nn.NewMLP(ps, "place.mlp", []int{e, e, 1}, nn.ReLU, rng)
		m.placeSd = nn.NewLinear(ps, "place.sd", e, 1, nn.Glorot, rng)
	}
	// The heads that rank start at zero (Andrychowicz et al. 2021: a
	// near-zero last policy layer learns best): the untrained
	// deterministic policy ties every job and every machine, which the
	// decoder breaks by submission order and server index, so it starts
	// as FIFO first-fit and what it gains over that is learned.
	for _, w := range m.rankingHeads() {
		zero(w)
	}
	m.pe = positionEmbedding(cfg.Jobs, e)
	return m
}

// untrainedScale is the spread of the ranking heads of the untrained
// reference: far below any learnt weight, so that it only breaks ties.
const untrainedScale = 1e-6

// rankingHeads are the last layers that rank jobs and machines, which
// NewModel starts at zero.
func (m *Model) rankingHeads() []*nn.Node {
	if m.placeMLP != nil {
		return []*nn.Node{m.muHead.W, m.placeMLP.Layers[len(m.placeMLP.Layers)-1].W}
	}
	return []*nn.Node{m.muHead.W, m.gpMean.W}
}

// Config is the model's configuration.
func (m *Model) Config() Config { return m.cfg }

// Params are the policy's parameters (what a checkpoint stores).
func (m *Model) Params() *nn.Params { return m.ps }

// trunk records Ŝ for a batch of observations (B·N rows) and S^c (ΣM
// rows, observation b's machines at rows b·M.. for a common M).
func (m *Model) trunk(t *nn.Tape, obs []*Obs) (shat, sc *nn.Node) {
	return m.trunkRows(t, obs, m.cfg.Jobs)
}

// trunkRows is trunk on the first n job rows of each observation. Rows
// past an observation's Count are masked keys, so leaving them out (n ≥
// every Count) changes no real row's output: acting uses this to skip
// the padding.
func (m *Model) trunkRows(t *nn.Tape, obs []*Obs, n int) (shat, sc *nn.Node) {
	z, sc, mask := m.embed(t, obs, n)
	// The standard Transformer encoder layer: a residual around the
	// attention and a layer norm, so that a job keeps its own features
	// when attention is still uniform.
	shat = m.norm.Forward(t, t.Add(z, m.attn.Forward(t, z, n, mask)))
	return shat, sc
}

// trunkReal is trunk for a loss that reads only the real rows (the
// ordering agent's: padded rows are masked out of it). It computes the
// attention at the real rows only; the padded rows of Ŝ are not trunk's
// (their attention is taken as 0) but every real row, and every gradient
// of such a loss, is trunk's bit for bit (nn.Tape.SelfAttentionRows).
func (m *Model) trunkReal(t *nn.Tape, obs []*Obs) (shat, sc *nn.Node) {
	n := m.cfg.Jobs
	z, sc, mask := m.embed(t, obs, n)
	rows := make([]int, 0, len(mask))
	for i, ok := range mask {
		if ok {
			rows = append(rows, i)
		}
	}
	att := t.SelfAttentionRows(m.attn.QKV.Forward(t, z), n, m.attn.Heads, mask, rows)
	shat = m.norm.Forward(t, t.Add(z, m.attn.Out.Forward(t, att)))
	return shat, sc
}

// trunkAt is trunk's Ŝ at the batch rows rows (b·N + r for job row r of
// observation b; ascending, distinct), one output row each, for a loss
// that reads no other row of Ŝ (the placement agent's: the rows of the
// jobs its decisions placed, about one per decision). The attention's
// queries, output projection and layer norm run on those rows only;
// keys and values still come from every row. The rows, and every
// gradient of such a loss, are trunk's bit for bit: each row-wise step
// computes a row alone, and the steps that sum over rows (the gradients
// of weights) add the left-out rows' zero gradients in trunk, which
// change no non-zero sum (nn.Tape.SelfAttentionRows).
func (m *Model) trunkAt(t *nn.Tape, obs []*Obs, rows []int) (shat, sc *nn.Node) {
	n := m.cfg.Jobs
	z, sc, mask := m.embed(t, obs, n)
	att := t.SelfAttentionRows(m.attn.QKV.Forward(t, z), n, m.attn.Heads, mask, rows)
	o := m.attn.Out.Forward(t, t.GatherRows(att, rows))
	// Gathered after the attention, as trunk's residual is added after
	// it: z's gradient then sums the residual's part before the
	// attention's, in trunk's order.
	shat = m.norm.Forward(t, t.Add(t.GatherRows(z, rows), o))
	return shat, sc
}

// embed records the attention's input z (the job features, gated with
// the cluster's message in the gated variants, plus the position
// embedding) for the first n job rows of each observation, S^c, and the
// key mask.
func (m *Model) embed(t *nn.Tape, obs []*Obs, n int) (z, sc *nn.Node, mask []bool) {
	e := m.cfg.Hidden
	M := obs[0].M
	jobs := make([]float64, 0, len(obs)*n*JobFeatures)
	mach := make([]float64, 0, len(obs)*M*MachineFeatures)
	mask = make([]bool, 0, len(obs)*n)
	for _, o := range obs {
		if o.M != M || len(o.Mask) < n || o.Count > n {
			panic(fmt.Sprintf("das: batch mixes observations of %d and %d machines or too few job rows", M, o.M))
		}
		jobs = append(jobs, o.Jobs[:n*JobFeatures]...)
		mach = append(mach, o.Machines...)
		mask = append(mask, o.Mask[:n]...)
	}
	B := len(obs)
	sj := t.ReLU(m.jobFF.Forward(t, t.Const(B*n, JobFeatures, jobs)))
	sc = t.ReLU(m.clusterFF.Forward(t, t.Const(B*M, MachineFeatures, mach)))
	st := sj
	if m.gate != nil {
		msg := t.SegmentMeans(sc, M) // s̃ = AvgPool(S^c), B×e
		rep := make([]int, B*n)
		for i := range rep {
			rep[i] = i / n
		}
		f := t.GatherRows(msg, rep)
		delta := t.Sigmoid(m.gate.Forward(t, t.ConcatCols(sj, f)))
		st = t.Add(sj, t.Mul(delta, t.Sub(f, sj))) // δ·f + (1−δ)·S^j
	}
	pos := make([]int, B*n)
	for i := range pos {
		pos[i] = i % n
	}
	z = t.Add(st, t.GatherRows(t.Const(n, e, m.pe[:n*e]), pos))
	return z, sc, mask
}

// priority records the Gaussian priority head: μ = tanh(Ŝ W4 + b4), σ =
// sigmoid(Ŝ W5 + b5), σ floored at 0.01 to keep log-probabilities finite.
func (m *Model) priority(t *nn.Tape, shat *nn.Node) (mu, sd *nn.Node) {
	mu = t.Tanh(m.muHead.Forward(t, shat))
	sd = t.AddScalar(t.Scale(t.Sigmoid(m.sdHead.Forward(t, shat)), 0.99), 0.01)
	return mu, sd
}

// gpState is what the RWGP posterior of one decision shares across its
// jobs: the history's features, the factorised kernel's solves.
type gpState struct {
	h      int
	phiT   *nn.Node // (L+1)×h
	k      *nn.Node // h×h, noise added
	alpha  *nn.Node // (K+σ²I)⁻¹(Y − m(X)), h×M
	hasHis bool
}

func (m *Model) rho(t *nn.Tape) *nn.Node { return t.Exp(m.logRho) }

// graphFeature records φ of the job-aware machine graph of x (M×e).
func (m *Model) graphFeature(t *nn.Tape, x, rho *nn.Node) *nn.Node {
	return walkFeatures(t, t.Matern52(x, x, rho), m.logBeta, m.cfg.WalkLength)
}

// gpPrepare records the GP's history part. With cached, entries that
// carry their feature and mean from when they were acted on reuse them
// (the parameters have not changed since, within an episode or a run);
// the training passes recompute them for their gradients.
func (m *Model) gpPrepare(t *nn.Tape, hist []*HistEntry, M int, rho *nn.Node, cached bool) gpState {
	g := gpState{h: len(hist)}
	if g.h == 0 {
		return g
	}
	e, L := m.cfg.Hidden, m.cfg.WalkLength
	phis := make([]*nn.Node, g.h)
	means := make([]*nn.Node, g.h)
	y := make([]float64, M*g.h)
	for j, he := range hist {
		if cached && he.phi != nil {
			phis[j] = t.Const(1, L+1, he.phi)
			means[j] = t.Const(M, 1, he.mean)
		} else {
			x := t.Const(M, e, he.X)
			phis[j] = m.graphFeature(t, x, rho)
			means[j] = m.gpMean.Forward(t, x) // M×1
		}
		for k := 0; k < M; k++ {
			y[k*g.h+j] = he.Y[k]
		}
	}
	phi := t.ConcatRows(phis...)
	g.phiT = t.Transpose(phi)
	noise := t.AddScalar(t.Exp(m.logNoise), 1e-3)
	g.k = t.AddDiag(t.MatMul(phi, g.phiT), noise)
	resid := t.Sub(t.Const(M, g.h, y), t.ConcatCols(means...)) // (Y − m(X))ᵀ
	g.alpha = t.CholSolve(g.k, t.Transpose(resid))
	g.hasHis = true
	return g
}

// affinity records the placement agent's Gaussian for row r of
// observation b: mean M×1 and standard deviation 1×1. x is the job-aware
// machine features Ŝ_r ⊙ S^c (M×e).
func (m *Model) affinity(t *nn.Tape, x, srow *nn.Node, g *gpState, rho *nn.Node) (mu, sd, phi, mean *nn.Node) {
	if m.placeMLP != nil {
		minStd := m.cfg.MinStd
		mu = m.placeMLP.Forward(t, x)
		sd = t.AddScalar(t.Scale(t.Sigmoid(m.placeSd.Forward(t, srow)), 1-minStd), minStd)
		return mu, sd, nil, nil
	}
	phi = m.graphFeature(t, x, rho)
	mu, sd, mean = m.posterior(t, x, phi, g)
	return mu, sd, phi, mean
}

// posterior records the RWGP's Gaussian for the job-aware machine
// features x (M×e) whose graph feature is phi (1×(L+1)).
func (m *Model) posterior(t *nn.Tape, x, phi *nn.Node, g *gpState) (mu, sd, mean *nn.Node) {
	minStd := m.cfg.MinStd
	mean = m.gpMean.Forward(t, x)
	mu = mean
	kss := t.MatMul(phi, t.Transpose(phi))
	variance := kss
	if g.hasHis {
		ks := t.MatMul(phi, g.phiT) // k*ᵀ, 1×h
		mu = t.Add(mu, t.Transpose(t.MatMul(ks, g.alpha)))
		variance = t.Sub(kss, t.MatMul(ks, t.CholSolve(g.k, t.Transpose(ks))))
	}
	// σ = √max(Σ, floor²) through exp(½ log ·): nn has no square root.
	sd = t.Exp(t.Scale(t.Log(t.Clamp(variance, minStd*minStd, math.Inf(1))), 0.5))
	return mu, sd, mean
}

// jobAware records x = Ŝ_r ⊙ S^c_b (M×e).
func jobAware(t *nn.Tape, shat, sc *nn.Node, b, r, n, M int) (x, srow *nn.Node) {
	return jobAwareAt(t, shat, sc, b*n+r, b, M)
}

// jobAwareAt records x = Ŝ_row ⊙ S^c_b (M×e) for row of shat.
func jobAwareAt(t *nn.Tape, shat, sc *nn.Node, row, b, M int) (x, srow *nn.Node) {
	srow = t.SliceRows(shat, row, row+1)
	return t.Mul(t.SliceRows(sc, b*M, (b+1)*M), srow), srow
}

func zero(n *nn.Node) { clear(n.Data) }
