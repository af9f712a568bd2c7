package evaluation

import (
	"fmt"
	"github.com/schedlab/schedlab/internal/figure"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// palette is Okabe & Ito's colour-blind-safe set; schedulers beyond it
// reuse colours in order.
var palette = []color.NRGBA{
	{0xe6, 0x9f, 0x00, 0xff}, {0x56, 0xb4, 0xe9, 0xff}, {0x00, 0x9e, 0x73, 0xff}, {0xf0, 0xe4, 0x42, 0xff},
	{0x00, 0x72, 0xb2, 0xff}, {0xd5, 0x5e, 0x00, 0xff}, {0xcc, 0x79, 0xa7, 0xff}, {0x00, 0x00, 0x00, 0xff},
}

// Plot draws the table's measured rows as two grouped bar charts, mean JCT
// above mean fee, one bar per scheduler in each column group (the paper's
// figures are not drawn). It returns the same figure as SVG (fonts not
// embedded, so the file stays small and byte-stable) and PNG.
func (r *Report) Plot() (svg, png []byte, err error) {
	t := r.Table()
	var ours []TableRow
	for _, row := range t.Rows {
		if row.Source == SourceOurs {
			ours = append(ours, row)
		}
	}
	w, h := vg.Length(max(7, 1.4*float64(len(t.Groups)+1)))*vg.Inch, vg.Length(3.5*float64(len(t.Metrics)))*vg.Inch
	// Groups sit one unit apart on the nominal axis; bars fill three
	// quarters of a group's share of the (roughly 85 %) drawing width.
	width := vg.Length(0.75 * 0.85 * float64(w) / float64(max(len(t.Groups), 1)) / float64(max(len(ours), 1)))
	plots := make([]*plot.Plot, len(t.Metrics))
	for mi, m := range t.Metrics {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s — mean %s", t.ID, m.Label)
		p.Y.Label.Text = m.Label
		p.Y.Min = 0
		p.X.Tick.Label.Rotation = 0
		p.Legend.Top = true
		p.Legend.Left = false
		top := 0.0
		for i, row := range ours {
			vals := make(plotter.Values, len(t.Groups))
			for gi := range t.Groups {
				v := row.Values[gi*len(t.Metrics)+mi]
				if math.IsNaN(v) {
					v = 0
				}
				if math.IsInf(v, 0) {
					// The plotter refuses it too, naming nothing; name the bar.
					return nil, nil, fmt.Errorf("plot %s: %s, %s, mean %s is %v: not a plottable value", t.ID, row.Label, t.Groups[gi], m.Label, v)
				}
				vals[gi] = v
				top = max(top, v)
			}
			bc, err := plotter.NewBarChart(vals, width)
			if err != nil {
				return nil, nil, err
			}
			bc.Color = palette[i%len(palette)]
			bc.LineStyle.Width = 0
			bc.Offset = vg.Length(float64(i)-float64(len(ours)-1)/2) * width
			p.Add(bc)
			if mi == 0 {
				p.Legend.Add(row.Label, bc)
			}
		}
		p.NominalX(t.Groups...)
		p.X.Min, p.X.Max = -0.5, float64(len(t.Groups))-0.5
		// Headroom above the tallest bar for the legend's lines.
		p.Y.Max = top * (1.1 + 0.08*float64(len(ours)))
		plots[mi] = p
	}
	return figure.Column(plots, w, h)
}
