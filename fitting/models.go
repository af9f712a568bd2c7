package fitting

import "math"

// Param names one coefficient of a Model and its unit.
type Param struct {
	Name string `json:"name"`
	Unit string `json:"unit"`
}

// Model is one of the interference model families of the MARL paper's
// Table III: a function of an Observation's inputs (UC, CJ, UP, PJ) and a
// parameter vector, predicting the slowdown S.
type Model struct {
	Name   string  // stable key: ours, ours-no-pcie, ours-no-cpu, tracon-linear, tracon-quadratic
	Label  string  // the Table III row label
	Params []Param // in the order of the parameter vector
	// Linear models are linear in their parameters and fitted by QR.
	Linear bool
	// Paper is the prediction error the MARL paper's Table III reports
	// for this model (a fraction), shown beside ours, labelled as the paper's.
	Paper float64
	// Lower and Upper bound the parameters of nonlinear models (nil: none).
	Lower, Upper []float64

	eval func(p []float64, o *Observation) float64
	grad func(dst, p []float64, o *Observation) // ∂f/∂p

	// For the exponential models, the same functions given e =
	// exp(α2·UC + α3·CJ), so that a fit can reuse the exponentials of the
	// residual evaluation in the Jacobian at the same point (nil otherwise).
	evalE func(p []float64, o *Observation, e float64) float64
	gradE func(dst, p []float64, o *Observation, e float64)
}

// expTerm is the exponential of the CPU term of ours and ours-no-pcie.
func expTerm(p []float64, o *Observation) float64 { return math.Exp(p[1]*o.UC + p[2]*o.CJ) }

// Predict returns the model's slowdown for o under parameters p.
func (m *Model) Predict(p []float64, o Observation) float64 { return m.eval(p, &o) }

// Model names.
const (
	Ours            = "ours"
	OursNoPCIe      = "ours-no-pcie"
	OursNoCPU       = "ours-no-cpu"
	TraconLinear    = "tracon-linear"
	TraconQuadratic = "tracon-quadratic"
)

var (
	unitless    = "1"
	perCore     = "1/core"
	perGbps     = "1/(Gbit/s)"
	perCore2    = "1/core^2"
	perGbps2    = "1/(Gbit/s)^2"
	perCoreGbps = "1/(core·Gbit/s)"
)

// Models returns the five models of Table III in the paper's row order.
//
// "ours" is S = α1·exp(α2·UC + α3·CJ) + β1·UP + β2·PJ + λ. The paper's
// S_cpu + S_p has two constants λ1 + λ2; only their sum is identifiable
// from slowdowns, so it is one parameter λ here. α1 is bounded to ≥ 0 (a
// CPU term that shrinks as interference grows is unphysical) and α2, α3
// to [−5, 5] per core (exp overflows far beyond).
//
// TRACON (Chiang & Huang, SC'11) models a VM's performance as a linear or
// quadratic function of its own and its neighbours' resource use; here the
// same four inputs as ours (UC, CJ, UP, PJ) so that only the functional
// form differs: linear has 5 coefficients, quadratic 15 (constant, 4
// linear, 4 squares, 6 cross products).
func Models() []Model {
	return []Model{traconLinear(), traconQuadratic(), ours(), oursNoPCIe(), oursNoCPU()}
}

// ModelByName returns the named model of Models.
func ModelByName(name string) (Model, bool) {
	for _, m := range Models() {
		if m.Name == name {
			return m, true
		}
	}
	return Model{}, false
}

func ours() Model {
	inf := math.Inf(1)
	return Model{
		Name: Ours, Label: "Interference Model (ours)", Paper: 0.131,
		Params: []Param{{"alpha1", unitless}, {"alpha2", perCore}, {"alpha3", perCore},
			{"beta1", perGbps}, {"beta2", perGbps}, {"lambda", unitless}},
		Lower: []float64{0, -5, -5, -inf, -inf, -inf},
		Upper: []float64{inf, 5, 5, inf, inf, inf},
		eval:  func(p []float64, o *Observation) float64 { return oursE(p, o, expTerm(p, o)) },
		grad:  func(d, p []float64, o *Observation) { oursGradE(d, p, o, expTerm(p, o)) },
		evalE: oursE,
		gradE: oursGradE,
	}
}

func oursE(p []float64, o *Observation, e float64) float64 {
	return p[0]*e + p[3]*o.UP + p[4]*o.PJ + p[5]
}

func oursGradE(d, p []float64, o *Observation, e float64) {
	d[0], d[1], d[2] = e, p[0]*e*o.UC, p[0]*e*o.CJ
	d[3], d[4], d[5] = o.UP, o.PJ, 1
}

func oursNoPCIe() Model {
	inf := math.Inf(1)
	return Model{
		Name: OursNoPCIe, Label: "Interference Model w/o PCIe", Paper: 0.275,
		Params: []Param{{"alpha1", unitless}, {"alpha2", perCore}, {"alpha3", perCore}, {"lambda", unitless}},
		Lower:  []float64{0, -5, -5, -inf},
		Upper:  []float64{inf, 5, 5, inf},
		eval:   func(p []float64, o *Observation) float64 { return noPCIeE(p, o, expTerm(p, o)) },
		grad:   func(d, p []float64, o *Observation) { noPCIeGradE(d, p, o, expTerm(p, o)) },
		evalE:  noPCIeE,
		gradE:  noPCIeGradE,
	}
}

func noPCIeE(p []float64, _ *Observation, e float64) float64 { return p[0]*e + p[3] }

func noPCIeGradE(d, p []float64, o *Observation, e float64) {
	d[0], d[1], d[2], d[3] = e, p[0]*e*o.UC, p[0]*e*o.CJ, 1
}

func oursNoCPU() Model {
	return Model{
		Name: OursNoCPU, Label: "Interference Model w/o CPU", Paper: 0.363, Linear: true,
		Params: []Param{{"beta1", perGbps}, {"beta2", perGbps}, {"lambda", unitless}},
		eval:   func(p []float64, o *Observation) float64 { return p[0]*o.UP + p[1]*o.PJ + p[2] },
		grad:   func(d, _ []float64, o *Observation) { d[0], d[1], d[2] = o.UP, o.PJ, 1 },
	}
}

func traconLinear() Model {
	return Model{
		Name: TraconLinear, Label: "Linear Model (TRACON-Linear)", Paper: 0.246, Linear: true,
		Params: []Param{{"c0", unitless}, {"c_uc", perCore}, {"c_cj", perCore}, {"c_up", perGbps}, {"c_pj", perGbps}},
		eval: func(p []float64, o *Observation) float64 {
			return p[0] + p[1]*o.UC + p[2]*o.CJ + p[3]*o.UP + p[4]*o.PJ
		},
		grad: func(d, _ []float64, o *Observation) { d[0], d[1], d[2], d[3], d[4] = 1, o.UC, o.CJ, o.UP, o.PJ },
	}
}

// quadTerms lists the 15 monomials of TRACON-quadratic over (UC, CJ, UP, PJ).
func quadTerms(d []float64, o *Observation) {
	x := [4]float64{o.UC, o.CJ, o.UP, o.PJ}
	d[0] = 1
	k := 1
	for i := 0; i < 4; i++ {
		d[k] = x[i]
		k++
	}
	for i := 0; i < 4; i++ {
		for j := i; j < 4; j++ {
			d[k] = x[i] * x[j]
			k++
		}
	}
}

func traconQuadratic() Model {
	names := []string{"uc", "cj", "up", "pj"}
	units := []string{"core", "core", "Gbit/s", "Gbit/s"}
	params := []Param{{"c0", unitless}}
	for i, n := range names {
		params = append(params, Param{"c_" + n, "1/" + paren(units[i])})
	}
	for i := 0; i < 4; i++ {
		for j := i; j < 4; j++ {
			u := perCoreGbps
			switch {
			case units[i] == "core" && units[j] == "core":
				u = perCore2
			case units[i] != "core" && units[j] != "core":
				u = perGbps2
			}
			params = append(params, Param{"c_" + names[i] + "_" + names[j], u})
		}
	}
	return Model{
		Name: TraconQuadratic, Label: "Quad Model (TRACON-Nonlinear)", Paper: 0.229, Linear: true,
		Params: params,
		eval: func(p []float64, o *Observation) float64 {
			var d [15]float64
			quadTerms(d[:], o)
			s := 0.0
			for i, v := range d {
				s += p[i] * v
			}
			return s
		},
		grad: func(d, _ []float64, o *Observation) { quadTerms(d, o) },
	}
}

func paren(u string) string {
	if u == "core" {
		return u
	}
	return "(" + u + ")"
}
