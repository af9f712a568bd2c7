package nn

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// orderingNet is the shape of the DAS ordering network (DESIGN.md §5):
// job features → embedding (ReLU) → multi-head self-attention within each
// set of jobs → hidden layer (ReLU) → a 2-wide head read as the Gaussian
// policy's mean (tanh) and standard deviation (sigmoid, floored).
type orderingNet struct {
	embed, hidden, head *Linear
	attn                *MultiHeadAttention
	jobs                int
}

func newOrderingNet(ps *Params, features, dim, heads, jobs int, rng *rand.Rand) *orderingNet {
	return &orderingNet{
		embed:  NewLinear(ps, "embed", features, dim, He, rng),
		attn:   NewMultiHeadAttention(ps, "attn", dim, heads, rng),
		hidden: NewLinear(ps, "hidden", dim, dim, He, rng),
		head:   NewLinear(ps, "head", dim, 2, Glorot, rng),
		jobs:   jobs,
	}
}

// loss records −mean log π(actions | x), x being (sets·jobs)×features.
func (o *orderingNet) loss(t *Tape, x, actions *Node, mask []bool) *Node {
	h := t.ReLU(o.embed.Forward(t, x))
	h = o.attn.Forward(t, h, o.jobs, mask)
	h = t.ReLU(o.hidden.Forward(t, h))
	out := o.head.Forward(t, h)
	mean := t.Tanh(t.SliceCols(out, 0, 1))
	std := t.AddScalar(t.Sigmoid(t.SliceCols(out, 1, 2)), 0.05)
	return t.Scale(t.Mean(t.GaussianLogProb(actions, mean, std)), -1)
}

// orderingBatch is a random batch of job sets with the last quarter of each
// set padded.
type orderingBatch struct {
	x, actions []float64
	mask       []bool
}

func newOrderingBatch(sets, jobs, features int, rng *rand.Rand) orderingBatch {
	b := orderingBatch{
		x:       make([]float64, sets*jobs*features),
		actions: make([]float64, sets*jobs),
		mask:    make([]bool, sets*jobs),
	}
	for i := range b.x {
		b.x[i] = rng.NormFloat64()
	}
	for i := range b.actions {
		b.actions[i] = 2*rng.Float64() - 1
		b.mask[i] = i%jobs < jobs*3/4
	}
	return b
}

// step runs one forward, backward and optimiser step and returns the loss.
func (o *orderingNet) step(t *Tape, opt Optimizer, b orderingBatch, features int) float64 {
	t.Reset()
	rows := len(b.actions)
	l := o.loss(t, t.Const(rows, features, b.x), t.Const(rows, 1, b.actions), b.mask)
	t.Backward(l)
	opt.Step()
	return l.Data[0]
}

// TestTrainingIsDeterministic trains the same model twice from one seed,
// the second time on one OS thread, and requires identical bits. The
// batch is large enough that gonum runs the big products on several
// goroutines: its blocks are independent and each sums over k in a fixed
// order, so the result must not depend on scheduling.
func TestTrainingIsDeterministic(t *testing.T) {
	steps := 20
	if testing.Short() {
		steps = 5
	}
	train := func() []float64 {
		rng := rand.New(rand.NewPCG(42, 0))
		ps := NewParams()
		net := newOrderingNet(ps, 5, 64, 4, 32, rng)
		opt := NewAdam(ps, AdamConfig{LR: 1e-3, MaxGradNorm: 1})
		batch := newOrderingBatch(8, 32, 5, rng)
		var tp Tape
		for range steps {
			net.step(&tp, opt, batch, 5)
		}
		var all []float64
		for _, p := range ps.List() {
			all = append(all, p.Data...)
		}
		return all
	}
	a := train()
	prev := runtime.GOMAXPROCS(1)
	b := train()
	runtime.GOMAXPROCS(prev)
	c := train()
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) || math.Float64bits(a[i]) != math.Float64bits(c[i]) {
			t.Fatalf("parameter %d: %v, %v under GOMAXPROCS(1), %v on a rerun", i, a[i], b[i], c[i])
		}
	}
}

// TestTrainingReducesLoss is a smoke test that the pieces fit together:
// the ordering network learns to imitate fixed actions.
func TestTrainingReducesLoss(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 0))
	ps := NewParams()
	net := newOrderingNet(ps, 5, 16, 2, 8, rng)
	opt := NewAdam(ps, AdamConfig{LR: 3e-3})
	batch := newOrderingBatch(4, 8, 5, rng)
	var tp Tape
	first := net.step(&tp, opt, batch, 5)
	var last float64
	for range 200 {
		last = net.step(&tp, opt, batch, 5)
	}
	if !(last < first-0.5) {
		t.Errorf("loss %g after 200 steps, started at %g", last, first)
	}
}

// TestSteadyStateAllocations checks that a warmed-up training step (tape
// reuse, backward, Adam) allocates nothing. Products stay below gonum's
// parallel threshold here; above it gonum's Dgemm allocates for its worker
// goroutines, a few allocations per large product (see the benchmarks).
func TestSteadyStateAllocations(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 0))
	ps := NewParams()
	net := newOrderingNet(ps, 5, 16, 2, 8, rng)
	opt := NewAdam(ps, AdamConfig{MaxGradNorm: 1})
	batch := newOrderingBatch(4, 8, 5, rng)
	var tp Tape
	net.step(&tp, opt, batch, 5)
	if n := testing.AllocsPerRun(10, func() { net.step(&tp, opt, batch, 5) }); n != 0 {
		t.Errorf("%v allocations per training step, want 0", n)
	}
}

// TestMaskedDistributions checks values at the edges of masking: a set
// with one present key attends only to it, a set with none outputs zeros,
// and a categorical row with one allowed action has probability 1 and
// entropy 0, all without NaN.
func TestMaskedDistributions(t *testing.T) {
	var tp Tape
	qkv := tp.Const(6, 3, []float64{
		1, 2, 10, 3, 4, 20, 5, 6, 30, // set 0: keys 0 and 2 present
		1, 2, 40, 3, 4, 50, 5, 6, 60, // set 1: no key present
	})
	out := tp.SelfAttention(qkv, 3, 1, []bool{false, true, false, false, false, false})
	for i, want := range []float64{20, 20, 20, 0, 0, 0} {
		if out.Data[i] != want {
			t.Errorf("attention output %d = %v, want %v", i, out.Data[i], want)
		}
	}
	logits := tp.Const(2, 3, []float64{1, 1000, -3, 0, 0, 0})
	mask := []bool{true, false, false, true, true, true}
	lp := tp.CategoricalLogProb(logits, mask, []int{0, 2})
	ent := tp.CategoricalEntropy(logits, mask)
	if lp.Data[0] != 0 || ent.Data[0] != 0 {
		t.Errorf("single allowed action: log-prob %v, entropy %v, want 0 and 0", lp.Data[0], ent.Data[0])
	}
	if math.Abs(lp.Data[1]+math.Log(3)) > 1e-15 || math.Abs(ent.Data[1]-math.Log(3)) > 1e-15 {
		t.Errorf("uniform row: log-prob %v, entropy %v, want −ln 3 and ln 3", lp.Data[1], ent.Data[1])
	}
	none := tp.CategoricalEntropy(tp.Const(1, 2, []float64{1, 2}), []bool{false, false})
	if none.Data[0] != 0 {
		t.Errorf("entropy with nothing allowed = %v, want 0", none.Data[0])
	}
}

// TestShapePanics checks that shape errors panic with an "nn: " message.
func TestShapePanics(t *testing.T) {
	var tp Tape
	a, b := tp.Const(2, 3, nil), tp.Const(2, 2, nil)
	for name, f := range map[string]func(){
		"MatMul":      func() { tp.MatMul(a, b) },
		"Add":         func() { tp.Add(a, b) },
		"ConcatRows":  func() { tp.ConcatRows(a, b) },
		"SliceCols":   func() { tp.SliceCols(a, 2, 4) },
		"GatherRows":  func() { tp.GatherRows(a, []int{2}) },
		"Attention":   func() { tp.SelfAttention(a, 2, 2, nil) },
		"Backward":    func() { tp.Backward(a) },
		"Categorical": func() { tp.CategoricalLogProb(b, []bool{true, false, true, true}, []int{1, 0}) },
	} {
		func() {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || len(s) < 4 || s[:4] != "nn: " {
					t.Errorf("%s: panic %v, want an \"nn: \" message", name, r)
				}
			}()
			f()
		}()
	}
}

// TestBackwardTwiceAccumulates checks that two losses on one tape,
// back-propagated one after the other (an actor and a critic sharing a
// trunk), leave the same parameter gradients as their sum.
func TestBackwardTwiceAccumulates(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	ps := NewParams()
	trunk := NewMLP(ps, "trunk", []int{3, 6, 4}, Tanh, rng)
	x := make([]float64, 5*3)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	losses := func(tp *Tape) (*Node, *Node) {
		h := trunk.Forward(tp, tp.Const(5, 3, x))
		return tp.Mean(tp.SliceCols(h, 0, 2)), tp.Sum(tp.Mul(h, h))
	}
	grads := func() []float64 {
		var g []float64
		for _, p := range ps.List() {
			g = append(g, p.Grad...)
		}
		ps.ZeroGrad()
		return g
	}
	var tp Tape
	a, b := losses(&tp)
	tp.Backward(a)
	tp.Backward(b)
	separate := grads()
	tp.Reset()
	a, b = losses(&tp)
	tp.Backward(tp.Add(a, b))
	summed := grads()
	for i := range separate {
		if math.Abs(separate[i]-summed[i]) > 1e-14*max(1, math.Abs(summed[i])) {
			t.Fatalf("gradient %d: %v from two Backward calls, %v from the sum", i, separate[i], summed[i])
		}
	}
}

// TestCholSolveNotPositiveDefinite checks that a singular kernel matrix is
// reported through Tape.Err, not a panic, and that Reset clears it.
func TestCholSolveNotPositiveDefinite(t *testing.T) {
	var tp Tape
	x := tp.Const(2, 1, []float64{0.5, 0.5}) // identical rows: K is singular
	k := tp.Matern52(x, x, tp.Const(1, 1, []float64{1}))
	out := tp.CholSolve(k, tp.Const(2, 1, []float64{1, 2}))
	var npd *NotPositiveDefiniteError
	if !errors.As(tp.Err(), &npd) || npd.Pivot != 1 {
		t.Fatalf("Err() = %v, want a NotPositiveDefiniteError at pivot 1", tp.Err())
	}
	if !math.IsNaN(out.Data[0]) {
		t.Errorf("result %v, want NaN", out.Data)
	}
	tp.Reset()
	if tp.Err() != nil {
		t.Errorf("Err() = %v after Reset", tp.Err())
	}
}

// TestViewNeverWritten records a View, then reuses its tape position for
// an operator's output after Reset: the caller's slice must keep its
// values (the node writes into storage of its own again), and a View
// computes what a Const of the same values computes.
func TestViewNeverWritten(t *testing.T) {
	data := []float64{1, -2, 3, -4, 5, -6}
	want := append([]float64(nil), data...)
	var tp, ref Tape
	for it := 0; it < 3; it++ {
		tp.Reset()
		ref.Reset()
		v := tp.ReLU(tp.View(2, 3, data))
		c := ref.ReLU(ref.Const(2, 3, data))
		if !sameBits(v.Data, c.Data) {
			t.Fatalf("iteration %d: View gives %v, Const %v", it, v.Data, c.Data)
		}
		tp.Reset()
		x := tp.Const(2, 3, []float64{7, 7, 7, 7, 7, 7}) // the View's position
		_ = tp.ReLU(x)
		if !sameBits(data, want) {
			t.Fatalf("iteration %d: the viewed slice was written: %v", it, data)
		}
	}
}
