package stages

import (
	"image/color"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/claims"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/internal/figure"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The forest plot of the claims, written beside the report.
const (
	ClaimsForestSVG = "plots/claims-forest.svg"
	ClaimsForestPNG = "plots/claims-forest.png"
)

// Verdict colours, shared by the forest plot and report.html's
// scoreboard: Okabe & Ito's bluish green, vermillion and a grey.
var verdictColour = map[claims.Verdict]color.NRGBA{
	claims.Holds:        {0x00, 0x9e, 0x73, 0xff},
	claims.DoesNotHold:  {0xd5, 0x5e, 0x00, 0xff},
	claims.Inconclusive: {0x88, 0x88, 0x88, 0xff},
	claims.Untestable:   {0x00, 0x72, 0xb2, 0xff}, // Okabe & Ito's blue
}

// thresholdColour marks a claim's threshold in the forest plot: Okabe &
// Ito's blue, apart from the verdicts' colours and from the grey zero
// line it often sits on.
var thresholdColour = color.NRGBA{0x00, 0x72, 0xb2, 0xff}

// paperNames are the papers' names in the plot and the report.
var paperNames = map[string]string{evaluation.PaperDAS: "DAS (KDD 2023)", evaluation.PaperMARL: "MARL (TNSM 2021)"}

func paperName(p string) string {
	if n, ok := paperNames[p]; ok {
		return n
	}
	return p
}

var percent = regexp.MustCompile(`([+−-]?[0-9]+(?:\.[0-9]+)?) ?%`)

// paperMargin is the paper's figure of a claim as a number, when its text
// gives one in per cent (the first one: a claim on JCT and fee gives the
// JCT's first).
func paperMargin(r claims.Row) (float64, bool) {
	m := percent.FindStringSubmatch(r.PaperFigure())
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(m[1], "−", "-"), 64)
	return v, err == nil
}

// plotted reports whether a claim that ran is drawn: it has a margin.
func plotted(r claims.Row) bool {
	return r.Verdict.Tested() && !math.IsNaN(r.Value) && !math.IsInf(r.Value, 0)
}

// forestPlot draws every claim that ran and has a margin, one row each,
// grouped by paper: our margin (a dot coloured by the verdict) with its
// 95 % interval (a bar, where there is one), the paper's figure (a
// triangle), the claim's threshold (a vertical tick) and, for a claim on
// mean JCT, its headroom (a grey square: the margin a scheduler at the
// floor would have); a cross over the dot of a claim set aside because
// its claimed model did not learn. It returns nil
// when no claim has a margin.
func forestPlot(rows []claims.Row) (svg, png []byte, err error) {
	var papers []string
	byPaper := map[string][]claims.Row{}
	for _, r := range rows {
		if !plotted(r) {
			continue
		}
		if _, ok := byPaper[r.Paper]; !ok {
			papers = append(papers, r.Paper)
		}
		byPaper[r.Paper] = append(byPaper[r.Paper], r)
	}
	if len(papers) == 0 {
		return nil, nil, nil
	}
	p := plot.New()
	p.Title.Text = "Claims that ran: our margin beside the paper's figure"
	p.X.Label.Text = "margin over the best baseline (%; positive: the claimed scheduler is better)"
	key := &figure.Key{}
	var yt plot.ConstantTicks
	y := 0.0
	lo, hi := 0.0, 0.0
	seen := map[string]bool{}
	add := func(label string, thumbs ...plot.Thumbnailer) {
		if !seen[label] {
			seen[label] = true
			key.Add(label, thumbs...)
		}
	}
	// The zero line first, so that every mark (a threshold of 0 above all)
	// is drawn over it.
	n := len(papers)
	for _, rs := range byPaper {
		n += len(rs)
	}
	zero, err := plotter.NewLine(plotter.XYs{{X: 0, Y: -float64(n) - 0.5}, {X: 0, Y: -0.5}})
	if err != nil {
		return nil, nil, err
	}
	zero.Color, zero.Dashes = color.Gray{Y: 0xcc}, []vg.Length{vg.Points(2), vg.Points(2)}
	p.Add(zero)
	for _, paper := range papers {
		y--
		yt = append(yt, plot.Tick{Value: y, Label: paperName(paper) + ":"})
		for _, r := range byPaper[paper] {
			y--
			yt = append(yt, plot.Tick{Value: y, Label: r.ID})
			c := verdictColour[r.Verdict]
			if r.HasCI && r.CI.Valid() {
				l, err := plotter.NewLine(plotter.XYs{{X: r.CI.Lo, Y: y}, {X: r.CI.Hi, Y: y}})
				if err != nil {
					return nil, nil, err
				}
				l.Color, l.Width = c, vg.Points(2)
				p.Add(l)
				lo, hi = min(lo, r.CI.Lo), max(hi, r.CI.Hi)
				add("95 % interval of our margin", l)
			}
			if !math.IsNaN(r.Threshold) && !math.IsInf(r.Threshold, 0) {
				l, err := plotter.NewLine(plotter.XYs{{X: r.Threshold, Y: y - 0.4}, {X: r.Threshold, Y: y + 0.4}})
				if err != nil {
					return nil, nil, err
				}
				l.Color, l.Width = thresholdColour, vg.Points(2.5)
				p.Add(l)
				lo, hi = min(lo, r.Threshold), max(hi, r.Threshold)
				add("the claim's threshold", l)
			}
			if h := r.Headroom; !math.IsNaN(h) && !math.IsInf(h, 0) {
				s, err := plotter.NewScatter(plotter.XYs{{X: h, Y: y}})
				if err != nil {
					return nil, nil, err
				}
				s.Shape, s.Color, s.Radius = draw.BoxGlyph{}, color.Gray{Y: 0x66}, vg.Points(3)
				p.Add(s)
				lo, hi = min(lo, h), max(hi, h)
				add("the headroom: a scheduler at the floor", s)
			}
			if v, ok := paperMargin(r); ok {
				s, err := plotter.NewScatter(plotter.XYs{{X: v, Y: y}})
				if err != nil {
					return nil, nil, err
				}
				s.Shape, s.Color, s.Radius = draw.PyramidGlyph{}, color.Black, vg.Points(4)
				p.Add(s)
				lo, hi = min(lo, v), max(hi, v)
				add("the paper's figure", s)
			}
			s, err := plotter.NewScatter(plotter.XYs{{X: r.Value, Y: y}})
			if err != nil {
				return nil, nil, err
			}
			s.Shape, s.Color, s.Radius = draw.CircleGlyph{}, c, vg.Points(4.5)
			p.Add(s)
			lo, hi = min(lo, r.Value), max(hi, r.Value)
			add("ours: "+string(r.Verdict), s)
			if r.Verdict == claims.Untestable && r.NotLearned != "" {
				x, err := plotter.NewScatter(plotter.XYs{{X: r.Value, Y: y}})
				if err != nil {
					return nil, nil, err
				}
				x.Shape, x.Color, x.Radius = draw.CrossGlyph{}, color.Black, vg.Points(6)
				p.Add(x)
				add("set aside: the claimed model did not learn", x)
			}
		}
	}
	pad := math.Max((hi-lo)*0.08, 1)
	p.X.Min, p.X.Max = lo-pad, hi+pad
	p.Y.Min, p.Y.Max = y-0.7, -0.3
	p.X.Tick.Marker = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		ts := plot.DefaultTicks{}.Ticks(lo, hi)
		for i := range ts {
			if ts[i].Label != "" {
				ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', 4, 64)
			}
		}
		return ts
	})
	p.Y.Tick.Marker = yt
	p.Y.Tick.Length = 0
	return figure.ColumnKey([]*plot.Plot{p}, key, 8*vg.Inch, vg.Length(0.3*float64(n)+1.3)*vg.Inch)
}
