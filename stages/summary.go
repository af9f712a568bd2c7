package stages

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/internal/stats"
	"github.com/schedlab/schedlab/pipeline"
	"gonum.org/v1/gonum/stat"
)

// JobsSummaryStage reads the run's jobs table (the artifact at jobs) and
// writes a Markdown summary: job count, submission span, the GPU-request
// histogram, duration quantiles and the most common workload types.
func JobsSummaryStage(cfg SummaryConfig, jobs string) pipeline.Stage {
	return &pipeline.Func{
		StageName: "jobs-summary", StageVersion: stageVersion,
		In: []string{jobs}, Out: []string{JobsSummary}, Cfg: cfg,
		Fn: func(ctx context.Context, env *pipeline.Env) error {
			jobs, err := datasets.ReadParquet[datasets.Job](env.Input(jobs))
			if err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			md := SummariseJobs(jobs, cfg.Quantiles)
			env.SetRows(JobsSummary, 0)
			return pipeline.WriteFileAtomic(env.Output(JobsSummary), []byte(md))
		},
	}
}

// gpuBuckets are the upper bounds of the GPU-request histogram's bins.
var gpuBuckets = []struct {
	label string
	upTo  float64
}{{"0", 0}, {"(0, 1]", 1}, {"(1, 2]", 2}, {"(2, 4]", 4}, {"(4, 8]", 8}, {"(8, 16]", 16}, {"(16, 64]", 64}, {"> 64", 1e308}}

// SummariseJobs renders the summary of jobs as Markdown.
func SummariseJobs(jobs []datasets.Job, quantiles []float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Jobs summary\n\n")
	if len(jobs) == 0 {
		b.WriteString("No jobs.\n")
		return b.String()
	}
	lo, hi := jobs[0].SubmitS, jobs[0].SubmitS
	dur := make([]float64, len(jobs))
	hist := make([]int, len(gpuBuckets))
	models := map[string]int{}
	sources := map[string]int{}
	var gpuHours float64
	for i, j := range jobs {
		lo, hi = min(lo, j.SubmitS), max(hi, j.SubmitS)
		dur[i] = j.DurationS
		g := j.TotalGPU()
		gpuHours += g * j.DurationS / 3600
		for k, bk := range gpuBuckets {
			if g <= bk.upTo {
				hist[k]++
				break
			}
		}
		m := j.Model
		if m == "" {
			m = "(unknown)"
		}
		models[m]++
		sources[j.Source]++
	}
	sort.Float64s(dur)
	fmt.Fprintf(&b, "| quantity | value |\n|---|---|\n")
	fmt.Fprintf(&b, "| jobs | %d |\n", len(jobs))
	fmt.Fprintf(&b, "| sources | %s |\n", countsList(sources, 0))
	fmt.Fprintf(&b, "| submission span (h) | %.3f |\n", (hi-lo)/3600)
	fmt.Fprintf(&b, "| GPU-hours requested | %.1f |\n", gpuHours)
	fmt.Fprintf(&b, "| mean duration (s) | %.1f |\n", stat.Mean(dur, nil))
	for _, q := range quantiles {
		fmt.Fprintf(&b, "| p%s duration (s) | %.1f |\n", trimFloat(100*q), stats.Quantile(dur, q))
	}
	fmt.Fprintf(&b, "\n## GPUs requested per job\n\n| GPUs | jobs | share |\n|---|---|---|\n")
	for k, bk := range gpuBuckets {
		fmt.Fprintf(&b, "| %s | %d | %.1f %% |\n", bk.label, hist[k], 100*float64(hist[k])/float64(len(jobs)))
	}
	fmt.Fprintf(&b, "\n## Workload types\n\n%s\n", countsList(models, 10))
	return b.String()
}

// countsList renders name (count) pairs by descending count, then name, so
// the order never depends on map iteration; limit ≤ 0 lists all.
func countsList(m map[string]int, limit int) string {
	type kv struct {
		k string
		v int
	}
	var s []kv
	for k, v := range m {
		s = append(s, kv{k, v})
	}
	sort.Slice(s, func(i, j int) bool { return s[i].v > s[j].v || s[i].v == s[j].v && s[i].k < s[j].k })
	var parts []string
	for i, e := range s {
		if limit > 0 && i == limit {
			parts = append(parts, fmt.Sprintf("… %d more", len(s)-limit))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%d)", e.k, e.v))
	}
	return strings.Join(parts, ", ")
}

func trimFloat(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}
