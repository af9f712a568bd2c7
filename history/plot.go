package history

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/schedlab/schedlab/internal/figure"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// IndexFile lists the plots Plot writes, with the runs they cover.
const IndexFile = "index.md"

// Headline is a metric Plot draws: the headline numbers of both papers'
// tables, mean job completion time and mean fee.
type Headline struct {
	Label string
	Value func(*Row) float64
}

// Headlines are the metrics Plot draws, one panel each.
var Headlines = []Headline{
	{"mean JCT (min)", func(r *Row) float64 { return r.MeanJCTS / 60 }}, // the report's unit
	{"mean fee (USD)", func(r *Row) float64 { return r.MeanFeeUSD }},
}

// Plot draws the history in dir into out: per preset and experiment, one
// SVG (<preset>-<experiment>.svg) with a panel per headline metric and
// cluster, one line per scheduler over the preset's runs ordered by date,
// then revision (then config hash). A point is the mean of the metric
// over the run's cells of that cluster and scheduler (workloads, seeds
// and replicates); a panel whose values are all zero (the MARL
// experiments charge no fee) is left out. It writes out/index.md listing
// the plots and the runs, and returns the files written.
func Plot(ctx context.Context, dir, out string) ([]string, error) {
	recs, err := Read(dir)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: no history (no preset=*/revision=*/%s)", dir, FileName)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	var written []string
	var index strings.Builder
	index.WriteString("# schedlab history\n\nDataset: `" + dir + "`. Each plot: a headline metric of one experiment over the runs of one preset, ordered by date, then revision; a point is the mean over the run's cells of a cluster and scheduler (workloads, seeds, replicates).\n")
	for _, preset := range distinct(recs, func(r Record) string { return r.Preset }) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var rs []*Record
		for i := range recs {
			if recs[i].Preset == preset {
				rs = append(rs, &recs[i])
			}
		}
		runs := runsOf(rs)
		fmt.Fprintf(&index, "\n## Preset %s\n\n| run | date | revision | config hash | cells |\n|---:|---|---|---|---:|\n", preset)
		cells := map[Key]int{}
		for _, r := range rs {
			cells[r.Key()]++
		}
		for i, k := range runs {
			fmt.Fprintf(&index, "| %d | %s | %s | %.12s | %d |\n", i+1, k.Date.Format(time.RFC3339), mdCode(k.Revision), k.ConfigHash, cells[k])
		}
		index.WriteString("\n")
		for _, exp := range distinct(rs, func(r *Record) string { return r.Experiment }) {
			svg, err := plotExperiment(preset, exp, runs, rs)
			if err != nil {
				return nil, fmt.Errorf("plot %s %s: %w", preset, exp, err)
			}
			if svg == nil {
				continue
			}
			name := EscapeValue(preset) + "-" + EscapeValue(exp) + ".svg"
			p := filepath.Join(out, name)
			if err := pipeline.WriteFileAtomic(p, svg); err != nil {
				return nil, err
			}
			written = append(written, p)
			fmt.Fprintf(&index, "### %s\n\n![%s, %s](%s)\n\n", exp, preset, exp, name)
		}
	}
	p := filepath.Join(out, IndexFile)
	if err := pipeline.WriteFileAtomic(p, []byte(index.String())); err != nil {
		return nil, err
	}
	return append(written, p), nil
}

func mdCode(s string) string { return "`" + strings.ReplaceAll(s, "`", "'") + "`" }

// distinct is the sorted distinct values of key over xs.
func distinct[T any](xs []T, key func(T) string) []string {
	var out []string
	for _, x := range xs {
		out = append(out, key(x))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// runsOf lists the distinct runs of rs in plot order.
func runsOf(rs []*Record) []Key {
	var ks []Key
	for _, r := range rs {
		ks = append(ks, r.Key())
	}
	slices.SortFunc(ks, compareKeys)
	return slices.CompactFunc(ks, func(a, b Key) bool { return compareKeys(a, b) == 0 })
}

// series is one line: a cluster and scheduler of an experiment.
type series struct{ cluster, scheduler string }

// plotExperiment draws one experiment's headlines over the runs, a panel
// per headline and cluster, a line per scheduler; nil when every panel
// would be empty.
func plotExperiment(preset, exp string, runs []Key, rs []*Record) ([]byte, error) {
	at := make(map[Key]int, len(runs))
	for i, k := range runs {
		at[k] = i
	}
	// sum and n, per series, run and headline (index h*len(runs)+run).
	type acc struct{ sum, n []float64 }
	lines := map[series]*acc{}
	var clusters, scheds []string
	for _, r := range rs {
		if r.Experiment != exp {
			continue
		}
		s := series{r.Cluster, r.Scheduler}
		a := lines[s]
		if a == nil {
			a = &acc{make([]float64, len(runs)*len(Headlines)), make([]float64, len(runs)*len(Headlines))}
			lines[s] = a
			clusters, scheds = append(clusters, r.Cluster), append(scheds, r.Scheduler)
		}
		i := at[r.Key()]
		for h := range Headlines {
			a.sum[h*len(runs)+i] += Headlines[h].Value(&r.Row)
			a.n[h*len(runs)+i]++
		}
	}
	slices.Sort(clusters)
	clusters = slices.Compact(clusters)
	slices.Sort(scheds)
	scheds = slices.Compact(scheds)
	var plots []*plot.Plot
	key := &figure.Key{}
	for h, hl := range Headlines {
		for _, cl := range clusters {
			p := plot.New()
			p.Title.Text = fmt.Sprintf("%s, %s, %s: %s over runs", preset, exp, cl, hl.Label)
			p.X.Label.Text, p.Y.Label.Text = "run (date, revision, configuration hash)", hl.Label
			p.X.Tick.Marker = runTicks(runs)
			p.X.Min, p.X.Max = -0.5, float64(len(runs))-0.5
			top, drawn := 0.0, false
			for si, sc := range scheds {
				a := lines[series{cl, sc}]
				if a == nil {
					continue
				}
				var pts plotter.XYs
				for i := range runs {
					if k := h*len(runs) + i; a.n[k] > 0 {
						if v := a.sum[k] / a.n[k]; !math.IsNaN(v) && !math.IsInf(v, 0) {
							pts = append(pts, plotter.XY{X: float64(i), Y: v})
							top = max(top, v)
							drawn = drawn || v != 0
						}
					}
				}
				if len(pts) == 0 {
					continue
				}
				l, pt, err := plotter.NewLinePoints(pts)
				if err != nil {
					return nil, err
				}
				c := figure.Palette[si%len(figure.Palette)]
				l.Color, pt.Color = c, c
				p.Add(l, pt)
				key.Add(schedulers.Display(sc), l, pt)
			}
			if !drawn {
				continue
			}
			p.Y.Min, p.Y.Max = 0, top*1.08
			plots = append(plots, p)
		}
	}
	if len(plots) == 0 {
		return nil, nil
	}
	svg, _, err := figure.ColumnKey(plots, key, 7*vg.Inch, vg.Length(3.2*float64(len(plots)))*vg.Inch)
	return svg, err
}

// runTicks labels at most maxTicks runs, evenly spread, by date,
// revision and configuration hash (which holds the run seed): runs of one
// revision on one day with other seeds or settings are told apart.
func runTicks(runs []Key) plot.ConstantTicks {
	const maxTicks = 8
	step := max(1, (len(runs)+maxTicks-1)/maxTicks)
	var t plot.ConstantTicks
	for i := 0; i < len(runs); i += step {
		t = append(t, plot.Tick{Value: float64(i), Label: runs[i].Date.Format("2006-01-02 15:04") + "\n" + shortRevision(runs[i].Revision) + "\ncfg " + shortHash(runs[i].ConfigHash)})
	}
	return t
}

// shortHash is a configuration hash as a tick label: its first 8
// characters.
func shortHash(h string) string {
	if len(h) > 8 {
		return h[:8]
	}
	return h
}

// shortRevision is a revision as a tick label: a commit hash cut to 12
// characters, "-dirty" kept.
func shortRevision(rev string) string {
	base, dirty := strings.CutSuffix(rev, "-dirty")
	if len(base) > 12 {
		base = base[:12]
	}
	if dirty {
		return base + "-dirty"
	}
	return base
}
