package stages

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/claims"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
)

func TestPaperMargin(t *testing.T) {
	for _, tc := range []struct {
		text string
		want float64
		ok   bool
	}{
		{"≥ +24.3 %", 24.3, true},
		{"+10.0 % vs MALO", 10, true},
		{"JCT +5.3 % vs DA+RWGP; fee +0.8 % vs DA+RWGP", 5.3, true},
		{"−2 %", -2, true},
		{"JCT p = 0.0002, fee p = 0.0588", 0, false},
		{"multi-agent lower (bars only)", 0, false},
	} {
		r := claims.Row{Claim: claims.Claim{Claimed: tc.text}}
		if got, ok := paperMargin(r); ok != tc.ok || got != tc.want {
			t.Errorf("paperMargin(%q) = %v, %v; want %v, %v", tc.text, got, ok, tc.want, tc.ok)
		}
	}
}

func TestForestPlot(t *testing.T) {
	notRun := claims.Row{Claim: claims.Claim{ID: "a", Paper: evaluation.PaperDAS}, Outcome: claims.Outcome{Verdict: claims.NotRun, Value: math.NaN()}}
	if svg, png, err := forestPlot([]claims.Row{notRun}); err != nil || svg != nil || png != nil {
		t.Fatalf("no claim ran: %d, %d bytes, %v; want no plot", len(svg), len(png), err)
	}
	ran := claims.Row{Claim: claims.Claim{ID: "marl-x", Paper: evaluation.PaperMARL, Claimed: "≥ +24.3 %"},
		Outcome: claims.Outcome{Verdict: claims.Holds, Value: 30, Threshold: 20, Headroom: 40, HasCI: true, CI: evaluation.Interval{Mean: 30, Lo: 25, Hi: 35, N: 4}}}
	untestable := claims.Row{Claim: claims.Claim{ID: "marl-y", Paper: evaluation.PaperMARL},
		Outcome: claims.Outcome{Verdict: claims.Untestable, Value: 3, Threshold: 20, Headroom: 5.9, HasCI: true, CI: evaluation.Interval{Mean: 3, Lo: 2, Hi: 4, N: 4}}}
	svg, png, err := forestPlot([]claims.Row{notRun, ran, untestable})
	if err != nil || len(png) == 0 {
		t.Fatalf("a claim ran: %d bytes of PNG, %v", len(png), err)
	}
	for _, want := range []string{"marl-x", "MARL (TNSM 2021):", "ours: holds", "ours: untestable here", "paper&#39;s figure", "claim&#39;s threshold", "95 % interval of our margin", "the headroom: a scheduler at the floor"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("forest plot lacks %q", want)
		}
	}
	if strings.Contains(string(svg), ">a<") {
		t.Errorf("forest plot draws a claim that did not run")
	}
}

func TestDecorate(t *testing.T) {
	body := "<h1 id=\"r\">R</h1>\n<p>intro</p>\n<h2 id=\"claims\">Claims</h2>\n<h3 id=\"ran\">Ran</h3>\n<table><tr><td><strong>holds</strong></td><td><strong>does not hold (n = 1)</strong></td><td><strong>untestable here (headroom 5.9 % &lt; claimed 20.0 %)</strong></td></tr></table>\n<h2 id=\"prov\">Provenance</h2>\n"
	got := decorate(body)
	for _, want := range []string{
		`<span class="verdict v-holds">holds</span>`,
		`<span class="verdict v-no">does not hold</span> (n = 1)`,
		`<span class="verdict v-untestable">untestable here</span> (headroom 5.9 % &lt; claimed 20.0 %)`,
		`<li><a href="#claims">Claims</a></li>`, `<li><a href="#prov">Provenance</a></li>`,
		`<a class="anchor" href="#ran"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("decorated body lacks %s:\n%s", want, got)
		}
	}
	if toc, intro := strings.Index(got, `<nav class="toc">`), strings.Index(got, "<p>intro</p>"); toc < intro {
		t.Errorf("the contents come before the opening paragraph")
	}
	if strings.Contains(got, `href="#ran">Ran</a></li>`) {
		t.Errorf("the contents list a subsection")
	}
}

// A fully cached rerun adds its figures to report-timings.md and keeps
// those of the run that made the outputs.
func TestTimingsKeptOnCachedRerun(t *testing.T) {
	dir := t.TempDir()
	cfg := quickConfig()
	first := &pipeline.Manifest{Status: "ok", WallS: 12.5, Stages: []pipeline.StageManifest{{Name: "fit", Status: "ran", WallS: 3.25}}}
	if err := writeTimings(dir, cfg, first); err != nil {
		t.Fatal(err)
	}
	rerun := &pipeline.Manifest{Status: "ok", WallS: 0.1, Date: "2026-11-27T10:00:00Z", Stages: []pipeline.StageManifest{{Name: "fit", Status: "cached", Cached: true}}}
	if err := writeTimings(dir, cfg, rerun); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ReportTimings))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"(1 ran, 0 cached) in 12.5 s", "| fit | ran | 3.25 |", "## A rerun from the cache (2026-11-27T10:00:00Z)", "all cached, in 0.1 s"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %q:\n%s", ReportTimings, want, b)
		}
	}
	// A run that ran a stage made outputs: its figures replace the file.
	if err := writeTimings(dir, cfg, first); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ReportTimings)); strings.Contains(string(b), "rerun from the cache") {
		t.Errorf("a run that ran stages kept an older rerun's note:\n%s", b)
	}
}
