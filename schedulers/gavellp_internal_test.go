package schedulers

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/shareddata"
	"github.com/schedlab/schedlab/profiling"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestMaxMinByHand: Gavel's max-min program on cases solved by hand.
func TestMaxMinByHand(t *testing.T) {
	one := []float64{1}
	for _, tc := range []struct {
		name string
		jobs []gavelJob
		gpus []float64
		want [][]float64
		opt  float64
	}{
		// One type of 2 GPUs; jobs asking 1, 1 and 2 GPUs. The equal share
		// is 2/3 of a GPU's time each, so the normalised throughputs are
		// 1.5·x, 1.5·x and 3·x; capacity x1 + x2 + 2·x3 ≤ 2 binds at
		// t = 1 with x = (2/3, 2/3, 1/3): every job gets 2/3 of a GPU.
		{"homogeneous", []gavelJob{{gpus: 1, thr: one}, {gpus: 1, thr: one}, {gpus: 2, thr: one}}, []float64{2},
			[][]float64{{2. / 3}, {2. / 3}, {1. / 3}}, 1},
		// Two types of one GPU each, fast and slow; A and B run alike on
		// both, C three times faster on the fast one. Equal shares are
		// 1/3 of each type, so A and B are weighted 1/(2/3) and C 1/(4/3).
		// C has the comparative advantage on the fast GPU: the slow one
		// goes to A and B (1/2 each), the fast one is split, C c and A, B
		// (1−c)/2 each; 1.5·(1 − c/2) = 2.25·c gives c = 1/2 and t = 9/8.
		{"heterogeneous", []gavelJob{{gpus: 1, thr: []float64{1, 1}}, {gpus: 1, thr: []float64{1, 1}}, {gpus: 1, thr: []float64{3, 1}}},
			[]float64{1, 1}, [][]float64{{0.25, 0.5}, {0.25, 0.5}, {0.5, 0}}, 9. / 8},
		// Two types that run every job alike pool into one.
		{"pooled", []gavelJob{{gpus: 1, thr: []float64{1, 1}}, {gpus: 1, thr: []float64{1, 1}}, {gpus: 2, thr: []float64{1, 1}}},
			[]float64{1, 1}, [][]float64{{1. / 3, 1. / 3}, {1. / 3, 1. / 3}, {1. / 6, 1. / 6}}, 1},
	} {
		x, opt, err := maxMinAllocation(tc.jobs, tc.gpus)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !near(opt, tc.opt, 1e-9) {
			t.Errorf("%s: optimum %g, want %g", tc.name, opt, tc.opt)
		}
		for m := range x {
			for k := range x[m] {
				if !near(x[m][k], tc.want[m][k], 1e-9) {
					t.Errorf("%s: X = %v, want %v", tc.name, x, tc.want)
				}
			}
		}
	}
}

// TestFTFByHand: finish-time fairness by hand. Two GPUs; A (1 GPU, 100 s
// left, waited 50 s), B (1 GPU, 300 s left), C (2 GPUs, 100 s left), none
// run yet. Isolated shares are 2/3, 2/3 and 1/3, so the denominators are
// 150, 450 and 300 s and ρ_A = (50 + 100/x_A)/150, ρ_B = (2/3)/x_B, ρ_C =
// (1/3)/x_C. Equal ρ at full capacity: 100/(150ρ − 50) + (4/3)/ρ = 2, i.e.
// 9ρ² − 12ρ + 2 = 0, ρ = (2 + √2)/3, X = (2√2 − 2, 2 − √2, 1 − √2/2).
// Without the wait every job gets its isolated share and ρ = 1.
func TestFTFByHand(t *testing.T) {
	one := []float64{1}
	s2 := math.Sqrt2
	for _, tc := range []struct {
		name string
		wait float64
		rho  float64
		want []float64
	}{
		{"waited", 50, (2 + s2) / 3, []float64{2*s2 - 2, 2 - s2, 1 - s2/2}},
		{"fresh", 0, 1, []float64{2. / 3, 2. / 3, 1. / 3}},
	} {
		jobs := []gavelJob{{gpus: 1, thr: one, remainingS: 100, sinceS: tc.wait}, {gpus: 1, thr: one, remainingS: 300}, {gpus: 2, thr: one, remainingS: 100}}
		x, rho, err := ftfAllocation(jobs, []float64{2})
		if err != nil {
			t.Fatal(err)
		}
		if !near(rho, tc.rho, 1e-8) {
			t.Errorf("%s: ρ = %.10g, want %.10g", tc.name, rho, tc.rho)
		}
		for m := range x {
			if !near(x[m][0], tc.want[m], 1e-7) {
				t.Errorf("%s: X = %v, want %v", tc.name, x, tc.want)
			}
		}
		// The same jobs on two types that run them alike pool into one
		// type; on two types that differ the simplex decides, and must
		// find the same ρ when the fast type is no faster for anyone.
		split, rho2, err := ftfAllocation([]gavelJob{
			{gpus: 1, thr: []float64{1, 1}, remainingS: 100, sinceS: tc.wait},
			{gpus: 1, thr: []float64{1, 1}, remainingS: 300},
			{gpus: 2, thr: []float64{1, 1}, remainingS: 100}}, []float64{1, 1})
		if err != nil || !near(rho2, tc.rho, 1e-8) || !near(split[0][0]+split[0][1], tc.want[0], 1e-7) {
			t.Errorf("%s pooled: ρ = %g, X = %v (%v)", tc.name, rho2, split, err)
		}
	}
}

// TestFTFHeterogeneousLP: on two types that differ the bisection's
// programs go through the simplex. One job, one GPU of each type, the fast
// type twice as fast: the isolated share is 1/2 of each (throughput 1.5),
// so D = 100/1.5 and the job alone meets ρ = 1.5/2 = 0.75 on the fast GPU
// (throughput 2).
func TestFTFHeterogeneousLP(t *testing.T) {
	x, rho, err := ftfAllocation([]gavelJob{{gpus: 1, thr: []float64{2, 1}, remainingS: 100}}, []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	if !near(rho, 0.75, 1e-8) || !near(x[0][0], 1, 1e-7) {
		t.Errorf("ρ = %g, X = %v; want 0.75 on the fast GPU", rho, x)
	}
}

// TestGavelThroughputs: a model's ratio on a type is the geometric mean
// over its batch sizes of throughput there ÷ throughput on a V100; an
// unknown model or type runs at 1.
func TestGavelThroughputs(t *testing.T) {
	var ps []profiling.JobProfile
	for _, p := range []struct {
		typ, gpu string
		solo     float64
	}{
		{"ResNet-50 (batch size 16)", "v100", 8}, {"ResNet-50 (batch size 16)", "k80", 2},
		{"ResNet-50 (batch size 32)", "v100", 4}, {"ResNet-50 (batch size 32)", "k80", 0.25},
		{"A3C", "v100", 2}, {"A3C", "p100", 3},
	} {
		ps = append(ps, profiling.JobProfile{Type: p.typ, GPU: p.gpu, Solo: p.solo})
	}
	thr := GavelThroughputs(ps)
	for _, tc := range []struct {
		model, gpu string
		want       float64
	}{
		{"resnet-50", "K80", math.Sqrt(0.25 * 0.0625)}, // √(2/8 · 0.25/4) = 1/8
		{"ResNet-50", "v100", 1},
		{"a3c", "p100", 1.5},
		{"a3c", "k80", 1},        // not measured there
		{"vgg16", "k80", 1},      // not measured at all
		{"resnet-50", "dgx1", 1}, // not a Gavel type
	} {
		if got := thr(tc.model, tc.gpu); !near(got, tc.want, 1e-12) {
			t.Errorf("%s on %s: %g, want %g", tc.model, tc.gpu, got, tc.want)
		}
	}
}

// TestGavelThroughputsShared: Gavel's own file, where the shared data is
// present: a ResNet-50 is slower on a K80 and a P100 than on a V100.
func TestGavelThroughputsShared(t *testing.T) {
	file := shareddata.Path(t, GavelThroughputsFile)
	thr, err := gavelThroughputsIn(strings.TrimSuffix(file, GavelThroughputsFile))
	if err != nil {
		t.Fatal(err)
	}
	k80, p100, v100 := thr("resnet-50", "k80"), thr("resnet-50", "p100"), thr("resnet-50", "v100")
	if !(k80 < p100 && p100 < v100 && v100 == 1) {
		t.Errorf("resnet-50: k80 %g, p100 %g, v100 %g; want increasing to 1", k80, p100, v100)
	}
}

// TestMaxMinOneTypeMatchesSimplex: on one GPU type, water-filling
// (maxMinOneType) reaches the simplex's optimum t on random programs,
// with an X that meets every constraint; where the capacity binds below
// every class's bound the optimum X is unique, and the two agree on it.
func TestMaxMinOneTypeMatchesSimplex(t *testing.T) {
	rng := rand.New(rand.NewPCG(48, 6))
	sizes := []float64{0.25, 0.5, 1, 2, 4, 8}
	for trial := range 60 { // about 1 s under the race detector
		nc := 1 + rng.IntN(12)
		var pj []gavelJob
		reps := make([]int, nc)
		count := make([]float64, nc)
		m := 0
		for c := range nc {
			reps[c] = len(pj)
			count[c] = float64(1 + rng.IntN(5))
			m += int(count[c])
			pj = append(pj, gavelJob{gpus: sizes[rng.IntN(len(sizes))], thr: []float64{0.5 + rng.Float64()}})
		}
		n := float64(1 + rng.IntN(64))
		equal := proportionalShare([]float64{n}, m)
		x, opt, ok := maxMinOneType(pj, reps, count, equal[0], n)
		if !ok {
			t.Fatalf("trial %d: declined", trial)
		}
		xs, optS, err := maxMinSimplex(pj, reps, count, equal, []float64{n})
		if err != nil {
			t.Fatal(err)
		}
		if !near(opt, optS, 1e-9*max(1, optS)) {
			t.Fatalf("trial %d: t = %.12g, simplex %.12g", trial, opt, optS)
		}
		used, bound := 0.0, math.Inf(1)
		for c := range nc {
			j := pj[reps[c]]
			a := j.thr[0] * j.gpus / (j.thr[0] * equal[0])
			bound = min(bound, a)
			if x[c] < 0 || x[c] > 1 || a*x[c] < opt*(1-1e-12) {
				t.Fatalf("trial %d: class %d: x = %g, a·x = %g < t = %g", trial, c, x[c], a*x[c], opt)
			}
			used += count[c] * j.gpus * x[c]
		}
		if used > n*(1+1e-12) {
			t.Fatalf("trial %d: uses %g GPUs of %g", trial, used, n)
		}
		if opt < bound*(1-1e-9) {
			for c := range nc {
				if !near(x[c], xs[c], 1e-9) {
					t.Fatalf("trial %d: capacity binds, X = %v, simplex %v", trial, x, xs)
				}
			}
		}
	}
	// A class of no GPUs makes t* = 0: left to the simplex.
	if _, _, ok := maxMinOneType([]gavelJob{{gpus: 0, thr: []float64{1}}}, []int{0}, []float64{1}, 1, 4); ok {
		t.Error("a class of no GPUs was not left to the simplex")
	}
}
