package training

import (
	"fmt"
	"image/color"

	"github.com/schedlab/schedlab/internal/figure"
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
	key := &figure.Key{}
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
			key.Add(s.name, l, pts)
		}
	}
	figure.ShareX(top, bottom)
	w, h := 7*vg.Inch, 7*vg.Inch
	return figure.ColumnKey([]*plot.Plot{top, bottom}, key, w, h)
}

// Series is one model's learning curves in a PlotConvergence figure.
type Series struct {
	Label string
	Rows  []Curve
}

// PlotConvergence draws several models' learning curves on shared axes,
// as MARL Fig. 10(a) compares multi- and single-agent training: the
// training return per episode above the mean JCT of the validation runs
// (of the training episodes where a model has no validation rows), in
// hours; both panels on one episode axis, the key below them. It returns
// SVG and PNG.
func PlotConvergence(series []Series, title string) (svg, png []byte, err error) {
	top := plot.New()
	top.Title.Text = title
	top.X.Label.Text = "episode"
	top.Y.Label.Text = "return (Σ rewards of the decisions)"
	bottom := plot.New()
	bottom.X.Label.Text = "episode"
	bottom.Y.Label.Text = "mean JCT of the validation runs (h)"
	key := &figure.Key{}
	for i, s := range series {
		var ret, trainJCT, valJCT plotter.XYs
		for _, r := range s.Rows {
			x := float64(r.Episode)
			if r.Split == "validation" {
				valJCT = append(valJCT, plotter.XY{X: x, Y: r.MeanJCT / 3600})
			} else {
				ret = append(ret, plotter.XY{X: x, Y: r.Return})
				trainJCT = append(trainJCT, plotter.XY{X: x, Y: r.MeanJCT / 3600})
			}
		}
		jct, name := valJCT, s.Label
		if len(jct) == 0 {
			jct, name = trainJCT, s.Label+" (JCT of its training episodes)"
		}
		c := seriesColours[i%len(seriesColours)]
		for _, part := range []struct {
			p    *plot.Plot
			xy   plotter.XYs
			name string
		}{{top, ret, s.Label}, {bottom, jct, name}} {
			if len(part.xy) == 0 {
				continue
			}
			l, pts, err := plotter.NewLinePoints(part.xy)
			if err != nil {
				return nil, nil, err
			}
			l.Color, pts.Color = c, c
			pts.Radius = vg.Points(1.5)
			part.p.Add(l, pts)
			key.Add(part.name, l, pts)
		}
	}
	figure.ShareX(top, bottom)
	return figure.ColumnKey([]*plot.Plot{top, bottom}, key, 7*vg.Inch, 7*vg.Inch)
}

// seriesColours are Okabe & Ito's colour-blind-safe blue, vermillion,
// green and purple.
var seriesColours = []color.NRGBA{{0x00, 0x72, 0xb2, 0xff}, {0xd5, 0x5e, 0x00, 0xff}, {0x00, 0x9e, 0x73, 0xff}, {0xcc, 0x79, 0xa7, 0xff}}
