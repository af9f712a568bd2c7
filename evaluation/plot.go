package evaluation

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"github.com/schedlab/schedlab/internal/figure"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// palette colours schedulers (figure.Palette).
var palette = figure.Palette

// Plot draws the report's measured values (the paper's figures are not
// drawn): the figure its experiment's registration declares
// (Experiment.Plot: das-load's over the arrival rate, das-tuning's over
// the heads h and the history τ), and otherwise two grouped bar charts,
// mean JCT above mean fee, one bar per scheduler in each column group.
// The key is below the panels. It returns the same figure as SVG (fonts
// not embedded, so the file stays small and byte-stable) and PNG.
func (r *Report) Plot() (svg, png []byte, err error) {
	if e, err := Lookup(r.Spec.Experiment); err == nil && e.Plot != nil {
		return e.Plot(r)
	}
	return r.barPlot()
}

// plotOverRate is das-load's figure when its workloads are the trace at
// several arrival rates, else the bars.
func plotOverRate(r *Report) (svg, png []byte, err error) {
	if r.overRate() {
		return r.plotOverRate()
	}
	return r.barPlot()
}

// tuningPlot is a figure over the rows' tuning axes (DAS Fig. 5, for
// das-tuning) when every row is on a tuning axis or one of references
// (rows no axis holds, RIFLING's for das-tuning: the registration names
// them), else the bars.
func tuningPlot(references ...schedulers.Name) func(r *Report) (svg, png []byte, err error) {
	return func(r *Report) (svg, png []byte, err error) {
		if r.overTuning(references) {
			return r.plotTuning()
		}
		return r.barPlot()
	}
}

// overRate: several workloads, each the trace at its own arrival rate.
func (r *Report) overRate() bool {
	ws := r.Spec.Workloads
	for _, w := range ws {
		if w.Kind != KindTrace || !(w.ArrivalRate > 0) {
			return false
		}
	}
	return len(ws) > 1
}

// overTuning: several rows are on a tuning axis (schedulers.Info.Tuning,
// which the das-tuning models declare) and every other row is one of
// references.
func (r *Report) overTuning(references []schedulers.Name) bool {
	n := 0
	for _, name := range r.Names {
		if schedulers.TuningOf(name) != nil {
			n++
		} else if !slices.Contains(references, name) {
			return false
		}
	}
	return n > 1
}

// cellMean is the mean over seeds of metric mi (0 JCT in the table's
// unit, 1 fee) of scheduler si in cluster ci and workload wi; NaN when
// no cell ran.
func (r *Report) cellMean(ci, wi, si, mi int) float64 {
	scale := 60.0
	if r.Spec.Sim.Trigger == sim.TriggerInterval {
		scale = r.Spec.Sim.IntervalS
	}
	var sum float64
	n := 0
	for _, cr := range r.Cells {
		if cr.Cell.ci == ci && cr.Cell.wi == wi && cr.Cell.si == si {
			if mi == 0 {
				sum += cr.Metrics.MeanJCTS / scale
			} else {
				sum += cr.Metrics.MeanFeeUSD
			}
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// dashes tell clusters apart where colours tell schedulers apart.
var dashes = figure.Dashes

// lines adds series to one plot, their entries to the figure's key
// (drawn below the panels, clear of the data), and keeps the y axis from
// 0 with a little headroom above the highest point.
type lines struct {
	p   *plot.Plot
	key *figure.Key
	top float64
}

func (ls *lines) add(label string, pts plotter.XYs, c color.Color, dash []vg.Length) error {
	l, sc, err := plotter.NewLinePoints(pts)
	if err != nil {
		return err
	}
	l.Color, l.Dashes, sc.Color = c, dash, c
	ls.p.Add(l, sc)
	ls.key.Add(label, l, sc)
	for _, q := range pts {
		ls.top = max(ls.top, q.Y)
	}
	ls.p.Y.Min, ls.p.Y.Max = 0, ls.top*1.08
	return nil
}

// ticks labels exactly the given x values.
func ticks(xs []float64) plot.ConstantTicks {
	var t plot.ConstantTicks
	for _, x := range xs {
		t = append(t, plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'g', -1, 64)})
	}
	return t
}

// plotOverRate: mean JCT and mean fee over the arrival rate (log axis),
// one line per scheduler and cluster.
func (r *Report) plotOverRate() (svg, png []byte, err error) {
	t := r.Table()
	var rates []float64
	for _, w := range r.Spec.Workloads {
		rates = append(rates, w.ArrivalRate)
	}
	plots := make([]*plot.Plot, len(t.Metrics))
	key := &figure.Key{}
	for mi, m := range t.Metrics {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s — mean %s over the arrival rate", t.ID, m.Label)
		p.X.Label.Text, p.Y.Label.Text = "arrival rate (× the trace's)", m.Label
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, ticks(rates)
		ls := &lines{p: p, key: key}
		for si, name := range r.Names {
			for ci, c := range r.Spec.Clusters {
				var pts plotter.XYs
				for wi, w := range r.Spec.Workloads {
					if v := r.cellMean(ci, wi, si, mi); !math.IsNaN(v) {
						pts = append(pts, plotter.XY{X: w.ArrivalRate, Y: v})
					}
				}
				if len(pts) == 0 {
					continue
				}
				if err := ls.add(schedulers.Display(string(name))+", "+title(c.Name), pts, palette[si%len(palette)], dashes[ci%len(dashes)]); err != nil {
					return nil, nil, err
				}
			}
		}
		plots[mi] = p
	}
	figure.ShareX(plots...)
	return figure.ColumnKey(plots, key, 7*vg.Inch, vg.Length(3.5*float64(len(plots)))*vg.Inch)
}

// plotTuning: DAS Fig. 5's two panels, mean JCT over the heads h (τ = 8)
// and over the history τ (h = 4), one line per cluster, the averaged
// column (the paper's metric) solid black; a row on neither axis (RIFLING
// in das-tuning) is not drawn.
// The axes, one panel each in the order the rows first name them, and
// each row's place on its axis are the rows' own (schedulers.Info.Tuning).
func (r *Report) plotTuning() (svg, png []byte, err error) {
	t := r.Table()
	nm := len(t.Metrics)
	type point struct {
		x  float64
		si int
	}
	type panel struct {
		axis string
		pts  []point
	}
	var panels []panel
	for si, name := range r.Names {
		tu := schedulers.TuningOf(name)
		if tu == nil {
			continue
		}
		i := slices.IndexFunc(panels, func(p panel) bool { return p.axis == tu.Axis })
		if i < 0 {
			i = len(panels)
			panels = append(panels, panel{axis: tu.Axis})
		}
		panels[i].pts = append(panels[i].pts, point{tu.X, si})
	}
	var plots []*plot.Plot
	key := &figure.Key{}
	for _, pan := range panels {
		if len(pan.pts) == 0 {
			continue
		}
		slices.SortFunc(pan.pts, func(a, b point) int { return int(a.x - b.x) })
		var xs []float64
		for _, q := range pan.pts {
			xs = append(xs, q.x)
		}
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s — mean %s over %s", t.ID, t.Metrics[0].Label, pan.axis)
		p.X.Label.Text, p.Y.Label.Text = pan.axis, t.Metrics[0].Label
		p.X.Tick.Marker = ticks(xs)
		ls := &lines{p: p, key: key}
		for gi, g := range t.Groups {
			var pts plotter.XYs
			for _, q := range pan.pts {
				if v := t.Rows[q.si].Values[gi*nm]; !math.IsNaN(v) {
					pts = append(pts, plotter.XY{X: q.x, Y: v})
				}
			}
			c, dash := color.Color(palette[gi%len(palette)]), dashes[gi%len(dashes)]
			if g == AverageGroup {
				c, dash = color.Black, nil
			}
			if len(pts) > 0 {
				if err := ls.add(g, pts, c, dash); err != nil {
					return nil, nil, err
				}
			}
		}
		plots = append(plots, p)
	}
	if len(plots) == 0 {
		return r.barPlot()
	}
	// The panels' x axes are different quantities (h, τ): not shared.
	return figure.ColumnKey(plots, key, 7*vg.Inch, vg.Length(3.5*float64(len(plots)))*vg.Inch)
}

// barPlot: grouped bars, one chart per metric.
func (r *Report) barPlot() (svg, png []byte, err error) {
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
	key := &figure.Key{}
	for mi, m := range t.Metrics {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s — mean %s", t.ID, m.Label)
		p.Y.Label.Text = m.Label
		p.Y.Min = 0
		p.X.Tick.Label.Rotation = 0
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
			key.Add(row.Label, bc)
		}
		p.NominalX(t.Groups...)
		p.X.Min, p.X.Max = -0.5, float64(len(t.Groups))-0.5
		p.Y.Max = top * 1.08
		plots[mi] = p
	}
	return figure.ColumnKey(plots, key, w, h)
}
