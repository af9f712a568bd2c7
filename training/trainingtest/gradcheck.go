package trainingtest

import (
	"math"
	"testing"

	"github.com/schedlab/schedlab/training/nn"
)

// GradCheck is what CheckGradients compared.
type GradCheck struct {
	Checked int     // entries compared
	Live    int     // of them, entries with a gradient (either side above 1e-7)
	Worst   float64 // the largest relative error
}

// CheckGradients compares the gradients that ps holds (the caller has run
// loss's backward pass) with central finite differences of loss (step
// 1e-6) at the first, middle and last entries of every parameter, and
// fails t at a relative error above 1e-4: |fd − g| / max(|fd|, |g|, 1e-4).
// Central differences are exact to O(h²) on smooth paths; 1e-4 leaves
// room for the rounding of h = 1e-6, and a wrong composition is off by
// O(1). loss must not change ps's gradients' meaning (it may run a forward
// pass; the gradients are read before the first call). name prefixes the
// messages. Every entry is left as it was.
func CheckGradients(t testing.TB, name string, ps *nn.Params, loss func() float64) GradCheck {
	t.Helper()
	var grads [][]float64
	for _, p := range ps.List() {
		grads = append(grads, append([]float64(nil), p.Grad...))
	}
	var c GradCheck
	const h = 1e-6
	for k, p := range ps.List() {
		g := grads[k]
		for _, i := range []int{0, len(p.Data) / 2, len(p.Data) - 1} {
			x := p.Data[i]
			p.Data[i] = x + h
			up := loss()
			p.Data[i] = x - h
			down := loss()
			p.Data[i] = x
			fd := (up - down) / (2 * h)
			scale := math.Max(math.Abs(fd), math.Abs(g[i]))
			err := math.Abs(fd-g[i]) / math.Max(scale, 1e-4)
			if scale > 1e-7 {
				c.Live++
			}
			c.Worst = math.Max(c.Worst, err)
			if err > 1e-4 {
				t.Errorf("%s: ∂L/∂%s[%d]: backward %.10g, finite difference %.10g", name, p.Name, i, g[i], fd)
			}
			c.Checked++
		}
	}
	return c
}
