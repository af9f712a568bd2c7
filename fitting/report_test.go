package fitting

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/internal/parquettest"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/profiling"
)

func synthSamples(tb testing.TB, n int, seed uint64) []profiling.Sample {
	cfg := profiling.DefaultSynthConfig()
	cfg.Samples = n
	s, err := profiling.Synthesize(context.Background(), cfg, pipeline.RandSource(seed, "profile", "synthetic"))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func TestRunAndArtifacts(t *testing.T) {
	samples := synthSamples(t, 480, 1)
	samples = append(samples, profiling.Sample{SampleID: "bad", CPUCores: math.NaN(), CoresPerSocket: 8,
		CoRunners: []profiling.CoRunner{{Socket: "same", CPUCores: 1}}})
	rep, err := Run(context.Background(), samples, DefaultConfig(), pipeline.RandSource(1, "fit", "cv"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Samples != 481 || len(rep.Quarantined) != 1 || rep.Fits[0].N != 480 {
		t.Fatalf("accounting: %d in, %d quarantined, %d fitted", rep.Samples, len(rep.Quarantined), rep.Fits[0].N)
	}
	dir := t.TempDir()
	meta := datasets.FileMeta{Source: "synthetic", ConfigHash: "test"}
	if err := WriteArtifacts(context.Background(), dir, rep, meta); err != nil {
		t.Fatal(err)
	}
	// Byte-identical on a second run.
	rep2, _ := Run(context.Background(), samples, DefaultConfig(), pipeline.RandSource(1, "fit", "cv"))
	dir2 := t.TempDir()
	if err := WriteArtifacts(context.Background(), dir2, rep2, meta); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{CoefficientsFile, ModelFile, TableFile} {
		a, _ := os.ReadFile(filepath.Join(dir, f))
		b, _ := os.ReadFile(filepath.Join(dir2, f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s: not byte-identical across runs (%d vs %d bytes)", f, len(a), len(b))
		}
	}
	m, err := LoadModel(filepath.Join(dir, ModelFile))
	if err != nil {
		t.Fatal(err)
	}
	if !m.Converged || m.CoresPerSocket != 8 || m.Samples != 480 || m.Quarantined != 1 {
		t.Errorf("model.json: %+v", m)
	}
	md, _ := os.ReadFile(filepath.Join(dir, TableFile))
	for _, want := range []string{"13.1% (paper)", "Interference Model w/o CPU", "not a measurement of ours", "- 480 (bad): cpu_cores: not finite (NaN)"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("interference.md lacks %q:\n%s", want, md)
		}
	}
	// coefficients.parquet reads back with Arrow (plain allocator: see
	// datasets/jobs_test.go on arrow v15's decoder).
	tbl := parquettest.ReadTable(t, filepath.Join(dir, CoefficientsFile))
	if want := int64(5 + 15 + 6 + 4 + 3); tbl.NumRows() != want {
		t.Errorf("coefficients rows %d, want %d", tbl.NumRows(), want)
	}
}

func TestNonConvergedSaysSo(t *testing.T) {
	rep, err := Run(context.Background(), synthSamples(t, 200, 2), Config{Folds: 3, MaxIterations: 1}, pipeline.RandSource(1, "fit", "cv"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Converged() || rep.Model().Converged {
		t.Fatal("1-iteration fit reported as converged")
	}
	if md := string(rep.Markdown()); !strings.Contains(md, "**NOT CONVERGED** (iteration limit)") {
		t.Errorf("table does not flag the non-converged fit:\n%s", md)
	}
}

func TestAllQuarantined(t *testing.T) {
	s := synthSamples(t, 3, 1)
	for i := range s {
		s[i].CoRunners = nil
	}
	_, err := Run(context.Background(), s, DefaultConfig(), pipeline.RandSource(1, "fit", "cv"))
	if err == nil || !strings.Contains(err.Error(), "all 3 samples quarantined") {
		t.Errorf("got %v", err)
	}
}

// TestDefaultModelProvenance refits DefaultModel's coefficients from the
// documented samples. Tolerance 1e-6 relative: the fit converges far
// tighter, the slack covers floating-point differences across platforms.
func TestDefaultModelProvenance(t *testing.T) {
	obs, _ := Observations(synthSamples(t, 480, 1))
	m, _ := ModelByName(Ours)
	fit, err := FitModel(context.Background(), m, obs)
	if err != nil {
		t.Fatal(err)
	}
	for j, want := range defaultParams {
		if d := math.Abs(fit.Params[j]-want) / math.Max(math.Abs(want), 1e-12); d > 1e-6 {
			t.Errorf("%s: refit %.17g, DefaultModel %.17g", m.Params[j].Name, fit.Params[j], want)
		}
	}
	if err := DefaultModel().Validate(); err != nil {
		t.Error(err)
	}
}

func TestSlowdown(t *testing.T) {
	m := &InterferenceModel{CoresPerSocket: 8, Alpha1: 0.1, Alpha2: 0.2, Alpha3: 0.05, Beta1: 0.001, Beta2: 0.002, Lambda: -0.05}
	job := Load{CPUCores: 4, PCIeGbps: 30}
	tests := []struct {
		name        string
		same, other []Load
		want        float64
	}{
		{"alone", nil, nil, 0},
		// U_c = 3 + (10 − 8) = 5, U_p = 20.
		{"both sockets", []Load{{3, 20}}, []Load{{6, 50}, {4, 0}}, 0.1*math.Exp(0.2*5+0.05*4) + 0.001*20 + 0.002*30 - 0.05},
		// Other socket under its cores: U_c = 0, U_p = 0.
		{"other socket idle enough", nil, []Load{{2, 90}}, 0.1*math.Exp(0.05*4) + 0.002*30 - 0.05},
	}
	for _, tt := range tests {
		// Tolerance: a few ulps of the closed form.
		if got := m.Slowdown(job, tt.same, tt.other); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: S = %.15g, want %.15g", tt.name, got, tt.want)
		}
	}
	neg := *m
	neg.Lambda = -5
	if got := neg.Slowdown(job, []Load{{1, 1}}, nil); got != 0 {
		t.Errorf("negative prediction not floored: %g", got)
	}
}

func TestPredictRaw(t *testing.T) {
	m := DefaultModel()
	job := Load{CPUCores: 6, PCIeGbps: 40}
	alone := m.Predict(job, nil, nil, 0)
	want := m.Alpha1*math.Exp(m.Alpha3*6) + m.Beta2*40 + m.Lambda
	if math.Abs(alone-want) > 1e-15 {
		t.Errorf("Predict alone = %g, want %g", alone, want)
	}
	// n_core override: 10 other-socket cores spill 2 over 8 cores, none over 16.
	other := []Load{{CPUCores: 10}}
	if a, b := m.Predict(job, nil, other, 8), m.Predict(job, nil, other, 16); !(a > b) || b != alone {
		t.Errorf("n_core override: %g (8 cores) vs %g (16 cores), alone %g", a, b, alone)
	}
}
