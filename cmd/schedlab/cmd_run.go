package main

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/schedlab/schedlab/claims"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/history"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/stages"
	"github.com/spf13/cobra"
)

func newRunCmd(a *app) *cobra.Command {
	var executor string
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the whole pipeline (the standard DAG) into a run directory",
		Long: `run executes the standard DAG on the configured preset and writes its results under
the run directory (--out, default ./out):

  manifest.json   configuration, seed, code version, every input and output with
                  its sha256 and row count, per-stage wall time and cache status
  datasets/       canonical Parquet tables (jobs.parquet, ...)
  fit/            the fitted interference models and MARL Table III
  eval/           results, metrics and timings of the evaluation experiments
  tables/         Markdown, CSV and LaTeX tables
  plots/          SVG and PNG bar charts
  report.md       the run in one page: what ran on which data, the headline tables
  report.html     with their plots and the paper's values (labelled), provenance;
                  byte-identical across runs (wall-clock figures: report-timings.md);
                  the HTML is self-contained (plots embedded)

Stages whose inputs and configuration did not change since the last run in the same
directory are skipped (cached). An interrupted run (Ctrl-C, SIGTERM, a crash) leaves no
half-written artifact that a later run would trust; the next run resumes. A row that
stops on its own (an external policy declared on_error: row) leaves the other rows'
outputs and the report written, and the run exits with status 4 naming it.`,
		Example: `  schedlab run                                 # preset quick into ./out
  schedlab run --preset nightly --out runs/n1  # the nightly job
  SCHEDLAB_SEED=7 schedlab run --workers 1     # another seed, one worker
  schedlab run --only das-table1 --set datasets.synthetic.jobs=5000`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := a.config(cmd, nil)
			if err != nil {
				return err
			}
			cfg := r.cfg
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			exec, closeExec, err := newExecutor(ctx, executor, cfg.Workers, a) // cmd_worker.go
			if err != nil {
				return err
			}
			defer closeExec()
			return runPipeline(ctx, a, cfg, exec)
		},
	}
	f := cmd.Flags()
	f.StringVar(&executor, "executor", "", "where stages' tasks run: local, or temporal://HOST:PORT[/NAMESPACE] (see schedlab worker); outputs do not depend on it")
	runFlags(cmd)
	return cmd
}

// runFlags are the flags run and plan share, each a view of a key.
func runFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.Uint64("seed", 0, "run seed")
	f.String("out", "", "run directory")
	f.Int("workers", 0, "stages run at once; outputs do not depend on it")
	f.String("data-dir", "", "directory of real traces")
	f.StringSlice("only", nil, "run only these experiments (comma-separated; schedlab list experiments) and the stages they need")
	keyFlags(cmd, map[string]string{"seed": "seed", "out": "out", "workers": "workers", "data-dir": "data_dir", "only": "eval.experiments"})
}

func runPipeline(ctx context.Context, a *app, cfg *stages.Config, exec pipeline.Executor) error {
	dag, err := stages.Build(cfg)
	if _, ok := errors.AsType[stages.MissingInputsError](err); ok {
		return err // exit status 1: the configuration is fine, its inputs are not there
	}
	if err != nil {
		return usageErrorf("%v", err)
	}
	hash, err := cfg.Hash()
	if err != nil {
		return usageErrorf("%v", err)
	}
	// The lock covers the report written after the DAG too: a second run
	// into the same directory is refused at once, naming this one's PID.
	lock, err := pipeline.LockDir(cfg.Out, "run")
	if err != nil {
		return err
	}
	defer lock.Unlock()
	r := &pipeline.Runner{Dir: cfg.Out, Seed: cfg.Seed, ConfigHash: hash, Config: cfg,
		Workers: cfg.Workers, Log: a.log, Progress: a.progress, Lock: lock, Executor: exec}
	var finished atomic.Int32
	r.OnStageDone = func(s pipeline.StageManifest) {
		a.log.Info("stage done", "stage", s.Name, "status", s.Status, "done", finished.Add(1), "of", len(dag))
		if afterStageHook != nil {
			afterStageHook(s.Name)
		}
	}
	a.log.Info("run started", "preset", cfg.Preset, "seed", cfg.Seed, "out", cfg.Out, "stages", len(dag))
	m, err := r.Run(ctx, dag)
	if m != nil {
		_, interrupted := interruption(ctx)
		stageTable(a.stderr, m.Stages, interrupted)
	}
	if err != nil {
		if sig, ok := interruption(ctx); ok {
			return interruptedError{fmt.Sprintf("run interrupted (%v); the finished stages are kept and the next run into %s resumes from them", sig, cfg.Out), sig}
		}
		return err
	}
	if err := stages.WriteReport(cfg.Out, cfg, m); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	fmt.Fprintf(a.stderr, "run %s in %.1fs; manifest: %s\n", m.Status, m.WallS, filepath.Join(cfg.Out, "manifest.json"))
	if counts, err := verdictCounts(filepath.Join(cfg.Out, filepath.FromSlash(claims.CSVFile))); err == nil {
		fmt.Fprintf(a.stderr, "%s (%s)\n", counts, filepath.Join(cfg.Out, filepath.FromSlash(claims.MarkdownFile)))
	} else {
		return fmt.Errorf("report: %w", err)
	}
	fmt.Fprintf(a.stderr, "report: %s\n", filepath.Join(cfg.Out, stages.ReportHTML))
	if cfg.History.Dir != "" {
		res, err := history.Add(ctx, cfg.Out, cfg.History.Dir, history.Options{})
		if err != nil {
			return fmt.Errorf("history (the run itself is complete; add it later with schedlab history add %s --to %s): %w", cfg.Out, cfg.History.Dir, err)
		}
		fmt.Fprintln(a.stderr, addedMessage(res))
	}
	failed, err := cfg.FailedRows(cfg.Out)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return rowsFailed(failed)
}

// rowFailedExitStatus is what run and eval exit with when every stage
// finished and the outputs are written but a row stopped on its own error
// (an external policy declared on_error: row): neither a success (0) nor
// a failed run (1), nor bad usage (2), nor diff's difference (3).
const rowFailedExitStatus = 4

// rowsFailed is the error of a run whose rows in failed stopped alone:
// nil when there is none.
func rowsFailed(failed []evaluation.FailedRowRecord) error {
	if len(failed) == 0 {
		return nil
	}
	msgs := make([]string, len(failed))
	for i, f := range failed {
		msgs[i] = f.Message()
	}
	return exitStatus{rowFailedExitStatus, fmt.Sprintf("%d row(s) failed; the other rows' outputs are written (exit status %d):\n  %s",
		len(failed), rowFailedExitStatus, strings.Join(msgs, "\n  "))}
}

// stageTable prints each stage's status and times, the names padded to
// the longest. A run stopped by a signal marks its unfinished stages
// "failed" in the manifest; here they read "interrupted".
func stageTable(w io.Writer, ss []pipeline.StageManifest, interrupted bool) {
	width := 0
	for _, s := range ss {
		width = max(width, len(s.Name))
	}
	for _, s := range ss {
		status := s.Status
		if interrupted && status == "failed" {
			status = "interrupted"
		}
		fmt.Fprintf(w, "  %-*s %-11s %7.2fs wall %7.2fs CPU\n", width, s.Name, status, s.WallS, s.CPUS)
	}
}

// verdictCounts is the claims' verdicts in the claims table the report
// wrote (CSV), counted: those of a tested claim first, then the others in
// the order the table first gives them ("29 claims: 4 holds, 3 does not
// hold, 0 inconclusive, 16 not comparable, ...").
func verdictCounts(file string) (string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return "", fmt.Errorf("%s: %w", file, err)
	}
	if len(rows) == 0 {
		return "", fmt.Errorf("%s: no header", file)
	}
	col := slices.Index(rows[0], "verdict")
	if col < 0 {
		return "", fmt.Errorf("%s: no verdict column", file)
	}
	order := []string{string(claims.Holds), string(claims.DoesNotHold), string(claims.Inconclusive)}
	count := map[string]int{}
	for _, r := range rows[1:] {
		if col >= len(r) {
			return "", fmt.Errorf("%s: a row of %d fields", file, len(r))
		}
		if !slices.Contains(order, r[col]) {
			order = append(order, r[col])
		}
		count[r[col]]++
	}
	parts := make([]string, len(order))
	for i, v := range order {
		parts[i] = fmt.Sprintf("%d %s", count[v], v)
	}
	return fmt.Sprintf("%d claims: %s", len(rows)-1, strings.Join(parts, ", ")), nil
}

// afterStageHook is nil except in tests, which use it to kill the process
// at a chosen point of a run.
var afterStageHook func(stage string)
