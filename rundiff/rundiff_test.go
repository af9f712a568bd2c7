package rundiff

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
)

func TestFlatten(t *testing.T) {
	got, err := Flatten(json.RawMessage(`{"seed": 18446744073709551615, "eval": {"rates": [0.5, 1], "clusters": [{"name": "a", "spec": {"k": 4}}], "empty": {}}, "x": null}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"seed":                    "18446744073709551615", // a uint64 seed stays exact
		"eval.rates":              "[0.5,1]",              // a list of scalars is one value
		"eval.clusters[0].name":   `"a"`,
		"eval.clusters[0].spec.k": "4",
		"eval.empty":              "{}",
		"x":                       "null",
	}
	if len(got) != len(want) {
		t.Errorf("got %d keys %v, want %d", len(got), got, len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	ch := diffKeys(map[string]string{"a": "1", "b": "2"}, map[string]string{"b": "3", "c": "4"})
	if fmt.Sprint(ch) != "[{a 1 } {b 2 3} {c  4}]" {
		t.Errorf("diffKeys: %v", ch)
	}
}

func TestHolm(t *testing.T) {
	// Sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04
	// → 0.06 (running maximum keeps the order of rejections).
	got := holm([]float64{0.01, 0.04, 0.03, 0.005})
	want := []float64{0.03, 0.06, 0.06, 0.02}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-15 {
			t.Errorf("holm[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestWelch(t *testing.T) {
	// Equal variances (1) and sizes (3): Welch's df is exactly 2(n−1) = 4
	// and se = √(2/3). The shift d = t₄(0.975)·se puts p at 0.05 and the
	// 95 % interval's lower end at 0; t₄(0.975) = 2.776445 from the tables
	// (6 decimals: the tolerance).
	se := math.Sqrt(2.0 / 3)
	d := 2.776445 * se
	p, lo, hi := welch([]float64{-1, 0, 1}, []float64{d - 1, d, d + 1}, 0.05)
	if math.Abs(p-0.05) > 1e-6 || math.Abs(lo) > 1e-6 || math.Abs(hi-2*d) > 1e-6 {
		t.Errorf("welch: p %v lo %v hi %v; want 0.05, 0, %v", p, lo, hi, 2*d)
	}
	if p, lo, hi := welch([]float64{2, 2}, []float64{3, 3}, 0.05); p != 0 || lo != 1 || hi != 1 {
		t.Errorf("constant samples: p %v [%v, %v], want 0 [1, 1]", p, lo, hi)
	}
}

// fakeRun writes a run directory: one experiment "exp" whose cells
// (cluster c, workload w, schedulers s1 and s2) hold, per seed, the given
// per-job JCTs; job i of seed s is submitted at submit(s, i). The
// manifest lists every file with its hash.
type fakeRun struct {
	seed     uint64
	revision string
	jcts     map[string][][]float64 // scheduler → seed → per-job JCT
	submit   func(seed, i int) float64
	config   map[string]any
	extra    map[string]string // more output files: name → content
	key      string            // the stage's cache key; "" means "k"
	// replicates > 1 writes every cell that many times (the trained
	// models of train.seeds), replicate r's JCTs times 1 + r/10.
	replicates int
}

func (f fakeRun) write(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var res []evaluation.ResultRow
	var met []evaluation.MetricsRow
	for _, s := range []string{"s1", "s2"} {
		for seed, jobs := range f.jcts[s] {
			for r := range max(f.replicates, 1) {
				var sum float64
				for i, j := range jobs {
					j *= 1 + float64(r)/10
					res = append(res, evaluation.ResultRow{Experiment: "exp", Cluster: "c", Workload: "w", Scheduler: s, Seed: int32(seed), Replicate: int32(r),
						JobID: fmt.Sprintf("j%d", i), SubmitS: f.submit(seed, i), DurationS: 10, JCTS: j, GPUs: 1})
					sum += j
				}
				met = append(met, evaluation.MetricsRow{Experiment: "exp", Cluster: "c", Workload: "w", Scheduler: s, Seed: int32(seed), Replicate: int32(r),
					Jobs: int32(len(jobs)), MeanJCTS: sum / float64(len(jobs))})
			}
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "eval", "exp"), 0o755))
	must(datasets.WriteParquet(filepath.Join(dir, "eval/exp/results.parquet"), datasets.FileMeta{}, res))
	must(datasets.WriteParquet(filepath.Join(dir, "eval/exp/metrics.parquet"), datasets.FileMeta{}, met))
	must(os.WriteFile(filepath.Join(dir, "eval/exp/timings.parquet"), []byte(dir), 0o644)) // differs in every run
	names := []string{"eval/exp/results.parquet", "eval/exp/metrics.parquet", "eval/exp/timings.parquet"}
	for name, body := range f.extra {
		must(os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
		names = append(names, name)
	}
	var outs []pipeline.Artifact
	for _, n := range names {
		sum, size, err := pipeline.HashFile(filepath.Join(dir, n))
		must(err)
		outs = append(outs, pipeline.Artifact{Name: n, SHA256: sum, Bytes: size})
	}
	cfg := map[string]any{"out": dir, "seed": f.seed}
	for k, v := range f.config {
		cfg[k] = v
	}
	m := pipeline.Manifest{Status: "ok", Seed: f.seed, ConfigHash: "h", Config: cfg,
		Versions: pipeline.Versions{Go: "go", VCSRevision: f.revision},
		Stages:   []pipeline.StageManifest{{Name: "eval-exp", Version: "1", Key: cmp.Or(f.key, "k"), Status: "ran", Outputs: outs}}}
	b, err := json.MarshalIndent(m, "", "  ")
	must(err)
	must(os.WriteFile(filepath.Join(dir, ManifestFile), b, 0o644))
	return dir
}

// jobs draws n JCTs around mean from a seeded stream, times factor.
func jobs(seed uint64, n int, mean, factor float64) []float64 {
	r := rand.New(rand.NewPCG(seed, 7))
	out := make([]float64, n)
	for i := range out {
		out[i] = mean * (0.5 + r.Float64()) * factor
	}
	return out
}

func sameJobs(seed, i int) float64 { return float64(i) }

func compare(t *testing.T, a, b fakeRun, opt Options) *Diff {
	t.Helper()
	if opt.Thresholds == (Thresholds{}) {
		opt.Thresholds = DefaultThresholds()
	}
	d, err := Compare(context.Background(), a.write(t), b.write(t), opt)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func metricOf(t *testing.T, d *Diff, scheduler, name string) MetricDiff {
	t.Helper()
	for _, c := range d.Cells {
		if c.Key.Scheduler == scheduler {
			for _, m := range c.Metrics {
				if m.Metric == name {
					return m
				}
			}
		}
	}
	t.Fatalf("no %s of %s in %+v", name, scheduler, d.Cells)
	return MetricDiff{}
}

func TestCompareCells(t *testing.T) {
	base := fakeRun{seed: 1, revision: "r1", submit: sameJobs,
		jcts: map[string][][]float64{"s1": {jobs(1, 40, 100, 1)}, "s2": {jobs(2, 40, 100, 1)}}}

	t.Run("identical", func(t *testing.T) {
		d := compare(t, base, base, Options{})
		if !d.Identical() || d.Significant() {
			t.Fatalf("identical runs: identical %v significant %v", d.Identical(), d.Significant())
		}
		if md := d.Markdown(); !strings.Contains(md, "**No difference**") {
			t.Errorf("markdown lacks the verdict:\n%s", md)
		}
	})

	t.Run("paired", func(t *testing.T) {
		// s1 5 % slower on every job: significant. s2 0.1 % slower on
		// every job: the test is sure (p tiny) but the change is below
		// MinDelta (1 %), so it does not count.
		b := base
		b.revision = "r2"
		b.jcts = map[string][][]float64{"s1": {jobs(1, 40, 100, 1.05)}, "s2": {jobs(2, 40, 100, 1.001)}}
		d := compare(t, base, b, Options{})
		m1, m2 := metricOf(t, d, "s1", "mean_jct_s"), metricOf(t, d, "s2", "mean_jct_s")
		if m1.Method != MethodPaired || !m1.Significant || math.Abs(m1.Rel-0.05) > 1e-12 {
			t.Errorf("s1: %+v, want a significant paired +5 %%", m1)
		}
		if m2.Method != MethodPaired || m2.Significant || !(m2.PAdj < 0.01) {
			t.Errorf("s2: %+v, want a paired, sure but negligible change", m2)
		}
		// The fake jobs have no fee, queueing or slowdown: those tests
		// hold no difference and stay out of Holm's count.
		if !d.Significant() || d.Tests != 2 {
			t.Errorf("significant %v over %d tests; want true over 2 (the JCT of 2 cells)", d.Significant(), d.Tests)
		}
		md := d.Markdown()
		for _, want := range []string{"**Significant difference**", "| exp | c / w / s1 | mean_jct_s |", "+5 %", "paired Wilcoxon"} {
			if !strings.Contains(md, want) {
				t.Errorf("markdown lacks %q:\n%s", want, md)
			}
		}
	})

	t.Run("between seeds", func(t *testing.T) {
		// Different jobs (another trace), three seeds a side. s1 doubles:
		// significant; s2 redraws from the same distribution: noise.
		other := func(seed, i int) float64 { return 1000 + float64(i) }
		a := base
		a.jcts = map[string][][]float64{"s1": {jobs(1, 40, 100, 1), jobs(2, 40, 100, 1), jobs(3, 40, 100, 1)},
			"s2": {jobs(4, 40, 100, 1), jobs(5, 40, 100, 1), jobs(6, 40, 100, 1)}}
		b := base
		b.submit = other
		b.jcts = map[string][][]float64{"s1": {jobs(7, 40, 100, 2), jobs(8, 40, 100, 2), jobs(9, 40, 100, 2)},
			"s2": {jobs(10, 40, 100, 1), jobs(11, 40, 100, 1), jobs(12, 40, 100, 1)}}
		d := compare(t, a, b, Options{})
		m1, m2 := metricOf(t, d, "s1", "mean_jct_s"), metricOf(t, d, "s2", "mean_jct_s")
		if m1.Method != MethodSeeds || !m1.Significant || !(m1.Lo > 0 && m1.Lo < m1.Delta && m1.Delta < m1.Hi) {
			t.Errorf("s1: %+v, want a significant between-seed doubling with its interval around Δ", m1)
		}
		if m2.Method != MethodSeeds || m2.Significant || !(m2.Lo < 0 && m2.Hi > 0) {
			t.Errorf("s2: %+v, want noise: an interval across 0", m2)
		}
	})

	t.Run("constant seeds", func(t *testing.T) {
		// Two seeds a side that replay the same jobs alike: no spread, so
		// no test, however exact the difference looks.
		a := base
		a.jcts = map[string][][]float64{"s1": {jobs(1, 40, 100, 1), jobs(1, 40, 100, 1)}}
		b := base
		b.submit = func(seed, i int) float64 { return 1000 + float64(i) }
		b.jcts = map[string][][]float64{"s1": {jobs(1, 40, 100, 1.5), jobs(1, 40, 100, 1.5)}}
		d := compare(t, a, b, Options{})
		m := metricOf(t, d, "s1", "mean_jct_s")
		if m.Method != MethodSingle || !d.Cells[0].ConstantSeeds || len(d.Notes) != 1 {
			t.Errorf("%+v, notes %q: want a single sample from constant seeds, with a note", m, d.Notes)
		}
	})

	t.Run("single sample", func(t *testing.T) {
		b := base
		b.seed = 2
		b.submit = func(seed, i int) float64 { return 1000 + float64(i) }
		b.jcts = map[string][][]float64{"s1": {jobs(3, 40, 100, 1)}, "s2": {jobs(4, 40, 100, 1)}}
		d := compare(t, base, b, Options{})
		m := metricOf(t, d, "s1", "mean_jct_s")
		if m.Method != MethodSingle || !m.Significant || !math.IsNaN(m.P) {
			t.Errorf("s1: %+v, want an untested difference that counts", m)
		}
		if !d.Significant() || !strings.Contains(d.Markdown(), "**Differs, untested (single samples)**") || strings.Contains(d.Markdown(), "Significant difference") {
			t.Errorf("single samples beyond min-delta must count by default")
		}
		if d := compare(t, base, b, Options{AllowUntested: true}); d.Significant() {
			t.Errorf("AllowUntested: still significant")
		}
		if !strings.Contains(d.Markdown(), "| `seed` | `1` | `2` |") {
			t.Errorf("markdown lacks the seed key:\n%s", d.Markdown())
		}
	})

	t.Run("replicates", func(t *testing.T) {
		// Three trained models a side, each replaying the same 40 jobs:
		// replicate r pairs with replicate r, all 120 jobs, and the
		// models are the cell's samples.
		a := base
		a.replicates = 3
		d := compare(t, a, a, Options{})
		if c := d.Cells[0]; !d.Identical() || c.JobsA != 120 || c.Paired != 120 || c.SeedsA != 3 {
			t.Errorf("identical replicated runs: %+v", c)
		}
		b := a
		b.revision = "r2"
		b.jcts = map[string][][]float64{"s1": {jobs(1, 40, 100, 1.05)}, "s2": base.jcts["s2"]}
		d = compare(t, a, b, Options{})
		m := metricOf(t, d, "s1", "mean_jct_s")
		if c := d.Cells[0]; m.Method != MethodPaired || !m.Significant || math.Abs(m.Rel-0.05) > 1e-12 || c.Paired != 120 {
			t.Errorf("s1 %+v over %d pairs, want a significant paired +5 %% over 120", m, c.Paired)
		}
	})

	t.Run("cell in one run", func(t *testing.T) {
		b := base
		b.jcts = map[string][][]float64{"s1": base.jcts["s1"]}
		d := compare(t, base, b, Options{})
		if !d.Significant() || !strings.Contains(d.Markdown(), "only in A") {
			t.Errorf("a cell missing from B must be significant:\n%s", d.Markdown())
		}
	})
}

func TestCompareStages(t *testing.T) {
	base := fakeRun{seed: 1, revision: "r1", submit: sameJobs,
		jcts: map[string][][]float64{"s1": {jobs(1, 40, 100, 1)}}, extra: map[string]string{"model.json": "1"}}
	changed := base
	changed.extra = map[string]string{"model.json": "2"}
	for _, tc := range []struct {
		name string
		b    fakeRun
		want Cause
	}{
		{"same revision", changed, CauseNondeterminism},
		{"other revision", func() fakeRun { r := changed; r.revision = "r2"; return r }(), CauseCode},
		{"other seed", func() fakeRun { r := changed; r.seed = 2; return r }(), CauseSeed},
		{"unknown revision", func() fakeRun { r := changed; r.revision = ""; return r }(), CauseUnexplained},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := compare(t, base, tc.b, Options{})
			if len(d.Stages) != 1 || fmt.Sprint(d.Stages[0].Causes) != fmt.Sprint([]Cause{tc.want}) || fmt.Sprint(d.Stages[0].Outputs) != "[model.json]" {
				t.Fatalf("stages %+v, want eval-exp explained by %s with model.json differing", d.Stages, tc.want)
			}
			if !d.Stages[0].Unexplained() == (tc.want != CauseSeed) {
				t.Errorf("Unexplained() = %v", d.Stages[0].Unexplained())
			}
			if len(d.Artifacts) != 1 || d.Artifacts[0].Name != "model.json" {
				t.Errorf("artifacts %+v, want model.json only (timings are wall clock)", d.Artifacts)
			}
			if d.Significant() {
				t.Errorf("a byte difference alone is not significant without Bytes")
			}
		})
	}
	if d := compare(t, base, changed, Options{Bytes: true}); !d.Significant() {
		t.Errorf("Bytes: a differing artifact must be significant")
	}
}

// TestCompareKeyFormula: keys that differ while the stage's rebuilt
// configuration, version, inputs and seed agree are the code's doing when
// the revisions differ (the key's formula changed), and a configuration
// cause only when the configuration cannot be rebuilt.
func TestCompareKeyFormula(t *testing.T) {
	base := fakeRun{seed: 1, revision: "r1", submit: sameJobs, jcts: map[string][][]float64{"s1": {jobs(1, 40, 100, 1)}}}
	other := base
	other.revision, other.key = "r2", "k2"
	same := func(json.RawMessage) (map[string]json.RawMessage, error) {
		return map[string]json.RawMessage{"eval-exp": json.RawMessage(`{"x":1}`)}, nil
	}
	for _, tc := range []struct {
		name string
		opt  Options
		want Cause
	}{
		{"configuration rebuilt", Options{StageConfigs: same}, CauseKeyCode},
		{"configuration unknown", Options{}, CauseConfig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := compare(t, base, other, tc.opt)
			if len(d.Stages) != 1 || fmt.Sprint(d.Stages[0].Causes) != fmt.Sprint([]Cause{tc.want}) {
				t.Fatalf("stages %+v, want eval-exp explained by %s", d.Stages, tc.want)
			}
		})
	}
}

func TestCompareErrors(t *testing.T) {
	good := fakeRun{seed: 1, submit: sameJobs, jcts: map[string][][]float64{"s1": {{1, 2}}}}
	ctx := context.Background()
	opt := Options{Thresholds: DefaultThresholds()}

	empty := t.TempDir()
	if _, err := Compare(ctx, good.write(t), empty, opt); !errors.Is(err, ErrNotRun) || !strings.Contains(err.Error(), filepath.Join(empty, ManifestFile)) {
		t.Errorf("missing manifest: %v", err)
	}
	if _, err := Compare(ctx, good.write(t), filepath.Join(empty, "nope"), opt); err == nil || !strings.Contains(err.Error(), "no such run directory") {
		t.Errorf("missing directory: %v", err)
	}

	corrupt := good.write(t)
	p := filepath.Join(corrupt, ManifestFile)
	b, _ := os.ReadFile(p)
	os.WriteFile(p, b[:len(b)/2], 0o644)
	if _, err := Compare(ctx, good.write(t), corrupt, opt); err == nil || !strings.Contains(err.Error(), p+": line ") {
		t.Errorf("truncated manifest: %v, want the file named", err)
	}
	os.WriteFile(p, []byte("{\n\"status\": \"ok\",\n\"seed\": \"one\"\n}"), 0o644)
	if _, err := Compare(ctx, good.write(t), corrupt, opt); err == nil || !strings.Contains(err.Error(), p+": line 3: field seed") {
		t.Errorf("mistyped manifest: %v, want file, line and field", err)
	}

	tampered := good.write(t)
	os.WriteFile(filepath.Join(tampered, "eval/exp/metrics.parquet"), []byte("not parquet"), 0o644)
	if _, err := Compare(ctx, good.write(t), tampered, opt); err == nil || !strings.Contains(err.Error(), "eval/exp/metrics.parquet: sha256") {
		t.Errorf("file changed after the run: %v", err)
	}

	if _, err := Compare(ctx, good.write(t), good.write(t), Options{Thresholds: Thresholds{Alpha: 1.5, MinDelta: -1}}); err == nil ||
		!strings.Contains(err.Error(), "alpha") || !strings.Contains(err.Error(), "min-delta") {
		t.Errorf("bad thresholds: %v", err)
	}
}

func TestHTML(t *testing.T) {
	r := fakeRun{seed: 1, submit: sameJobs, jcts: map[string][][]float64{"s1": {{1, 2}}}}
	d := compare(t, r, r, Options{})
	page, err := d.HTML()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<!DOCTYPE html>", "<h1>schedlab diff</h1>", "<table>", "<strong>No difference</strong>"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
