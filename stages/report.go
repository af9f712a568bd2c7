package stages

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/claims"
	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/plan"
	"github.com/schedlab/schedlab/training"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	goldhtml "github.com/yuin/goldmark/renderer/html"
)

// Report files written into the run directory after a successful run.
const (
	ReportMarkdown = "report.md"
	ReportHTML     = "report.html"
	// ReportTimings holds the run's wall-clock figures, kept out of
	// report.md and report.html so that those are byte-identical across
	// runs of the same inputs, configuration and seed.
	ReportTimings = "report-timings.md"
)

// wallClock says whether an artifact holds wall-clock figures.
var wallClock = pipeline.WallClock

// reportSection is one headline table of the report: a Markdown table the
// run wrote and the plot that goes with it.
type reportSection struct {
	title, table, plot, why string
}

// sections lists, in reading order, what the report shows when the run
// produced it: each configured experiment's registered section, followed
// by those of the experiments derived from it, then the interference
// model's table and the job trace's summary.
func (c *Config) sections() []reportSection {
	var s []reportSection
	for _, id := range c.Eval.Experiments {
		e, err := evaluation.Lookup(id)
		if err != nil {
			continue // Validate rejects it
		}
		for _, e := range append([]evaluation.Experiment{e}, evaluation.DerivedFrom(id)...) {
			if wallClock(e.TableFiles()[0]) {
				continue // in report-timings.md
			}
			sec := reportSection{title: e.Section.Title, table: e.TableFiles()[0], why: e.Section.Text}
			if p := e.PlotFiles(); len(p) > 0 {
				sec.plot = p[1] // the PNG: report.html embeds it
			}
			s = append(s, sec)
		}
	}
	return append(s,
		reportSection{"Prediction error of five interference models (MARL Table III)", FitTable, "",
			"Five model families fitted by least squares to the co-location samples; error on held-out folds. The paper's figures are labelled."},
		reportSection{"The job trace the experiments replay", JobsSummary, "", "The trace the experiments replay."})
}

// WriteReport writes report.md and report.html into the run directory: the
// claims scoreboard (opening with the forest plot of the claims that ran,
// plots/claims-forest.{svg,png}), what was run on which data, the headline
// tables with their plots, and the provenance from the manifest (config
// hash, versions, every input and output with its sha256, folded away).
// report.html is one self-contained file with the plots embedded, a table
// of contents, an anchor on every heading and the verdicts coloured. Neither holds a wall-clock figure: the run's and each
// stage's wall time, the timings files and the tables made from them are
// in report-timings.md, so that the report of a run is byte-identical to
// that of any other run of the same inputs, configuration, seed and code.
func WriteReport(dir string, cfg *Config, m *pipeline.Manifest) error {
	if err := writeTimings(dir, cfg, m); err != nil {
		return err
	}
	notLearned, err := cfg.notLearned(dir)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	rows, err := claims.Write(dir, claims.Run{Config: &cfg.Eval, Seed: m.Seed, Trace: cfg.Datasets.Source, Episodes: learnedEpisodes(cfg),
		TrainArrivals: training.TrainingArrivals(cfg.Train.Sections), NotLearned: notLearned})
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	forest := false
	if svg, png, err := forestPlot(rows); err != nil {
		return fmt.Errorf("report: forest plot: %w", err)
	} else if png != nil {
		for _, f := range []struct {
			name string
			data []byte
		}{{ClaimsForestSVG, svg}, {ClaimsForestPNG, png}} {
			if err := pipeline.WriteFileAtomic(filepath.Join(dir, filepath.FromSlash(f.name)), f.data); err != nil {
				return err
			}
		}
		forest = true
	}
	rep := report{dir: dir, cfg: cfg, m: m, rows: rows, forest: forest}
	var images []string // the plots the report shows, embedded in report.html
	md := rep.markdown(func(p string) string {
		images = append(images, p)
		return p
	})
	if err := pipeline.WriteFileAtomic(filepath.Join(dir, ReportMarkdown), []byte(md)); err != nil {
		return err
	}
	var body bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM),
		goldmark.WithParserOptions(parser.WithAutoHeadingID()),
		// The Markdown is the report's own (its <details> folds).
		goldmark.WithRendererOptions(goldhtml.WithUnsafe()))
	if err := gm.Convert([]byte(md), &body); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	page := "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>schedlab run report: " +
		html.EscapeString(cfg.Preset) + "</title>\n<style>" + reportCSS + "</style></head>\n<body>\n" + embedImages(decorate(body.String()), dir, images) + "</body></html>\n"
	return pipeline.WriteFileAtomic(filepath.Join(dir, ReportHTML), []byte(page))
}

const reportCSS = `body{font-family:system-ui,sans-serif;max-width:72em;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
table{border-collapse:collapse;margin:1em 0;font-size:.9em}th,td{border:1px solid #ccc;padding:.25em .6em;vertical-align:top}
th{background:#f3f3f3;white-space:nowrap}img{max-width:100%;height:auto}
div.wide{overflow-x:auto;max-width:100%;margin:1em 0}div.wide>table{margin:0}
code{background:#f5f5f5;padding:0 .2em;overflow-wrap:anywhere}h1{border-bottom:2px solid #ddd}h2{border-bottom:1px solid #eee;margin-top:2em}
h2 a.anchor,h3 a.anchor{color:#bbb;text-decoration:none;margin-left:.4em;font-weight:normal}
nav.toc{background:#fafafa;border:1px solid #eee;padding:.5em 1em;margin:1em 0}nav.toc ol{margin:.2em 0;padding-left:1.5em}
.verdict{display:inline-block;padding:0 .45em;border-radius:.3em;color:#fff;font-weight:bold;white-space:nowrap}
.v-holds{background:#009e73}.v-no{background:#d55e00}.v-inconclusive{background:#888}.v-untestable{background:#0072b2}
td:first-child code{white-space:nowrap}details{margin:1em 0}summary{cursor:pointer;font-weight:bold}`

// report is what one run's report is made of.
type report struct {
	dir    string
	cfg    *Config
	m      *pipeline.Manifest
	rows   []claims.Row
	forest bool // plots/claims-forest.png was written
}

func (r *report) markdown(image func(string) string) string {
	var b strings.Builder
	dir, cfg, m := r.dir, r.cfg, r.m
	outputs := map[string]pipeline.Artifact{}
	var external []pipeline.Artifact
	seen := map[string]bool{}
	for _, s := range m.Stages {
		for _, o := range s.Outputs {
			outputs[o.Name] = o
		}
		for _, in := range s.Inputs {
			if in.External && !seen[in.Name] {
				seen[in.Name] = true
				external = append(external, in)
			}
		}
	}
	v := m.Versions
	fmt.Fprintf(&b, "# schedlab run report\n\n")
	fmt.Fprintf(&b, "Preset **%s**, seed %d, status **%s**; %d stages. "+
		"Configuration hash `%s`; schedlab %s, revision %s, %s. Wall-clock figures: `%s`.\n\n",
		cfg.Preset, m.Seed, m.Status, len(m.Stages), m.ConfigHash, v.Module, v.Revision(), v.Go, ReportTimings)

	r.scoreboard(&b, image)

	b.WriteString("## What was run, on which data\n\n")
	trace := cfg.JobsArtifact()
	if cfg.Datasets.Source == SyntheticPAI {
		fmt.Fprintf(&b, "- Job trace: the seeded PAI-like generator (%d jobs; its distributions were measured on the PAI 6,000-job subset), `%s`.\n", cfg.Datasets.Synthetic.Jobs, trace)
	} else {
		fmt.Fprintf(&b, "- Job trace: `%s` (%d rows), ingested from the %s trace.\n", trace, outputs[trace].Rows, cfg.Datasets.Source)
	}
	if len(cfg.Datasets.Ingest) > 0 {
		b.WriteString("- Real traces ingested (every input row is in a table or in quarantine with its file, line, field and reason):\n\n")
		b.WriteString("| source | inputs | tables (rows) | quarantined rows |\n|---|---|---|---:|\n")
		for _, spec := range cfg.Datasets.Ingest {
			var tables []string
			quarantined := int64(0)
			for _, name := range sortedArtifactNames(outputs, IngestDir(spec.Source)+"/") {
				a := outputs[name]
				if path.Base(name) == "quarantine.parquet" {
					quarantined = a.Rows
					continue
				}
				tables = append(tables, fmt.Sprintf("%s (%d)", path.Base(name), a.Rows))
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %d |\n", spec.Source, strings.Join(spec.Inputs, ", "), strings.Join(tables, ", "), quarantined)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "- Interference samples: %d synthetic co-location samples (a ground truth outside the fitted families), %d-fold cross-validation.\n",
		outputs[ProfileSamples].Rows, cfg.Fit.Folds)
	if len(cfg.Eval.Experiments) > 0 {
		fmt.Fprintf(&b, "- Experiments: %s; %d seed(s) per cell; per-job results in `%s` (%d rows), per-cell metrics in `%s`.\n",
			strings.Join(cfg.Eval.Experiments, ", "), cfg.Eval.Seeds, EvalResults, outputs[EvalResults].Rows, EvalMetrics)
	}
	b.WriteString("\n")

	for _, s := range cfg.sections() {
		md, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(s.table)))
		if err != nil {
			continue
		}
		fmt.Fprintf(&b, "## %s\n\n%s Source: `%s`.\n\n", s.title, s.why, s.table)
		b.WriteString(demoteHeadings(stripTitle(string(md)), 2))
		b.WriteString("\n")
		if s.plot != "" {
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(s.plot))); err == nil {
				fmt.Fprintf(&b, "![%s](%s)\n\n", s.title, image(s.plot))
			}
		}
	}

	b.WriteString("## Provenance\n\n")
	b.WriteString("Same inputs, configuration, seed and code give byte-identical tables, Parquet files, plots and this report; only files named `timings`, `manifest.json` and `" + ReportTimings + "` hold wall-clock figures.\n\n")
	if len(external) > 0 {
		b.WriteString("External inputs:\n\n| input | sha256 | bytes |\n|---|---|---:|\n")
		for _, a := range external {
			fmt.Fprintf(&b, "| `%s` | `%s` | %d |\n", a.Name, a.SHA256, a.Bytes)
		}
		b.WriteString("\n")
	}
	n := 0
	for name := range outputs {
		if !wallClock(name) {
			n++
		}
	}
	fmt.Fprintf(&b, "<details><summary>Outputs: %d files with their sha256 (wall-clock ones in <code>%s</code>)</summary>\n\n", n, ReportTimings)
	outputsTable(&b, outputs, func(name string) bool { return !wallClock(name) })
	b.WriteString("\n</details>\n")
	return b.String()
}

// scoreboard is the report's first section: the forest plot of the claims
// that ran, their table with the verdicts, the claims not run one line
// per reason, and the rule.
func (r *report) scoreboard(b *strings.Builder, image func(string) string) {
	var ran, notRun []claims.Row
	count := map[claims.Verdict]int{}
	for _, row := range r.rows {
		count[row.Verdict]++
		if !row.Verdict.Tested() { // not run, or not comparable
			notRun = append(notRun, row)
		} else {
			ran = append(ran, row)
		}
	}
	why := "the cells' headroom is below the claimed margin"
	if claims.SetAside(r.rows) {
		why += ", or the claimed model did not learn"
	}
	fmt.Fprintf(b, "## Claims scoreboard\n\n")
	fmt.Fprintf(b, "%d claims of the two papers; this run tested %d: %d hold, %d do not hold, %d inconclusive, %d untestable here (%s). "+
		"Source: `%s` (for scripts: `%s`).\n\n",
		len(r.rows), len(ran), count[claims.Holds], count[claims.DoesNotHold], count[claims.Inconclusive], count[claims.Untestable], why, claims.MarkdownFile, claims.CSVFile)
	if r.forest {
		fmt.Fprintf(b, "![Claims that ran: our margin beside the paper's figure](%s)\n\n", image(ClaimsForestPNG))
		b.WriteString("One row per claim that ran with a margin, grouped by paper: our margin (a dot, coloured by the verdict) with its 95 % interval (a bar, where the claim has samples to make one), the paper's figure (a triangle, where the paper gives one in per cent), the claim's threshold (a vertical tick) and the headroom (a grey square: the margin a scheduler at the floor would have, the most any could show in those cells).")
		if claims.SetAside(r.rows) {
			b.WriteString(" A cross over the dot: the claimed model did not learn, and the verdict is set aside (untestable here).")
		}
		var off []string
		for _, row := range ran {
			if !plotted(row) {
				off = append(off, "`"+row.ID+"`")
			}
		}
		if len(off) > 0 {
			fmt.Fprintf(b, " Not drawn, having no single margin (calibration targets, p-values): %s.", strings.Join(off, ", "))
		}
		b.WriteString("\n\n")
	}
	if len(ran) > 0 {
		fmt.Fprintf(b, "### Claims this run tested (%d)\n\n", len(ran))
		b.WriteString("| id | source | claim | paper | ours | 95 % CI | tested at | verdict |\n|---|---|---|---|---|---|---|---|\n")
		var notes []string
		for _, row := range ran {
			cells := []string{"`" + row.ID + "`", row.Source, row.Text, row.PaperFigure(), row.Ours, row.CIText(), row.TestedAt, "**" + row.VerdictText() + "**"}
			for i, c := range cells {
				if c == "" {
					c = "—"
				}
				cells[i] = cellEscaper.Replace(c)
			}
			b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
			if row.Note != "" {
				notes = append(notes, fmt.Sprintf("`%s`: %s", row.ID, row.Note))
			}
		}
		b.WriteString("\n")
		for _, n := range notes {
			fmt.Fprintf(b, "- %s\n", n)
		}
		b.WriteString("\n")
	}
	if len(notRun) > 0 {
		fmt.Fprintf(b, "### Claims not run in this preset or not comparable (%d)\n\n", len(notRun))
		var reasons []string
		byReason := map[string][]string{}
		for _, row := range notRun {
			if _, ok := byReason[row.Note]; !ok {
				reasons = append(reasons, row.Note)
			}
			byReason[row.Note] = append(byReason[row.Note], "`"+row.ID+"`")
		}
		for _, why := range reasons {
			text := why
			if text == "" {
				text = "no reason given"
			}
			fmt.Fprintf(b, "- %s: %s\n", cellEscaper.Replace(text), strings.Join(byReason[why], ", "))
		}
		b.WriteString("\n")
	}
	b.WriteString("<details><summary>How a verdict is reached</summary>\n\n")
	for _, n := range claims.Rules(r.rows) {
		fmt.Fprintf(b, "- %s\n", n)
	}
	b.WriteString("\n</details>\n\n")
}

var cellEscaper = strings.NewReplacer("|", `\|`, "\n", " ")

var (
	// A reason may hold parentheses (a display name: "DAS (MAPPO) did
	// not learn: …"), but never a tag.
	verdictCell = regexp.MustCompile(`<td><strong>(holds|does not hold|inconclusive|untestable here)( \((?:n = 1|headroom [^)]*|[^<]* did not learn[^<]*)\))?</strong></td>`)
	h2          = regexp.MustCompile(`<h([23]) id="([^"]+)">(.*?)</h[23]>`)
)

// decorate finishes report.html's body: each verdict of the scoreboard
// marked by colour as well as by word, an anchor on every section and
// subsection heading, a table of contents of the sections after the
// opening paragraph, and every table in a box of its own that scrolls
// sideways when the table is wider than the window.
func decorate(body string) string {
	body = verdictCell.ReplaceAllStringFunc(body, func(m string) string {
		sub := verdictCell.FindStringSubmatch(m)
		class := map[string]string{"holds": "v-holds", "does not hold": "v-no", "inconclusive": "v-inconclusive", "untestable here": "v-untestable"}[sub[1]]
		return `<td><span class="verdict ` + class + `">` + sub[1] + `</span>` + sub[2] + `</td>`
	})
	var toc strings.Builder
	toc.WriteString("<nav class=\"toc\"><strong>Contents</strong>\n<ol>\n")
	body = h2.ReplaceAllStringFunc(body, func(m string) string {
		sub := h2.FindStringSubmatch(m)
		if sub[1] == "2" {
			fmt.Fprintf(&toc, "<li><a href=\"#%s\">%s</a></li>\n", sub[2], sub[3])
		}
		return fmt.Sprintf(`<h%s id="%s">%s<a class="anchor" href="#%s" aria-label="link to this section">#</a></h%s>`, sub[1], sub[2], sub[3], sub[2], sub[1])
	})
	toc.WriteString("</ol></nav>\n")
	// A table wider than the window scrolls inside its own box, so that
	// the page itself never scrolls sideways.
	body = strings.ReplaceAll(body, "<table>", `<div class="wide"><table>`)
	body = strings.ReplaceAll(body, "</table>", "</table></div>")
	if i := strings.Index(body, "</p>\n"); i >= 0 {
		i += len("</p>\n")
		body = body[:i] + toc.String() + body[i:]
	}
	return body
}

// embedImages gives each image of the page in images (a path under dir,
// as the Markdown names it) its file's bytes as a data URI, so that
// report.html stands alone; an image whose file cannot be read keeps its
// path. The page is converted from the Markdown first and the URIs put in
// after: the Markdown parser need not scan them.
func embedImages(page, dir string, images []string) string {
	for _, p := range images {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			continue
		}
		page = strings.ReplaceAll(page, `src="`+p+`"`, `src="data:image/png;base64,`+base64.StdEncoding.EncodeToString(b)+`"`)
	}
	return page
}

// outputsTable lists the outputs that keep selects, sorted by name.
func outputsTable(b *strings.Builder, outputs map[string]pipeline.Artifact, keep func(string) bool) {
	b.WriteString("| output | sha256 | rows | bytes |\n|---|---|---:|---:|\n")
	for _, name := range sortedArtifactNames(outputs, "") {
		if !keep(name) {
			continue
		}
		a := outputs[name]
		rows := ""
		if strings.HasSuffix(name, ".parquet") {
			rows = fmt.Sprint(a.Rows)
		}
		fmt.Fprintf(b, "| `%s` | `%s` | %s | %d |\n", name, a.SHA256, rows, a.Bytes)
	}
}

// writeTimings writes report-timings.md. A run that ran no stage (all
// cached) made no output: it appends its own figures to the file of the
// run that did, rather than replacing them.
func writeTimings(dir string, cfg *Config, m *pipeline.Manifest) error {
	path := filepath.Join(dir, ReportTimings)
	ran := 0
	for _, s := range m.Stages {
		if !s.Cached {
			ran++
		}
	}
	if old, err := os.ReadFile(path); err == nil && ran == 0 && len(m.Stages) > 0 {
		when := m.Date
		if when == "" {
			when = "undated"
		}
		add := fmt.Sprintf("\n## A rerun from the cache (%s)\n\nStatus **%s**, revision %s: %d stages, all cached, in %.1f s. The figures above are those of the run that made the outputs.\n",
			when, m.Status, m.Versions.Revision(), len(m.Stages), m.WallS)
		return pipeline.WriteFileAtomic(path, append(old, add...))
	}
	return pipeline.WriteFileAtomic(path, []byte(timingsMarkdown(dir, cfg, m)))
}

// timingsMarkdown is report-timings.md: the run's wall time, each stage's
// wall time and cache status, the wall-clock outputs with their hashes and
// the tables made from them.
func timingsMarkdown(dir string, cfg *Config, m *pipeline.Manifest) string {
	var b strings.Builder
	ran, cached := 0, 0
	outputs := map[string]pipeline.Artifact{}
	for _, s := range m.Stages {
		if s.Cached {
			cached++
		} else {
			ran++
		}
		for _, o := range s.Outputs {
			outputs[o.Name] = o
		}
	}
	fmt.Fprintf(&b, "# schedlab run timings\n\nPreset **%s**, seed %d, status **%s**, revision %s: %d stages (%d ran, %d cached) in %.1f s. "+
		"These figures vary from run to run; `%s` holds everything else.\n\n",
		cfg.Preset, m.Seed, m.Status, m.Versions.Revision(), len(m.Stages), ran, cached, m.WallS, ReportMarkdown)
	b.WriteString("## Stages\n\nA stage's CPU time is the process's while it ran, shared among the stages running at once by the workers each held: " +
		"exact for a stage that ran alone, an estimate where stages overlapped.\n\n| stage | status | wall (s) | CPU (s) |\n|---|---|---:|---:|\n")
	for _, s := range m.Stages {
		fmt.Fprintf(&b, "| %s | %s | %.2f | %.2f |\n", s.Name, s.Status, s.WallS, s.CPUS)
	}
	for _, id := range cfg.Eval.Experiments {
		for _, e := range evaluation.DerivedFrom(id) {
			if t := e.TableFiles()[0]; wallClock(t) {
				if md, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(t))); err == nil {
					fmt.Fprintf(&b, "\n## %s\n\n%s Source: `%s`.\n\n%s", e.Section.Title, e.Section.Text, t, demoteHeadings(stripTitle(string(md)), 2))
				}
			}
		}
	}
	b.WriteString("\n## Wall-clock outputs\n\n")
	outputsTable(&b, outputs, wallClock)
	return b.String()
}

func sortedArtifactNames(m map[string]pipeline.Artifact, prefix string) []string {
	var names []string
	for n := range m {
		if strings.HasPrefix(n, prefix) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

var heading = regexp.MustCompile(`(?m)^(#{1,6}) `)

// stripTitle drops a table file's own first-level title: the report gives
// each section its own.
func stripTitle(md string) string {
	if strings.HasPrefix(md, "# ") {
		if i := strings.IndexByte(md, '\n'); i >= 0 {
			return strings.TrimLeft(md[i+1:], "\n")
		}
	}
	return md
}

// demoteHeadings pushes every Markdown heading down by n levels (at most
// level 6), so that included files nest under the report's sections.
func demoteHeadings(md string, n int) string {
	return heading.ReplaceAllStringFunc(md, func(h string) string {
		level := min(len(strings.TrimSpace(h))+n, 6)
		return strings.Repeat("#", level) + " "
	})
}

// notLearned is, for every learned row of the run's experiments on each
// of their clusters, why its models did not measurably learn: its
// family's judgement (training.NotLearned) on each model's learning
// curves, read through the plan's model map as the derived tables read
// them (every replicate's, in order). A model the run did not train (its
// training failed) says nothing.
func (c *Config) notLearned(dir string) (map[claims.Model]string, error) {
	p, _, models, replicas, err := c.trainStages()
	if err != nil {
		return nil, err
	}
	out := map[claims.Model]string{}
	for _, pe := range p.Experiments {
		spec := plan.WithoutArrivals(pe.Spec)
		names, err := spec.SchedulerNames()
		if err != nil {
			return nil, err
		}
		for _, canon := range names {
			if !canon.Learned() {
				continue
			}
			for _, cl := range spec.Clusters {
				key := p.Config.ModelKey(canon, cl.Spec)
				all := replicas[key]
				if all == nil {
					all = [][]string{models[key]}
				}
				var curves [][]training.Curve
				for _, files := range all {
					i := slices.IndexFunc(files, func(f string) bool { return path.Base(f) == training.CurvesFile })
					if i < 0 {
						break // a family without curves
					}
					rows, err := datasets.ReadParquet[training.Curve](filepath.Join(dir, filepath.FromSlash(files[i])))
					if errors.Is(err, os.ErrNotExist) {
						rows = nil // a training that failed: its curve says nothing
					} else if err != nil {
						return nil, err
					}
					curves = append(curves, rows)
				}
				if why := training.NotLearned(canon, curves); why != "" {
					out[claims.Model{Experiment: spec.Experiment, Scheduler: string(canon), Cluster: cl.Name}] = why
				}
			}
		}
	}
	return out, nil
}

// learnedEpisodes is, for each variant of an Episodic family, the
// training episodes of its models under cfg: the claims' "tested at".
func learnedEpisodes(cfg *Config) map[string]int {
	return training.Episodes(cfg.Train.Sections)
}
