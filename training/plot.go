package training

import (
	"fmt"
	"github.com/schedlab/schedlab/internal/figure"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// PlotCurves draws learning curves, the figure every family's training
// writes beside curves.parquet: the training return per episode above the
// mean JCT of the training episodes and of the validation runs, in hours
// or, with jctMinutes, minutes. title "" means "family variant on
// cluster" from the rows. It returns SVG (fonts not embedded, so the bytes
// are stable) and PNG.
func PlotCurves(rows []Curve, title string, jctMinutes bool) (svg, png []byte, err error) {
	var ret, trainJCT, valJCT plotter.XYs
	unit, scale := "h", 3600.0
	if jctMinutes {
		unit, scale = "min", 60
	}
	for _, r := range rows {
		if title == "" {
			title = fmt.Sprintf("%s %s on %s", r.Family, r.Variant, r.Cluster)
		}
		x := float64(r.Episode)
		switch r.Split {
		case "validation":
			valJCT = append(valJCT, plotter.XY{X: x, Y: r.MeanJCT / scale})
		default:
			ret = append(ret, plotter.XY{X: x, Y: r.Return})
			trainJCT = append(trainJCT, plotter.XY{X: x, Y: r.MeanJCT / scale})
		}
	}
	top := plot.New()
	top.Title.Text = title
	top.X.Label.Text = "episode"
	top.Y.Label.Text = "return (Σ rewards of the decisions)"
	bottom := plot.New()
	bottom.X.Label.Text = "episode"
	bottom.Y.Label.Text = "mean JCT (" + unit + ")"
	bottom.Legend.Top = true
	blue, orange := color.NRGBA{0x00, 0x72, 0xb2, 0xff}, color.NRGBA{0xd5, 0x5e, 0x00, 0xff}
	for _, s := range []struct {
		p    *plot.Plot
		xy   plotter.XYs
		c    color.Color
		name string
	}{{top, ret, blue, ""}, {bottom, trainJCT, blue, "train (sampled)"}, {bottom, valJCT, orange, "validation (greedy)"}} {
		if len(s.xy) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(s.xy)
		if err != nil {
			return nil, nil, err
		}
		l.Color, pts.Color = s.c, s.c
		pts.Radius = vg.Points(1.5)
		s.p.Add(l, pts)
		if s.name != "" {
			s.p.Legend.Add(s.name, l, pts)
		}
	}
	w, h := 7*vg.Inch, 7*vg.Inch
	return figure.Column([]*plot.Plot{top, bottom}, w, h)
}
