package rundiff

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// Markdown renders the comparison for people: the verdict first, then
// what explains it.
func (d *Diff) Markdown() string {
	var b strings.Builder
	b.WriteString("# schedlab diff\n\n")
	b.WriteString("| | A | B |\n|---|---|---|\n")
	row := func(label, a, b2 string) { fmt.Fprintf(&b, "| %s | %s | %s |\n", label, a, b2) }
	row("run", code(d.A.Dir), code(d.B.Dir))
	row("revision", d.A.Revision, d.B.Revision)
	row("Go", d.A.Go, d.B.Go)
	row("preset", d.A.Preset, d.B.Preset)
	row("seed", strconv.FormatUint(d.A.Seed, 10), strconv.FormatUint(d.B.Seed, 10))
	row("status", d.A.Status, d.B.Status)
	row("config hash", code(short(d.A.ConfigHash)), code(short(d.B.ConfigHash)))
	b.WriteString("\n")
	d.verdict(&b)
	for _, n := range d.Notes {
		fmt.Fprintf(&b, "\n> Note: %s\n", n)
	}
	d.significantTable(&b)
	d.configSection(&b)
	d.stagesSection(&b)
	d.artifactsSection(&b)
	d.cellsSection(&b)
	return b.String()
}

func (d *Diff) verdict(b *strings.Builder) {
	tests := "no test had a difference to weigh"
	if d.Tests > 0 {
		tests = fmt.Sprintf("Holm-adjusted over %d tests", d.Tests)
	}
	th := fmt.Sprintf("alpha %s, %s; |Δ| ≥ %s", num(d.Thresholds.Alpha), tests, pct(d.Thresholds.MinDelta))
	var tested, untested, onlyOne, differ, single int
	for _, c := range d.Cells {
		switch cellVerdict(c) {
		case verdictOnlyOne:
			onlyOne++
		case verdictSignificant:
			tested++
		case verdictUntested:
			untested++
		case verdictSingle:
			single++
		}
		if !c.Identical() {
			differ++
		}
	}
	switch {
	case d.Identical():
		fmt.Fprintf(b, "**No difference**: every artifact but the wall-clock ones is byte-identical and every metric of the %d cells is equal.\n", len(d.Cells))
		return
	case d.Significant():
		var what []string
		if tested > 0 {
			what = append(what, fmt.Sprintf("%d cells differ significantly", tested))
		}
		if untested > 0 {
			what = append(what, fmt.Sprintf("%d cells differ by %s or more with nothing to test against (single sample: no jobs to pair — different jobs, or several trained models on one side against one on the other — and no spread on both sides to weigh the difference against, so noise cannot be ruled out; --allow-untested ignores them)", untested, pct(d.Thresholds.MinDelta)))
		}
		if onlyOne > 0 {
			what = append(what, fmt.Sprintf("%d cells are in one run only", onlyOne))
		}
		if d.Bytes && len(d.Artifacts) > 0 {
			what = append(what, fmt.Sprintf("%d artifacts differ (--bytes)", len(d.Artifacts)))
		}
		headline := "Significant difference"
		if tested == 0 && untested > 0 {
			// No test ran: what counts is a difference no test weighed.
			headline = "Differs, untested (single samples)"
		}
		fmt.Fprintf(b, "**%s** (%s): %s.\n", headline, th, strings.Join(what, "; "))
	default:
		fmt.Fprintf(b, "**No difference beyond the thresholds** (%s): %d of %d cells differ, none beyond the thresholds; %d artifacts differ.\n", th, differ, len(d.Cells), len(d.Artifacts))
		if single > 0 {
			fmt.Fprintf(b, "\n%d cells could not be tested (single sample) and do not count (--allow-untested or below --min-delta).\n", single)
		}
	}
}

// verdict is what a cell's row says of it.
type verdict string

const (
	verdictIdentical   verdict = "identical"
	verdictOnlyOne     verdict = "in one run only"
	verdictSignificant verdict = "**significant**"
	verdictUntested    verdict = "**differs, untested (single sample)**"
	verdictNoise       verdict = "within noise"
	verdictSingle      verdict = "single sample"
)

func cellVerdict(c CellDiff) verdict {
	switch {
	case !c.InA || !c.InB:
		return verdictOnlyOne
	case c.Identical():
		return verdictIdentical
	}
	var sig, untested, tested bool
	for _, m := range c.Metrics {
		sig = sig || (m.Significant && m.Tested())
		untested = untested || (m.Significant && !m.Tested())
		tested = tested || (m.Tested() && m.Delta != 0)
	}
	switch {
	case sig:
		return verdictSignificant
	case untested:
		return verdictUntested
	case tested:
		return verdictNoise
	}
	return verdictSingle
}

// maxSignificantRows keeps the summary at the top readable when every cell
// differs (another seed); the experiments' tables list them all.
const maxSignificantRows = 20

func (d *Diff) significantTable(b *strings.Builder) {
	var rows []string
	for _, c := range d.Cells {
		if !c.InA || !c.InB {
			rows = append(rows, fmt.Sprintf("| %s | %s | (cell) | %s | %s | | | |", c.Key.Experiment, c.Key, yes(c.InA, "present", "absent"), yes(c.InB, "present", "absent")))
			continue
		}
		for _, m := range c.Metrics {
			if m.Significant {
				rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s | %s |", c.Key.Experiment, c.Key, m.Metric, num(m.A), num(m.B), signedPct(m.Rel), m.Method, pval(m.PAdj)))
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	if len(rows) > maxSignificantRows {
		rows = append(rows[:maxSignificantRows], fmt.Sprintf("| … | %d more in the tables below | | | | | | |", len(rows)-maxSignificantRows))
	}
	b.WriteString("\n## Differences beyond the thresholds\n\n| experiment | cell | metric | A | B | Δ | test | p (Holm) |\n|---|---|---|---|---|---|---|---|\n")
	b.WriteString(strings.Join(rows, "\n") + "\n")
}

func (d *Diff) configSection(b *strings.Builder) {
	b.WriteString("\n## Configuration\n\n")
	if len(d.Config) == 0 {
		b.WriteString("The resolved configurations are equal.\n")
		return
	}
	if d.SameConfigHash {
		b.WriteString("The configuration hashes are equal: these keys change no output (where the run writes, how many workers, the preset's name).\n\n")
	}
	b.WriteString("| key | A | B |\n|---|---|---|\n")
	for _, k := range d.Config {
		fmt.Fprintf(b, "| %s | %s | %s |\n", code(k.Key), value(k.A), value(k.B))
	}
}

func (d *Diff) stagesSection(b *strings.Builder) {
	b.WriteString("\n## Stages\n\n")
	if len(d.Stages) == 0 {
		fmt.Fprintf(b, "No stage changed: all %d have the same configuration, inputs (wall-clock ones aside) and outputs.\n", d.StagesUnchanged)
		return
	}
	fmt.Fprintf(b, "%d stages have the same configuration, inputs (wall-clock ones aside) and outputs. A stage whose outputs differ with the same configuration, inputs and seed (in bold) is the one to look at: its code changed without a version bump, or it is not deterministic, or its cache served outputs that its key does not describe.\n\n", d.StagesUnchanged)
	b.WriteString("| stage | explained by | outputs that differ |\n|---|---|---|\n")
	for _, s := range d.Stages {
		var why []string
		for _, c := range s.Causes {
			w := string(c)
			switch c {
			case CauseConfig:
				if len(s.ConfigKeys) > 0 {
					w += ": " + keyList(s.ConfigKeys, 4)
				}
			case CauseInputs:
				w += ": " + codeList(s.Inputs, 3)
			case CauseCode, CauseNondeterminism, CauseUnexplained:
				w = "**" + w + "**"
			}
			why = append(why, w)
		}
		outs := "none"
		if len(s.Outputs) > 0 {
			outs = codeList(s.Outputs, 3)
		}
		fmt.Fprintf(b, "| %s | %s | %s |\n", s.Name, strings.Join(why, "; "), outs)
	}
}

func (d *Diff) artifactsSection(b *strings.Builder) {
	b.WriteString("\n## Artifacts\n\n")
	fmt.Fprintf(b, "%d identical, %d differ (the stages' outputs, by the manifests' sha256; the files beside manifest.json that it does not list, the report, hashed from disk).\n", d.ArtifactsSame, len(d.Artifacts))
	if len(d.Artifacts) > 0 {
		b.WriteString("\n| artifact | A | B | bytes A | bytes B | rows A | rows B |\n|---|---|---|---|---|---|---|\n")
		for _, a := range d.Artifacts {
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", code(a.Name),
				side(a.A, func(x string, _, _ int64) string { return code(short(x)) }), side(a.B, func(x string, _, _ int64) string { return code(short(x)) }),
				side(a.A, func(_ string, n, _ int64) string { return strconv.FormatInt(n, 10) }), side(a.B, func(_ string, n, _ int64) string { return strconv.FormatInt(n, 10) }),
				side(a.A, rowsOf), side(a.B, rowsOf))
		}
	}
	var wc []string
	for _, a := range d.WallClock {
		s := code(a.Name)
		switch {
		case a.Name == ManifestFile:
		case a.A == nil:
			s += " (only in B)"
		case a.B == nil:
			s += " (only in A)"
		case a.A.SHA256 == a.B.SHA256:
			s += " (identical)"
		}
		wc = append(wc, s)
	}
	fmt.Fprintf(b, "\nExpected to differ (wall-clock figures): %s.\n", strings.Join(wc, ", "))
}

func (d *Diff) cellsSection(b *strings.Builder) {
	if len(d.Cells) == 0 {
		b.WriteString("\n## Metrics\n\nNeither run has evaluation metrics (eval/<experiment>/metrics.parquet).\n")
		return
	}
	b.WriteString("\n## Metrics\n\nMeans over seeds, B − A. Tests: paired Wilcoxon signed-rank on the jobs both runs replayed; between seeds, Welch's t with its " +
		pct(1-d.Thresholds.Alpha) + " interval; single sample: no jobs to pair (different jobs, or replicates on one side only) and one sample on a side (one seed and one model, or seeds that all give the same value), nothing to test.\n")
	for i := 0; i < len(d.Cells); {
		j := i
		for j < len(d.Cells) && d.Cells[j].Key.Experiment == d.Cells[i].Key.Experiment {
			j++
		}
		experimentTable(b, d.Cells[i:j])
		i = j
	}
}

func experimentTable(b *strings.Builder, cells []CellDiff) {
	fmt.Fprintf(b, "\n### %s\n\n", cells[0].Key.Experiment)
	var same int
	var rows []string
	for _, c := range cells {
		if c.Identical() {
			same++
			continue
		}
		if !c.InA || !c.InB {
			rows = append(rows, fmt.Sprintf("| %s | %s | | | | | | %s |", c.Key, seeds(c), yes(c.InA, "only in A", "only in B")))
			continue
		}
		jct := c.Metrics[0]
		var others []string
		for _, m := range c.Metrics {
			if m.Metric != jct.Metric && m.Delta != 0 {
				s := m.Metric + " " + signedPct(m.Rel)
				if m.Significant {
					s = "**" + s + "**"
				}
				others = append(others, s)
			}
		}
		test := string(jct.Method)
		switch jct.Method {
		case MethodPaired:
			test = fmt.Sprintf("paired, %d of %d jobs", c.Paired, max(c.JobsA, c.JobsB))
		case MethodSeeds:
			test = fmt.Sprintf("seeds, Δ in [%s, %s]", num(jct.Lo), num(jct.Hi))
		}
		rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s | %s |", c.Key, num(jct.A), num(jct.B), signedPct(jct.Rel), test, pval(jct.PAdj), strings.Join(others, ", "), cellVerdict(c)))
	}
	fmt.Fprintf(b, "%d of %d cells identical.\n", same, len(cells))
	if len(rows) == 0 {
		return
	}
	b.WriteString("\n| cell (cluster / workload / scheduler) | mean JCT A (s) | B | Δ | test | p (Holm) | other metrics that differ | verdict |\n|---|---|---|---|---|---|---|---|\n")
	b.WriteString(strings.Join(rows, "\n") + "\n")
}

func seeds(c CellDiff) string { return fmt.Sprintf("%d / %d seeds", c.SeedsA, c.SeedsB) }

// HTML renders Markdown as a self-contained page.
func (d *Diff) HTML() ([]byte, error) {
	var body bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert([]byte(d.Markdown()), &body); err != nil {
		return nil, fmt.Errorf("rundiff: html: %w", err)
	}
	title := html.EscapeString("schedlab diff: " + d.A.Dir + " vs " + d.B.Dir)
	page := "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" + title + "</title>\n<style>" + css + "</style></head>\n<body>\n" + body.String() + "</body></html>\n"
	return []byte(page), nil
}

const css = `body{font-family:system-ui,sans-serif;max-width:80em;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
table{border-collapse:collapse;margin:1em 0;font-size:.9em}th,td{border:1px solid #ccc;padding:.25em .6em}
th{background:#f3f3f3}code{background:#f5f5f5;padding:0 .2em}blockquote{border-left:3px solid #e0a000;margin:1em 0;padding:0 1em}
h1{border-bottom:2px solid #ddd}h2{border-bottom:1px solid #eee;margin-top:2em}`

// num prints three significant digits, without an exponent below 10⁶.
func num(v float64) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case math.Abs(v) >= 1000 && math.Abs(v) < 1e6:
		return strconv.FormatFloat(math.Round(v), 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func pct(v float64) string { return num(100*v) + " %" }

func signedPct(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+∞ %"
	case math.IsInf(v, -1):
		return "−∞ %"
	case v > 0:
		return "+" + pct(v)
	}
	return pct(v)
}

func pval(p float64) string {
	switch {
	case math.IsNaN(p):
		return "–"
	case p < 0.001:
		return "< 0.001"
	}
	return strconv.FormatFloat(p, 'g', 2, 64)
}

// code quotes s as inline code that is safe in a table cell.
func code(s string) string {
	return "`" + strings.NewReplacer("`", "'", "|", `\|`, "\n", " ").Replace(s) + "`"
}

func value(s string) string {
	if s == "" {
		return "(absent)"
	}
	return code(s)
}

func yes(ok bool, a, b string) string {
	if ok {
		return a
	}
	return b
}

func codeList(names []string, limit int) string {
	var out []string
	for i, n := range names {
		if i == limit {
			out = append(out, fmt.Sprintf("and %d more", len(names)-limit))
			break
		}
		out = append(out, code(n))
	}
	return strings.Join(out, ", ")
}

func keyList(keys []KeyChange, limit int) string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.Key
	}
	return codeList(names, limit)
}

func side(a *pipeline.Artifact, f func(sum string, bytes, rows int64) string) string {
	if a == nil {
		return "(absent)"
	}
	return f(a.SHA256, a.Bytes, a.Rows)
}

func rowsOf(_ string, _, rows int64) string {
	if rows == 0 {
		return ""
	}
	return strconv.FormatInt(rows, 10)
}
