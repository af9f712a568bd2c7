package calibration

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/color"
	"strings"

	"github.com/schedlab/schedlab/internal/figure"
	"github.com/schedlab/schedlab/sim"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Row is one row of the calibration table: a target with the paper's
// figure, ours before calibration and in the fitted environment.
type Row struct {
	Target, Paper, Before, After, Tolerance string
	Within                                  bool
}

// Rows is the calibration table of r.
func (r *Result) Rows() []Row {
	before, after := r.Before.Checks(r.Targets), r.After.Checks(r.Targets)
	out := make([]Row, len(after))
	for i, c := range after {
		out[i] = Row{Target: c.Target, Paper: c.Paper, Before: before[i].Ours, After: c.Ours, Tolerance: c.Tolerance, Within: c.Within}
	}
	return out
}

// Notes are the table's notes: the fitted parameters and residuals.
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

var header = []string{"target", "paper", "ours (before calibration)", "ours", "tolerance", "within"}

// Markdown is the table as Markdown with its notes.
func (r *Result) Markdown() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# calibration: the %s environment against the paper's measurements\n\n", r.Environment.Name)
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|---|---:|---:|---:|---|---|\n")
	for _, row := range r.Rows() {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", row.Target, row.Paper, row.Before, row.After, row.Tolerance, yesNo(row.Within))
	}
	b.WriteString("\n")
	for _, n := range r.Notes() {
		b.WriteString(n + "\n\n")
	}
	return b.Bytes()
}

// CSV is the table as CSV (no notes).
func (r *Result) CSV() []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write([]string{"target", "paper", "ours_before", "ours", "tolerance", "within"})
	for _, row := range r.Rows() {
		_ = w.Write([]string{row.Target, row.Paper, row.Before, row.After, row.Tolerance, yesNo(row.Within)})
	}
	w.Flush()
	return b.Bytes()
}

var texEscape = strings.NewReplacer(`%`, `\%`, `&`, `\&`, `_`, `\_`, `#`, `\#`, `±`, `$\pm$`, `→`, `$\to$`, `−`, `$-$`)

// LaTeX is the table as a LaTeX tabular with its notes as a caption.
func (r *Result) LaTeX() []byte {
	var b bytes.Buffer
	b.WriteString("\\begin{table}\n\\centering\n\\begin{tabular}{lrrrll}\n\\hline\n")
	b.WriteString(texEscape.Replace(strings.Join(header, " & ")) + " \\\\\n\\hline\n")
	for _, row := range r.Rows() {
		cells := []string{row.Target, row.Paper, row.Before, row.After, row.Tolerance, yesNo(row.Within)}
		for i := range cells {
			cells[i] = texEscape.Replace(cells[i])
		}
		b.WriteString(strings.Join(cells, " & ") + " \\\\\n")
	}
	b.WriteString("\\hline\n\\end{tabular}\n\\caption{" + texEscape.Replace(strings.Join(r.Notes(), " ")) + "}\n\\end{table}\n")
	return b.Bytes()
}

// Plot draws the two numeric targets (paper beside ours in the fitted
// environment) above the per-job slowdowns of Figs 1(a) and 3(a) in it.
func (r *Result) Plot() (svg, png []byte, err error) {
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
	top.Title.Text = fmt.Sprintf("calibration — mean slowdown vs standalone (%%), %s", r.Environment.Name)
	top.Y.Label.Text = "mean slowdown (%)"
	if err := bars(top, [][]float64{{100 * r.Targets.Packed, 100 * r.Targets.LoadBalanced}, {100 * r.After.PackedMean, 100 * r.After.LoadBalancedMean}},
		[]string{"paper", "ours"}, 0); err != nil {
		return nil, nil, err
	}
	top.NominalX("bin packing (Fig. 1a)", "load balancing (Fig. 3a)")
	top.X.Min, top.X.Max = -0.6, 1.6
	top.Y.Max = 100 * max(r.Targets.Packed, r.Targets.LoadBalanced, r.After.PackedMean, r.After.LoadBalancedMean) * 1.35
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
	if err := bars(jobs, [][]float64{pct(r.After.Packed), pct(r.After.LoadBalanced)}, []string{"bin packing", "load balancing"}, 1); err != nil {
		return nil, nil, err
	}
	jobs.NominalX(sim.MARLModels...)
	hi := 0.0
	for _, v := range append(append([]float64(nil), r.After.Packed...), r.After.LoadBalanced...) {
		hi = max(hi, 100*v)
	}
	jobs.Y.Max = hi * 1.35
	return figure.Column([]*plot.Plot{top, jobs}, 8*vg.Inch, 7*vg.Inch)
}
