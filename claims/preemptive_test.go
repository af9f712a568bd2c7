package claims

import (
	"strings"
	"testing"

	"github.com/schedlab/schedlab/evaluation"
)

// TestPreemptiveClaims: 2D-LAS against strict FIFO and SRTF against
// 2D-LAS are decided in every column of the preemptive experiment (trace
// × restart cost), the least margin deciding; the oracle may be the row a
// claim is about, never its baseline.
func TestPreemptiveClaims(t *testing.T) {
	col := func(workload string, fifo, las, srtf float64) []Cell {
		c := cellsOf(evaluation.Preemptive, "small", workload, "fifo-strict", 1, fifo)
		c = append(c, cellsOf(evaluation.Preemptive, "small", workload, "tiresias-las", 1, las)...)
		return append(c, cellsOf(evaluation.Preemptive, "small", workload, "srtf", 1, srtf)...)
	}
	cfg := config(evaluation.Preemptive)
	evaluation.PreemptiveSection.Set(cfg, evaluation.PreemptiveConfig{Traces: []string{"elasticflow"}, RestartS: []float64{0, 30}, MaxJobs: 100,
		Clusters: []evaluation.Cluster{{Name: "small"}}})
	for _, tc := range []struct {
		name      string
		cells     []Cell
		las, srtf Verdict
		ours      string // of tiresias-las-vs-fifo
	}{
		// LAS 50 % and 40 % below FIFO; SRTF 10 % and 25 % below LAS.
		{"both hold", append(col("elasticflow-r0", 100, 50, 45), col("elasticflow-r30", 100, 60, 45)...), Holds, Holds, "+40.0 % vs FIFO (strict) (Elasticflow-r30) (the least of 2)"},
		// At restart 30 LAS loses to FIFO, and SRTF to LAS.
		{"one column fails", append(col("elasticflow-r0", 100, 50, 45), col("elasticflow-r30", 100, 110, 120)...), DoesNotHold, DoesNotHold, "-10.0 % vs FIFO (strict) (Elasticflow-r30) (the least of 2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows := evaluate(t, &Input{Run: Run{Config: cfg, Seed: 1}, Cells: tc.cells})
			las, srtf := rows["tiresias-las-vs-fifo"], rows["tiresias-srtf-vs-las"]
			if las.Verdict != tc.las || las.Ours != tc.ours {
				t.Errorf("tiresias-las-vs-fifo: %q, ours %q; want %q, %q", las.Verdict, las.Ours, tc.las, tc.ours)
			}
			if srtf.Verdict != tc.srtf || !strings.Contains(srtf.Ours, "vs 2D-LAS (Tiresias)") {
				t.Errorf("tiresias-srtf-vs-las: %q, ours %q; want %q against 2D-LAS", srtf.Verdict, srtf.Ours, tc.srtf)
			}
			if failed := srtf.Verdict == DoesNotHold; failed != strings.Contains(srtf.Note, "one-GPU jobs") {
				t.Errorf("tiresias-srtf-vs-las %q: note %q: want why SRTF loses exactly when it does", srtf.Verdict, srtf.Note)
			}
			if !strings.Contains(las.TestedAt, "100 jobs per trace on small") {
				t.Errorf("tested at %q", las.TestedAt)
			}
		})
	}
	rows := evaluate(t, &Input{Run: Run{Config: config(), Seed: 1}})
	if r := rows["tiresias-las-vs-fifo"]; r.Verdict != NotRun {
		t.Errorf("preemptive not listed: %q", r.Verdict)
	}
}
