package sensitivity

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/internal/figure"
	"github.com/schedlab/schedlab/schedulers"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

var header = []string{"part", "comm ×", "interference ×", "comm_scale", "interference_scale", "best heuristic", "best heuristic JCT", "learned JCT", "margin (%)", "floor", "headroom (%)", "share (%)"}

// rows are the table's cells as text, part by part, row-major.
func (r *Result) rows() [][]string {
	var out [][]string
	for _, pr := range r.Parts {
		for _, row := range pr.Cells {
			for _, c := range row {
				out = append(out, []string{pr.Part.Name, g(c.Comm), g(c.Interference),
					fmt.Sprintf("%.4g", c.Env.CommScale), fmt.Sprintf("%.4g", c.Env.InterferenceScale),
					display(pr.Part.Heuristics[c.Best]),
					fmt.Sprintf("%.3f %s", c.Heuristics[c.Best], pr.Part.Unit), learnedJCT(c, pr.Part.Unit), pct(c.Margin),
					floorText(c.Floor, pr.Part.Unit), pct(c.Headroom), pct(c.Share)})
			}
		}
	}
	return out
}

func g(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// learnedJCT is c's learned mean JCT, "—" where the learned scheduler was
// left out.
func learnedJCT(c Cell, unit string) string {
	if c.LeftOut != "" {
		return "—"
	}
	return fmt.Sprintf("%.3f %s", c.Learned, unit)
}

func floorText(f float64, unit string) string {
	if !(f > 0) {
		return "—"
	}
	return fmt.Sprintf("%.3f %s", f, unit)
}

func pct(m float64) string {
	if math.IsNaN(m) {
		return "—"
	}
	return fmt.Sprintf("%+.1f", 100*m)
}

func display(name string) string { return schedulers.Display(name) }

// Notes say what the map shows, part by part, and how it was made.
func (r *Result) Notes() []string {
	n := []string{"Margin = (best heuristic − learned)/best heuristic on mean JCT: > 0 where learned placement pays; ≤ 0 where the best heuristic (named) is already as good. Each grid point trains its own model (seeded from the run seed and the point) and evaluates every scheduler on the same jobs, so neighbouring points differ by training noise as well as by the environment.",
		"Floor: a mean JCT no scheduler can beat on the point's jobs (sim.Floor); headroom = (best heuristic − floor)/floor, the room any scheduler has; share = (best heuristic − learned)/(best heuristic − floor), the part of it the learned scheduler captured (1 at the floor, 0 level with the best heuristic, < 0 behind it)."}
	for _, pr := range r.Parts {
		p := pr.Part
		b := p.Base
		n = append(n, fmt.Sprintf("%s: %s against %s, around environment %s (%s: comm_scale %.4g, interference_scale %.4g, ps_share %.4g).",
			p.Title, display(p.Learned), joinDisplay(p.Heuristics), b.Name, b.Source, b.CommScale, b.InterferenceScale, b.PSShare))
		n = append(n, p.Notes...)
		n = append(n, pr.summary())
		if lo := pr.leftOut(); lo != "" {
			n = append(n, lo)
		}
	}
	n = append(n, fmt.Sprintf("Run seed %d.", r.Seed))
	return n
}

func joinDisplay(names []string) string {
	out := make([]string, len(names))
	for i, s := range names {
		out[i] = display(s)
	}
	return strings.Join(out, ", ")
}

// summary is the sentence that reads a part's map: where learned pays,
// where a heuristic is already optimal, and which.
func (pr PartResult) summary() string {
	total, pays := 0, 0
	var best, worst *Cell
	wins := make([]int, len(pr.Part.Heuristics))
	for i := range pr.Cells {
		for j := range pr.Cells[i] {
			c := &pr.Cells[i][j]
			total++
			if math.IsNaN(c.Margin) {
				continue
			}
			if c.Margin > 0 {
				pays++
			} else {
				wins[c.Best]++
			}
			if best == nil || c.Margin > best.Margin {
				best = c
			}
			if worst == nil || c.Margin < worst.Margin {
				worst = c
			}
		}
	}
	s := fmt.Sprintf("%s: learned placement pays (margin > 0) at %d of %d points", pr.Part.Name, pays, total)
	if best != nil {
		s += fmt.Sprintf("; largest margin %s %% at comm ×%g, interference ×%g; smallest %s %% at comm ×%g, interference ×%g",
			pct(best.Margin), best.Comm, best.Interference, pct(worst.Margin), worst.Comm, worst.Interference)
	}
	var already []string
	for k, w := range wins {
		if w > 0 {
			already = append(already, fmt.Sprintf("%s at %d", display(pr.Part.Heuristics[k]), w))
		}
	}
	if len(already) > 0 {
		s += "; the best heuristic is already as good or better at " + strings.Join(already, ", ") + " points"
	}
	return s + "."
}

// leftOut is the note naming the points where the learned scheduler was
// left out and why, "" if none.
func (pr PartResult) leftOut() string {
	var at []string
	total := 0
	for _, row := range pr.Cells {
		for _, c := range row {
			total++
			if c.LeftOut != "" {
				at = append(at, fmt.Sprintf("comm ×%g, interference ×%g (%s)", c.Comm, c.Interference, c.LeftOut))
			}
		}
	}
	if len(at) == 0 {
		return ""
	}
	return fmt.Sprintf("%s: left out at %d of %d points, which have the heuristics' results only (—): %s.",
		display(pr.Part.Learned), len(at), total, strings.Join(at, "; "))
}

// Markdown is the table with its notes.
func (r *Result) Markdown() []byte {
	var b bytes.Buffer
	b.WriteString("# sensitivity: the learned scheduler's margin over the best heuristic\n\n")
	// The absolute scales (comm_scale, interference_scale) are left out
	// so that the table fits evaluation.MaxColumns: they are the base
	// environment's (the notes) times the multipliers, and the CSV and
	// LaTeX tables carry them.
	narrow := func(row []string) []string { return append(slices.Clone(row[:3]), row[5:]...) }
	b.WriteString("| " + strings.Join(narrow(header), " | ") + " |\n|---|---:|---:|---|---:|---:|---:|---:|---:|---:|\n")
	for _, row := range r.rows() {
		b.WriteString("| " + strings.Join(narrow(row), " | ") + " |\n")
	}
	b.WriteString("\n")
	for _, n := range r.Notes() {
		b.WriteString("- " + n + "\n")
	}
	b.WriteString("- Each point's comm_scale and interference_scale (the base environment's times its multipliers) are in tables/sensitivity.csv.\n")
	return b.Bytes()
}

// CSV is the table as CSV, numbers without units (no notes).
func (r *Result) CSV() []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write([]string{"part", "comm_multiplier", "interference_multiplier", "comm_scale", "interference_scale", "best_heuristic", "jct_unit", "best_heuristic_jct", "learned_jct", "margin", "floor", "headroom", "share"})
	for _, pr := range r.Parts {
		for _, row := range pr.Cells {
			for _, c := range row {
				_ = w.Write([]string{pr.Part.Name, g(c.Comm), g(c.Interference), g(c.Env.CommScale), g(c.Env.InterferenceScale),
					pr.Part.Heuristics[c.Best], pr.Part.Unit, fmt.Sprintf("%.6f", c.Heuristics[c.Best]), fmt.Sprintf("%.6f", c.Learned), fmt.Sprintf("%.6f", c.Margin),
					fmt.Sprintf("%.6f", c.Floor), fmt.Sprintf("%.6f", c.Headroom), fmt.Sprintf("%.6f", c.Share)})
			}
		}
	}
	w.Flush()
	return b.Bytes()
}

var texEscape = strings.NewReplacer(`\`, `\textbackslash{}`, `%`, `\%`, `&`, `\&`, `_`, `\_`, `#`, `\#`, `$`, `\$`,
	`×`, `$\times$`, `−`, `$-$`, `≤`, `$\le$`, `—`, `--`)

// LaTeX is the table as a LaTeX tabular with its notes as a caption.
func (r *Result) LaTeX() []byte {
	var b bytes.Buffer
	b.WriteString("\\begin{table}\n\\centering\n\\begin{tabular}{lrrrrlrrrrrr}\n\\hline\n")
	cells := make([]string, len(header))
	for i, h := range header {
		cells[i] = texEscape.Replace(h)
	}
	b.WriteString(strings.Join(cells, " & ") + " \\\\\n\\hline\n")
	for _, row := range r.rows() {
		for i := range row {
			row[i] = texEscape.Replace(row[i])
		}
		b.WriteString(strings.Join(row, " & ") + " \\\\\n")
	}
	b.WriteString("\\hline\n\\end{tabular}\n\\caption{" + texEscape.Replace(strings.Join(r.Notes(), " ")) + "}\n\\end{table}\n")
	return b.Bytes()
}

// valueGrid is one value of a part's cells (in %) as a heat map's grid:
// columns are interference multipliers, rows communication multipliers,
// each at its index so that the cells are evenly spaced whatever the
// multipliers.
type valueGrid struct {
	pr PartResult
	z  func(Cell) float64
}

func (m valueGrid) Dims() (c, r int)   { return len(m.pr.Cells[0]), len(m.pr.Cells) }
func (m valueGrid) Z(c, r int) float64 { return 100 * m.z(m.pr.Cells[r][c]) }
func (m valueGrid) X(c int) float64    { return float64(c) }
func (m valueGrid) Y(r int) float64    { return float64(r) }

// mapValue is one of the heat maps drawn per part.
type mapValue struct {
	title string // after the part's title
	bar   string // the colour bar's label
	z     func(Cell) float64
	// signed maps are symmetric about zero (white: none); the others run
	// from zero up.
	signed bool
	// label is a cell's text.
	label func(pr PartResult, c Cell) string
}

func mapValues() []mapValue {
	return []mapValue{
		{title: "margin of %s over the best heuristic (%%)", bar: "margin (%)", z: func(c Cell) float64 { return c.Margin }, signed: true,
			label: func(pr PartResult, c Cell) string {
				l := pct(c.Margin)
				if !(c.Margin > 0) {
					l += "\n" + display(pr.Part.Heuristics[c.Best])
				}
				return l
			}},
		{title: "headroom of the best heuristic over the floor (%%)", bar: "headroom (%)", z: func(c Cell) float64 { return c.Headroom },
			label: func(pr PartResult, c Cell) string {
				return pct(c.Headroom) + "\n" + display(pr.Part.Heuristics[c.Best])
			}},
		{title: "share of the headroom %s captured (%%)", bar: "share (%)", z: func(c Cell) float64 { return c.Share }, signed: true,
			label: func(_ PartResult, c Cell) string { return pct(c.Share) }},
	}
}

// Plot draws, per part, three heat maps with their colour bars: the
// learned scheduler's margin over the best heuristic (red: learned pays;
// blue: the best heuristic is better; a cell where learned does not pay
// names the heuristic), the headroom of the best heuristic over the floor
// (where learning could pay at all), and the share of that headroom the
// learned scheduler captured.
func (r *Result) Plot() (svg, png []byte, err error) {
	var plots, bars []*plot.Plot
	for _, pr := range r.Parts {
		if len(pr.Cells) == 0 || len(pr.Cells[0]) == 0 {
			continue
		}
		for _, mv := range mapValues() {
			p, bar, err := r.heatMap(pr, mv)
			if err != nil {
				return nil, nil, err
			}
			plots, bars = append(plots, p), append(bars, bar)
		}
	}
	if len(plots) == 0 {
		return nil, nil, fmt.Errorf("sensitivity: nothing to plot")
	}
	return figure.ColumnBars(plots, bars, 7*vg.Inch, vg.Length(4.5*float64(len(plots)))*vg.Inch, vg.Inch)
}

func (r *Result) heatMap(pr PartResult, mv mapValue) (*plot.Plot, *plot.Plot, error) {
	grid := valueGrid{pr, mv.z}
	lo, hi := 0.0, 1.0 // at least 1 %, so that an all-zero map still has a range
	for _, row := range pr.Cells {
		for _, c := range row {
			if v := 100 * mv.z(c); !math.IsNaN(v) {
				hi = max(hi, math.Abs(v))
			}
		}
	}
	var cmap palette.ColorMap = moreland.SmoothBlueRed()
	if mv.signed {
		lo = -hi // symmetric about zero, so that white means "none"
	} else {
		cmap = moreland.Kindlmann()
	}
	cmap.SetMin(lo)
	cmap.SetMax(hi)
	hm := plotter.NewHeatMap(grid, cmap.Palette(255))
	hm.Min, hm.Max = lo, hi
	p := plot.New()
	// Two lines: one would be wider than the panel and clipped.
	title := mv.title
	if strings.Contains(title, "%s") {
		title = fmt.Sprintf(title, display(pr.Part.Learned))
	} else {
		title = strings.ReplaceAll(title, "%%", "%")
	}
	p.Title.Text = pr.Part.Title + "\n" + title
	p.X.Label.Text = "interference scale × " + fmt.Sprintf("%.3g", pr.Part.Base.InterferenceScale)
	p.Y.Label.Text = "communication scale × " + fmt.Sprintf("%.3g", pr.Part.Base.CommScale)
	p.Add(hm)
	var xy plotter.XYs
	var labels []string
	for i, row := range pr.Cells {
		for j, c := range row {
			xy = append(xy, plotter.XY{X: float64(j), Y: float64(i)})
			labels = append(labels, mv.label(pr, c))
		}
	}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: labels})
	if err != nil {
		return nil, nil, err
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].XAlign, lb.TextStyle[i].YAlign = -0.5, -0.5
	}
	p.Add(lb)
	ticks := func(ms []float64) plot.ConstantTicks {
		t := make(plot.ConstantTicks, len(ms))
		for i, m := range ms {
			t[i] = plot.Tick{Value: float64(i), Label: "×" + g(m)}
		}
		return t
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = ticks(r.Grid.Interference), ticks(r.Grid.Comm)
	p.X.Min, p.X.Max = -0.5, float64(len(r.Grid.Interference))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(r.Grid.Comm))-0.5

	// The colour bar: what a cell's colour means, in the map's units.
	bar := plot.New()
	bar.Add(&plotter.ColorBar{ColorMap: cmap, Vertical: true})
	bar.HideX()
	bar.Y.Label.Text = mv.bar
	bar.Title.Text = "\n" // level with the map's two-line title
	return p, bar, nil
}
