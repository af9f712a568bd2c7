package nn

import (
	"math"
	"testing"
)

// TestAdamFirstSteps compares two Adam steps with the update computed by
// hand. With bias correction the first step moves each parameter by
// lr·g/(|g|+ε), about lr·sign(g), whatever the gradient's size: the test
// fails if the correction is missing.
func TestAdamFirstSteps(t *testing.T) {
	ps := NewParams()
	p := ps.New("p", 1, 2)
	p.Data[0], p.Data[1] = 1, -1
	opt := NewAdam(ps, AdamConfig{LR: 0.1})
	grads := [][2]float64{{1e-3, -50}, {2e-3, 10}}
	m, v := [2]float64{}, [2]float64{}
	want := [2]float64{1, -1}
	for step, g := range grads {
		p.Grad[0], p.Grad[1] = g[0], g[1]
		opt.Step()
		for j := range 2 {
			m[j] = 0.9*m[j] + 0.1*g[j]
			v[j] = 0.999*v[j] + 0.001*g[j]*g[j]
			mh := m[j] / (1 - math.Pow(0.9, float64(step+1)))
			vh := v[j] / (1 - math.Pow(0.999, float64(step+1)))
			want[j] -= 0.1 * mh / (math.Sqrt(vh) + 1e-8)
			if math.Abs(p.Data[j]-want[j]) > 1e-15 {
				t.Errorf("step %d param %d: %.17g, want %.17g", step+1, j, p.Data[j], want[j])
			}
			if p.Grad[j] != 0 {
				t.Errorf("step %d: gradient not cleared", step+1)
			}
		}
	}
}

func TestClipGradNorm(t *testing.T) {
	ps := NewParams()
	a, b := ps.New("a", 1, 2), ps.New("b", 1, 1)
	copy(a.Grad, []float64{3, 0})
	b.Grad[0] = 4
	if n := ClipGradNorm(ps, 10); n != 5 || a.Grad[0] != 3 {
		t.Fatalf("norm 5 under limit 10: got norm %g, grad %g", n, a.Grad[0])
	}
	if n := ClipGradNorm(ps, 1); n != 5 {
		t.Fatalf("norm %g, want 5", n)
	}
	if got := GradNorm(ps); math.Abs(got-1) > 1e-15 {
		t.Errorf("clipped norm %g, want 1", got)
	}
	if math.Abs(a.Grad[0]/b.Grad[0]-0.75) > 1e-15 {
		t.Errorf("clipping changed the gradient's direction: %v %v", a.Grad, b.Grad)
	}
}

func TestSGD(t *testing.T) {
	ps := NewParams()
	p := ps.New("p", 1, 1)
	p.Data[0], p.Grad[0] = 1, 2
	(&SGD{Params: ps, LR: 0.25}).Step()
	if p.Data[0] != 0.5 || p.Grad[0] != 0 {
		t.Errorf("after SGD: value %g grad %g, want 0.5 and 0", p.Data[0], p.Grad[0])
	}
}

func TestAdamConfigValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  AdamConfig
		ok   bool
	}{
		{"zero value means defaults", AdamConfig{}, true},
		{"negative rate", AdamConfig{LR: -1}, false},
		{"beta of one", AdamConfig{Beta2: 1}, false},
		{"negative clip", AdamConfig{MaxGradNorm: -1}, false},
	} {
		if err := c.cfg.Validate(); (err == nil) != c.ok {
			t.Errorf("%s: Validate() = %v", c.name, err)
		}
	}
}
