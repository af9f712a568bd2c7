package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/rundiff"
	"github.com/schedlab/schedlab/stages"
	"github.com/spf13/cobra"
)

func init() { register(newDiffCmd) }

// diffExitStatus is what `schedlab diff` exits with when the runs differ
// beyond the thresholds (0: they do not; 1: error; 2: bad usage).
const diffExitStatus = 3

// exitStatus is an error that sets the exit status itself.
type exitStatus struct {
	code int
	msg  string
}

func (e exitStatus) Error() string { return e.msg }

func newDiffCmd(a *app) *cobra.Command {
	th := rundiff.DefaultThresholds()
	var minDelta, htmlFile string
	var bytes, allowUntested bool
	cmd := &cobra.Command{
		Use:         "diff RUN_A RUN_B",
		Annotations: map[string]string{inputTreesAnnotation: "runs"},
		Short:       "Compare two runs: which artifacts, keys and stages differ, and whether the metrics differ beyond noise",
		Long: `diff compares two run directories (written by schedlab run) and tells a real change from
noise. It prints Markdown on stdout (--html writes the same as a page) with:

  verdict        whether any metric differs beyond the thresholds (below)
  configuration  the keys of the resolved configuration that differ (dotted:
                 eval.das_load.rates); when the configuration hashes are equal
                 they change no output (out, workers, preset)
  stages         every stage whose cache key or outputs differ and what explains
                 it: its own configuration (the keys named), its inputs, its
                 version, the run seed, or nothing at all: "code change" (same
                 key, other revision) or "nondeterminism" (same clean revision;
                 both when a revision is unknown), the case worth a look
  artifacts      the outputs whose sha256 differs, from the two manifests (and
                 the report, hashed from disk); manifest.json and every file
                 named *timings* hold wall-clock figures: expected to differ
  metrics        per experiment and cell (eval/<experiment>/metrics.parquet), the
                 means over seeds of A and B and B − A, with a test:
                   paired Wilcoxon   the two runs replayed the same jobs (same
                                     seed and trace): signed-rank test on the
                                     per-job JCT, fee, queueing time, slowdown
                   between seeds     different jobs and two or more seeds a
                                     side (eval.seeds): Welch's t, with its
                                     confidence interval
                   single sample     one seed a side (or seeds that all give
                                     the same value) and different jobs: a
                                     delta, nothing to test it against

A difference is significant when its p-value, adjusted over all the comparison's tests
(Holm), is below --alpha and its size |B − A| / |A| is at least --min-delta. A cell in
one run only is significant too, and so is a single-sample cell whose mean JCT, fee,
queueing time or slowdown moves by --min-delta or more: noise cannot be ruled out, so
"no difference" would claim what was not shown (--allow-untested ignores those).
Two runs of the same preset and seed replay the same jobs, so a nightly comparison
of two revisions gets paired tests.

Exit status: 0 no difference beyond the thresholds, 3 a significant difference,
1 an error (a run directory without manifest.json, a corrupt or changed file: named),
2 bad usage.`,
		Example: `  schedlab diff runs/monday runs/tuesday                  # alpha 0.01, |Δ| ≥ 1 %
  schedlab diff a b --alpha 0.05 --min-delta 0.5% --html diff.html
  schedlab diff a b --bytes                               # any artifact difference fails
  schedlab diff last tonight > diff.md; [ $? -eq 3 ] && mail -s "results changed" team < diff.md`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageErrorf("diff: want two run directories, RUN_A and RUN_B, got %d arguments (see schedlab diff --help)", len(args))
			}
			md, err := parseFraction(minDelta)
			if err != nil {
				return usageErrorf("diff: --min-delta: %v", err)
			}
			th.MinDelta = md
			if err := th.Validate(); err != nil {
				return usageErrorf("diff: --%v", err)
			}
			d, err := rundiff.Compare(cmd.Context(), args[0], args[1], rundiff.Options{Thresholds: th, Bytes: bytes, AllowUntested: allowUntested, StageConfigs: stageConfigs})
			if err != nil {
				return err
			}
			if _, err := fmt.Fprint(cmd.OutOrStdout(), d.Markdown()); err != nil {
				return err
			}
			if htmlFile != "" {
				page, err := d.HTML()
				if err != nil {
					return err
				}
				if err := pipeline.WriteFileAtomic(htmlFile, page); err != nil {
					return fmt.Errorf("diff: --html: %w", err)
				}
			}
			if d.Significant() {
				return exitStatus{diffExitStatus, fmt.Sprintf("diff: %s and %s differ beyond the thresholds (exit status %d)", args[0], args[1], diffExitStatus)}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.Float64Var(&th.Alpha, "alpha", th.Alpha, "significance level after Holm's adjustment, in (0, 1)")
	f.StringVar(&minDelta, "min-delta", "1%", "smallest relative difference |B − A| / |A| that counts: a fraction (0.01) or a percentage (1%)")
	f.StringVar(&htmlFile, "html", "", "also write the comparison as a self-contained HTML page to this file")
	f.BoolVar(&allowUntested, "allow-untested", false, "do not count differences that cannot be tested (single sample) as significant")
	f.BoolVar(&bytes, "bytes", false, "count any artifact difference outside wall-clock files as significant (runs expected byte-identical)")
	return cmd
}

// parseFraction reads "1%", "0.5 %" or "0.01".
func parseFraction(s string) (float64, error) {
	t := strings.TrimSpace(s)
	scale := 1.0
	if v, ok := strings.CutSuffix(t, "%"); ok {
		t, scale = strings.TrimSpace(v), 0.01
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a fraction (0.01) or a percentage (1%%)", s)
	}
	return v * scale, nil
}

// stageConfigs rebuilds a run's DAG from its recorded configuration and
// returns each stage's own configuration, the part that enters its cache
// key, so that diff can name the keys that changed a stage.
func stageConfigs(config json.RawMessage) (map[string]json.RawMessage, error) {
	// Today's embedded defaults first: a key the recorded configuration
	// lacks (a run from before it existed) takes its default, as it would
	// have in a run of this binary.
	var cfg stages.Config
	defaults, err := embeddedLayer("defaults")
	if err != nil {
		return nil, err
	}
	if err := decodeConfig(defaults, &cfg); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(config, &cfg); err != nil {
		return nil, fmt.Errorf("recorded configuration: %w", err)
	}
	dag, err := stages.Build(&cfg)
	if err != nil {
		return nil, err
	}
	out := make(map[string]json.RawMessage, len(dag))
	for _, s := range dag {
		b, err := json.Marshal(s.Config())
		if err != nil {
			return nil, fmt.Errorf("stage %s: %w", s.Name(), err)
		}
		out[s.Name()] = b
	}
	return out, nil
}
