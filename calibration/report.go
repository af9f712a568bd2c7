package calibration

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/color"
	"math"
	"strings"

	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/internal/figure"
	"github.com/schedlab/schedlab/sim"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Row is one row of the calibration table: a target of an environment
// with the paper's figure, ours before calibration and in the fitted
// environment.
type Row struct {
	Environment, Target, Paper, Before, After, Tolerance string
	Within                                               bool
}

// Rows is the calibration table of r.
func (r *Result) Rows() []Row {
	return checkRows(r.Environment.Name, r.Before.Checks(r.Targets), r.After.Checks(r.Targets))
}

// Rows is the calibration table of r, with the paper's own spreads from
// ref (DAS Table 1; nil: none).
func (r *DASResult) Rows(ref *evaluation.Reference) []Row {
	return checkRows(r.Environment.Name, r.Before.Checks(r.Targets, ref), r.After.Checks(r.Targets, ref))
}

func checkRows(env string, before, after []Check) []Row {
	out := make([]Row, len(after))
	for i, c := range after {
		out[i] = Row{Environment: env, Target: c.Target, Paper: c.Paper, Before: before[i].Ours, After: c.Ours, Tolerance: c.Tolerance, Within: c.Within}
	}
	return out
}

// Report is the calibration experiment: every calibrated environment's
// targets, and MARL Table III's ranking of the interference models (which
// no environment changes: its "before" and "ours" are the same).
type Report struct {
	MARL     *Result
	TableIII Check
	DAS      *DASResult
	// DASReference is DAS Table 1's (the paper's own spreads); nil: none.
	DASReference *evaluation.Reference
}

// Rows is the calibration table: marl-paper's targets, Table III, then
// das-paper's.
func (r *Report) Rows() []Row {
	rows := r.MARL.Rows()
	c := r.TableIII
	rows = append(rows, Row{Environment: r.MARL.Environment.Name, Target: c.Target, Paper: c.Paper, Before: c.Ours, After: c.Ours, Tolerance: c.Tolerance, Within: c.Within})
	if r.DAS == nil {
		return rows
	}
	return append(rows, r.DAS.Rows(r.DASReference)...)
}

// Notes are the table's notes: each environment's, then the sources.
func (r *Report) Notes() []string {
	out := r.MARL.Notes()
	out = append(out, "MARL Table III: cross-validated prediction error mean |Ŝ − S|/(1 + S) of the five interference models fitted to the run's calibration samples (fit/coefficients.parquet, fit/interference.md); the paper's from its 480 samples of a 2×E5-2630, 4×V100 server.")
	if r.DAS == nil {
		return append(out, "das-paper was not fitted in this run (eval.calibration.das: false).")
	}
	return append(out, r.DAS.Notes()...)
}

// Notes are the das-paper rows' notes: the fit and what was simulated.
func (r *DASResult) Notes() []string {
	keys, _, _ := sim.EnvironmentParams()
	var ps, st []string
	for i, v := range r.Environment.Params() {
		ps = append(ps, fmt.Sprintf("%s = %.4g", keys[i], v))
		st = append(st, fmt.Sprintf("%s = %.4g", keys[i], r.Start[i]))
	}
	var rs []string
	for _, v := range r.Residuals {
		rs = append(rs, fmt.Sprintf("%.3g", v))
	}
	notes := []string{
		fmt.Sprintf("Environment %s fitted by Levenberg–Marquardt (status: %s, %d iterations, %d evaluations) from the best of %d log-grid points (%s): %s. Residuals, per cluster, the JCT spread's excess above and shortfall below the range and the fee spread's excess, in points: %s.",
			r.Environment.Name, r.Fit.Status, r.Fit.Iterations, r.Fit.Evaluations, r.GridEvaluations, strings.Join(st, ", "), strings.Join(ps, ", "), strings.Join(rs, ", ")),
		fmt.Sprintf("das-paper rows: %s simulated on das-table1's clusters and %d evaluated jobs. MALO and MOSA are left out: their searches take minutes per cell. The spreads are a rugged function of the parameters (a small change of speeds reorders starts), so a fitted point can meet a target by a few points only; das-table1 shows all seven rows in das-paper.",
			strings.Join(r.After.Rows, ", "), r.Jobs),
		"Paper: DAS (Xing et al., KDD 2023) Table 1, heuristic rows; its spreads over the same rows in parentheses; not our measurements.",
	}
	// Why a cluster's JCT spread is outside its range: no grid point met
	// it (the spread is the rows' queueing, which no speed factor
	// removes), or one did but not together with the other clusters.
	for ci, cl := range r.After.Clusters {
		sp := r.After.JCTSpread[ci]
		if (sp >= r.Targets.SpreadLow && sp <= r.Targets.SpreadHigh) || ci >= len(r.GridJCTSpread) {
			continue
		}
		var at []string
		for i, v := range r.GridAt[ci] {
			at = append(at, fmt.Sprintf("%s = %.4g", keys[i], v))
		}
		g := r.GridJCTSpread[ci]
		why := "no speed factor on the grid brings it inside: the spread is the rows' order of starts, not the speed model"
		if g >= r.Targets.SpreadLow && g <= r.Targets.SpreadHigh {
			why = "a grid point meets it alone, but not with the other clusters' targets at once"
		}
		notes = append(notes, fmt.Sprintf("%s: mean-JCT spread %.1f %% is outside %.0f–%.0f %%; the nearest of the %d grid points gives %.1f %% (%s): %s.",
			strings.ToUpper(cl[:1])+cl[1:], 100*sp, 100*r.Targets.SpreadLow, 100*r.Targets.SpreadHigh, r.GridEvaluations, 100*g, strings.Join(at, ", "), why))
	}
	return notes
}

// Notes are the marl-paper rows' notes: the fitted parameters and residuals.
func (r *Result) Notes() []string {
	keys, _, _ := sim.EnvironmentParams()
	var ps []string
	for i, v := range r.Environment.Params() {
		ps = append(ps, fmt.Sprintf("%s = %.4g", keys[i], v))
	}
	var rs []string
	for _, v := range r.Residuals {
		rs = append(rs, fmt.Sprintf("%.3g", v))
	}
	var none string
	if len(r.NoEffect) > 0 {
		none = fmt.Sprintf(" %s: no effect at the fitted point, so the targets do not determine it.", strings.Join(r.NoEffect, ", "))
	}
	return []string{
		fmt.Sprintf("Environment %s fitted by Levenberg–Marquardt (status: %s, %d iterations) from every factor 1: %s.%s", r.Environment.Name, r.Fit.Status, r.Fit.Iterations, strings.Join(ps, ", "), none),
		fmt.Sprintf("Residuals (ours − paper)/tolerance for the two numeric targets, then ordering hinges (0 = holds): %s.", strings.Join(rs, ", ")),
		"\"before\" is the speed model with no environment; \"ours\" is in the fitted one. Orderings do not depend on the fitted parameters (every factor multiplies a scenario's slowdowns alike): they check the interference model and the profiles.",
		"Paper: MARL (Zhao et al., TNSM 2021) §II, Figs 1–3, on four servers of one 16-core E5-1660 and two GTX 1080Ti each; not our measurements.",
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

var header = []string{"environment", "target", "paper", "ours (before calibration)", "ours", "tolerance", "within"}

// Markdown is the table as Markdown with its notes.
func (r *Report) Markdown() []byte {
	var b bytes.Buffer
	names := r.MARL.Environment.Name
	if r.DAS != nil {
		names += ", " + r.DAS.Environment.Name
	}
	fmt.Fprintf(&b, "# calibration: the calibrated environments (%s) against the papers' measurements\n\n", names)
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|---|---|---:|---:|---:|---|---|\n")
	for _, row := range r.Rows() {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", row.Environment, row.Target, row.Paper, row.Before, row.After, row.Tolerance, yesNo(row.Within))
	}
	b.WriteString("\n")
	for _, n := range r.Notes() {
		b.WriteString(n + "\n\n")
	}
	return b.Bytes()
}

// CSV is the table as CSV (no notes).
func (r *Report) CSV() []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write([]string{"environment", "target", "paper", "ours_before", "ours", "tolerance", "within"})
	for _, row := range r.Rows() {
		_ = w.Write([]string{row.Environment, row.Target, row.Paper, row.Before, row.After, row.Tolerance, yesNo(row.Within)})
	}
	w.Flush()
	return b.Bytes()
}

var texEscape = strings.NewReplacer(`%`, `\%`, `&`, `\&`, `_`, `\_`, `#`, `\#`, `±`, `$\pm$`, `→`, `$\to$`, `−`, `$-$`, `≤`, `$\le$`, `–`, `--`, `Ŝ`, `$\hat S$`)

// LaTeX is the table as a LaTeX tabular with its notes as a caption.
func (r *Report) LaTeX() []byte {
	var b bytes.Buffer
	b.WriteString("\\begin{table}\n\\centering\n\\begin{tabular}{llrrrll}\n\\hline\n")
	b.WriteString(texEscape.Replace(strings.Join(header, " & ")) + " \\\\\n\\hline\n")
	for _, row := range r.Rows() {
		cells := []string{row.Environment, row.Target, row.Paper, row.Before, row.After, row.Tolerance, yesNo(row.Within)}
		for i := range cells {
			cells[i] = texEscape.Replace(cells[i])
		}
		b.WriteString(strings.Join(cells, " & ") + " \\\\\n")
	}
	b.WriteString("\\hline\n\\end{tabular}\n\\caption{" + texEscape.Replace(strings.Join(r.Notes(), " ")) + "}\n\\end{table}\n")
	return b.Bytes()
}

// Plot draws marl-paper's two numeric targets (paper beside ours in the
// fitted environment) above the per-job slowdowns of Figs 1(a) and 3(a) in
// it, then das-paper's spreads per cluster (the paper's own, ours before
// calibration and ours in das-paper), mean JCT and fee.
func (r *Report) Plot() (svg, png []byte, err error) {
	m := r.MARL
	colours := []color.NRGBA{{0x99, 0x99, 0x99, 0xff}, {0x00, 0x72, 0xb2, 0xff}, {0xd5, 0x5e, 0x00, 0xff}}
	const width = vg.Length(18)
	bars := func(p *plot.Plot, series [][]float64, labels []string, colour0 int) error {
		for i, s := range series {
			bc, err := plotter.NewBarChart(plotter.Values(s), width)
			if err != nil {
				return err
			}
			bc.Color = colours[(colour0+i)%len(colours)]
			bc.LineStyle.Width = 0
			bc.Offset = vg.Length(float64(i)-float64(len(series)-1)/2) * width
			p.Add(bc)
			p.Legend.Add(labels[i], bc)
		}
		p.Legend.Top = true
		p.Y.Min = 0
		return nil
	}
	top := plot.New()
	top.Title.Text = fmt.Sprintf("calibration — mean slowdown vs standalone (%%), %s", m.Environment.Name)
	top.Y.Label.Text = "mean slowdown (%)"
	if err := bars(top, [][]float64{{100 * m.Targets.Packed, 100 * m.Targets.LoadBalanced}, {100 * m.After.PackedMean, 100 * m.After.LoadBalancedMean}},
		[]string{"paper", "ours"}, 0); err != nil {
		return nil, nil, err
	}
	top.NominalX("bin packing (Fig. 1a)", "load balancing (Fig. 3a)")
	top.X.Min, top.X.Max = -0.6, 1.6
	top.Y.Max = 100 * max(m.Targets.Packed, m.Targets.LoadBalanced, m.After.PackedMean, m.After.LoadBalancedMean) * 1.35
	jobs := plot.New()
	jobs.Title.Text = "per job, in the fitted environment"
	jobs.Y.Label.Text = "slowdown (%)"
	pct := func(x []float64) []float64 {
		out := make([]float64, len(x))
		for i, v := range x {
			out[i] = 100 * v
		}
		return out
	}
	if err := bars(jobs, [][]float64{pct(m.After.Packed), pct(m.After.LoadBalanced)}, []string{"bin packing", "load balancing"}, 1); err != nil {
		return nil, nil, err
	}
	jobs.NominalX(sim.MARLModels...)
	hi := 0.0
	for _, v := range append(append([]float64(nil), m.After.Packed...), m.After.LoadBalanced...) {
		hi = max(hi, 100*v)
	}
	jobs.Y.Max = hi * 1.35
	d := r.DAS
	if d == nil {
		return figure.Column([]*plot.Plot{top, jobs}, 8*vg.Inch, 6.5*vg.Inch)
	}
	var groups []string
	for _, c := range d.After.Clusters {
		groups = append(groups, strings.ToUpper(c[:1])+c[1:])
	}
	paperJCT, paperFee := make([]float64, len(groups)), make([]float64, len(groups))
	for i, g := range groups {
		paperJCT[i], paperFee[i] = paperSpreadValues(r.DASReference, g, d.After.Rows)
	}
	var panels []*plot.Plot
	for _, sp := range []struct {
		title         string
		paper, before []float64
		after         []float64
		lo, hi        float64
	}{
		{"mean-JCT spread (worst − best)/best of the heuristic rows (%)", paperJCT, d.Before.JCTSpread, d.After.JCTSpread, d.Targets.SpreadLow, d.Targets.SpreadHigh},
		{"mean-fee spread of the heuristic rows (%)", paperFee, d.Before.FeeSpread, d.After.FeeSpread, 0, d.Targets.FeeSpread},
	} {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("DAS Table 1 in %s: %s", d.Environment.Name, sp.title)
		p.Y.Label.Text = "spread (%)"
		// A missing paper figure (no reference) draws no bar.
		paper := pct(sp.paper)
		for i, v := range paper {
			if math.IsNaN(v) {
				paper[i] = 0
			}
		}
		if err := bars(p, [][]float64{paper, pct(sp.before), pct(sp.after)}, []string{"paper", "ours (before calibration)", "ours"}, 0); err != nil {
			return nil, nil, err
		}
		p.NominalX(groups...)
		hi := 100 * sp.hi
		for _, s := range [][]float64{sp.paper, sp.before, sp.after} {
			for _, v := range s {
				if !math.IsNaN(v) {
					hi = max(hi, 100*v)
				}
			}
		}
		for _, y := range []float64{sp.lo, sp.hi} {
			if y <= 0 {
				continue
			}
			l, err := plotter.NewLine(plotter.XYs{{X: -0.6, Y: 100 * y}, {X: float64(len(groups)) - 0.4, Y: 100 * y}})
			if err != nil {
				return nil, nil, err
			}
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			p.Add(l)
		}
		p.X.Min, p.X.Max = -0.6, float64(len(groups))-0.4
		p.Y.Max = hi * 1.35
		panels = append(panels, p)
	}
	return figure.Column(append([]*plot.Plot{top, jobs}, panels...), 8*vg.Inch, 13*vg.Inch)
}

// paperSpreadValues are the paper's JCT and fee spreads of rows in group
// (NaN when the reference lacks them).
func paperSpreadValues(ref *evaluation.Reference, group string, rows []string) (jct, fee float64) {
	if ref == nil {
		return math.NaN(), math.NaN()
	}
	var js, fs []float64
	for _, r := range rows {
		v, ok := ref.Values(r, []string{group}, 2)
		if !ok {
			return math.NaN(), math.NaN()
		}
		js, fs = append(js, v[0]), append(fs, v[1])
	}
	return Spread(js), Spread(fs)
}
