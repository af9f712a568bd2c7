package fitting

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/schedlab/schedlab/internal/shareddata"
	"github.com/schedlab/schedlab/profiling"
)

// BenchmarkFitAll fits the five Table III models (FitModel: QR or grid
// start, then Levenberg–Marquardt) on 480 samples (the paper's count) and
// on 100,000. The side-by-side comparison with SciPy lives in
// fitting/internal/fitbench and fitting/testdata/scipy_fit.py.
func BenchmarkFitAll(b *testing.B) {
	for _, n := range []int{480, 100_000} {
		obs := synthObs(b, n, 1)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				for _, m := range Models() {
					f, err := FitModel(context.Background(), m, obs)
					if err != nil {
						b.Fatal(err)
					}
					if !f.Converged() {
						b.Fatalf("%s: %v", m.Name, f.Status)
					}
				}
			}
		})
	}
}

// BenchmarkMinimizeModel is Levenberg–Marquardt alone per model, from the
// same starts as the SciPy comparison (zeros for linear models, the grid
// start for the exponential ones).
func BenchmarkMinimizeModel(b *testing.B) {
	for _, n := range []int{480, 100_000} {
		benchMinimize(b, n)
	}
}

func benchMinimize(b *testing.B, n int) {
	obs := synthObs(b, n, 1)
	for _, m := range Models() {
		start := sharedStart(b, m, obs)
		b.Run(fmt.Sprintf("%s/n=%d", m.Name, n), func(b *testing.B) {
			for b.Loop() {
				r, err := MinimizeModel(context.Background(), m, obs, start)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(r.Iterations), "iters")
				b.ReportMetric(float64(r.Evaluations), "evals")
			}
		})
	}
}

// sharedStart is the start both benchmarks fit m from: the grid start for
// an exponential model, zeros for a linear one.
func sharedStart(b *testing.B, m Model, obs []Observation) []float64 {
	if m.Linear {
		return make([]float64, len(m.Params))
	}
	start, err := GridStart(m, obs)
	if err != nil {
		b.Fatal(err)
	}
	return start
}

// BenchmarkFitSciPyComparison is what fitbench times against SciPy's
// curve_fit: each Table III model fitted on 480 samples by FitModelFrom
// from the shared start (the grid start for the exponential models, zeros
// for the linear ones), as the fit stage fits it.
func BenchmarkFitSciPyComparison(b *testing.B) {
	obs := synthObs(b, 480, 1)
	for _, m := range Models() {
		start := sharedStart(b, m, obs)
		b.Run(m.Name, func(b *testing.B) {
			for b.Loop() {
				f, err := FitModelFrom(context.Background(), m, obs, start)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(f.Iterations), "iters")
			}
		})
	}
}

// BenchmarkImportFitShare is the import and fit of both measured
// GPU-sharing sources (Gavel, Lucid), as the pipeline's profile-gpu-share
// and fit stages run them: every form on every scope, every validation
// scheme. The bound is 10 s on 2 cores; read cpu-s/op on a shared
// machine.
func BenchmarkImportFitShare(b *testing.B) {
	gavel := shareddata.Path(b, "colocation/gavel_throughputs.json")
	dir := filepath.Dir(gavel)
	lucid := []string{filepath.Join(dir, "lucid_colocate_info.csv"), filepath.Join(dir, "lucid_single_data.csv")}
	ctx := context.Background()
	var ru0, ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	for range b.N {
		g, err := profiling.ImportShare(ctx, "gavel", []string{gavel})
		if err != nil {
			b.Fatal(err)
		}
		l, err := profiling.ImportShare(ctx, "lucid", lucid)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := RunShare(ctx, append(g.Samples, l.Samples...), DefaultConfig()); err != nil {
			b.Fatal(err)
		}
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := time.Duration(ru1.Utime.Nano()+ru1.Stime.Nano()-ru0.Utime.Nano()-ru0.Stime.Nano()) / time.Duration(b.N)
	b.ReportMetric(cpu.Seconds(), "cpu-s/op")
}
