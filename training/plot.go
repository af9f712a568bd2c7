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
	unit, scale := "h", 3600.0
	if jctMinutes {
		unit, scale = "min", 60
	}
	if title == "" && len(rows) > 0 {
		title = fmt.Sprintf("%s %s on %s", rows[0].Family, rows[0].Variant, rows[0].Cluster)
	}
	ret, trainJCT, valJCT := curvePoints(rows, scale)
	top, bottom := curvePanels(title, "mean JCT ("+unit+")")
	key := &figure.Key{}
	for _, s := range []struct {
		p    *plot.Plot
		xy   plotter.XYs
		c    color.Color
		name string
	}{{top, ret, seriesColours[0], ""}, {bottom, trainJCT, seriesColours[0], "train (sampled)"}, {bottom, valJCT, seriesColours[1], "validation (greedy)"}} {
		if err := addCurve(s.p, key, s.xy, s.c, s.name); err != nil {
			return nil, nil, err
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
	top, bottom := curvePanels(title, "mean JCT of the validation runs (h)")
	key := &figure.Key{}
	for i, s := range series {
		ret, trainJCT, valJCT := curvePoints(s.Rows, 3600)
		jct, name := valJCT, s.Label
		if len(jct) == 0 {
			jct, name = trainJCT, s.Label+" (JCT of its training episodes)"
		}
		c := seriesColours[i%len(seriesColours)]
		if err := addCurve(top, key, ret, c, s.Label); err != nil {
			return nil, nil, err
		}
		if err := addCurve(bottom, key, jct, c, name); err != nil {
			return nil, nil, err
		}
	}
	figure.ShareX(top, bottom)
	return figure.ColumnKey([]*plot.Plot{top, bottom}, key, 7*vg.Inch, 7*vg.Inch)
}

// curvePoints splits curve rows by episode into the training return, the
// training episodes' mean JCT and the validation runs' mean JCT, the JCTs
// divided by scale (seconds per unit).
func curvePoints(rows []Curve, scale float64) (ret, trainJCT, valJCT plotter.XYs) {
	for _, r := range rows {
		x := float64(r.Episode)
		if r.Split == "validation" {
			valJCT = append(valJCT, plotter.XY{X: x, Y: r.MeanJCT / scale})
		} else {
			ret = append(ret, plotter.XY{X: x, Y: r.Return})
			trainJCT = append(trainJCT, plotter.XY{X: x, Y: r.MeanJCT / scale})
		}
	}
	return ret, trainJCT, valJCT
}

// curvePanels are a learning-curve figure's two panels: the return above
// the mean JCT (its axis labelled jctLabel), both over episodes.
func curvePanels(title, jctLabel string) (top, bottom *plot.Plot) {
	top = plot.New()
	top.Title.Text = title
	top.X.Label.Text = "episode"
	top.Y.Label.Text = "return (Σ rewards of the decisions)"
	bottom = plot.New()
	bottom.X.Label.Text = "episode"
	bottom.Y.Label.Text = jctLabel
	return top, bottom
}

// addCurve draws xy on p as a line with points in colour c, named in the
// key unless name is ""; an empty xy draws nothing.
func addCurve(p *plot.Plot, key *figure.Key, xy plotter.XYs, c color.Color, name string) error {
	if len(xy) == 0 {
		return nil
	}
	l, pts, err := plotter.NewLinePoints(xy)
	if err != nil {
		return err
	}
	l.Color, pts.Color = c, c
	pts.Radius = vg.Points(1.5)
	p.Add(l, pts)
	if name != "" {
		key.Add(name, l, pts)
	}
	return nil
}

// seriesColours are Okabe & Ito's colour-blind-safe blue, vermillion,
// green and purple.
var seriesColours = []color.NRGBA{{0x00, 0x72, 0xb2, 0xff}, {0xd5, 0x5e, 0x00, 0xff}, {0x00, 0x9e, 0x73, 0xff}, {0xcc, 0x79, 0xa7, 0xff}}
