package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/internal/didyoumean"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/plan"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/stages"
	"github.com/spf13/cobra"
)

func init() { register(newEvalCmd) }

func newEvalCmd(a *app) *cobra.Command {
	var (
		experiment, out, jobsFile, arrivals string
		modelsDir, environment, interfFile  string
		scheds                              []string
	)
	cmd := &cobra.Command{
		Use:   "eval --experiment ID --out DIR",
		Short: "Run an evaluation experiment (a matrix of simulations) and write its tables",
		Long: `eval runs one experiment of the run configuration exactly as schedlab run evaluates it:
every cell of cluster × workload × scheduler × seed is simulated (cells run workers at a
time; results never depend on it) and written into --out:

  eval/results.parquet    one row per evaluated job per cell (JCT, fee, queueing, ...)
  eval/metrics.parquet    one row per cell (mean/p50/p95 JCT, mean fee, makespan, ...)
  eval/timings.parquet    wall-clock seconds per cell (the only non-reproducible file)
  tables/ID.md .csv .tex  the summary table (Markdown, CSV, LaTeX tabular)
  plots/ID.svg .png       bar charts of mean JCT and mean fee

Experiments:
` + experimentsHelp() + `

The configuration is the run's (--preset, --config, SCHEDLAB_* variables, --set), and the
experiment's section of it (eval.das_table1, eval.marl_arrivals, ...) sets its schedulers,
clusters and load; the flags below that name a config key set that key, and only when
given. Calibration and sensitivity are written by schedlab run's own stages
(schedlab run --only calibration).

Trace workloads read --jobs, a canonical jobs table, or draw the seeded PAI-like trace
(datasets.synthetic.jobs jobs). Learned schedulers (das, rifling, marl-device, ...) load
their models from --models, the models/ directory of a "schedlab run" that trained them:
a model per cluster from DIR/NAME/CLUSTER-ID/ (e.g. marl-device/fattree-k8-power8,
das/flat-n8-pai-v100), else one for every cluster from DIR/NAME/. Further independently
trained models of a row (a run's train.seeds, schedlab train --replicate R) in
replicate-R/ of that directory are evaluated too, each a replicate of the row.

--speed standalone (sim.speed) replays the trace: every job runs for its recorded
duration, so JCT = queueing + duration; model slows jobs by interference and
communication. An experiment configured with fitted interference
(eval.<experiment>.fitted_interference) takes the fitted model from --interference. The
tables' notes say which speed model, environment and trace produced them.

The files commit as one set, with manifest.json (every file with its sha256, as a
run's, so that schedlab export reads the directory) written last: an eval that fails
leaves --out as it was. --out may hold earlier evals (their tables and plots stay
and the manifest keeps listing them), not a schedlab run.

Same inputs, configuration and seed give byte-identical Parquet files, tables and plots.
An unknown experiment or scheduler is exit status 2; a scheduler that returns an
infeasible placement fails the run (exit 1) naming the scheduler and the cell. A row
that stops on its own (an external policy with on_error: row) leaves the others' outputs
written and exits with status 4.`,
		Example: `  schedlab eval --experiment das-table1 --out out/das --synthetic-jobs 5000
  schedlab ingest --source pai-sim --input operate_simulator_jobs_6000.csv --out out/pai
  schedlab eval --experiment das-table1 --jobs out/pai/jobs.parquet --out out/das --set sim.speed=standalone
  schedlab eval --experiment marl-arrivals --schedulers tetris,lb --arrivals out/google/arrivals.parquet --out out/marl
  schedlab eval --experiment das-load --preset nightly --jobs out/nightly/datasets/pai-sim/jobs.parquet --models out/nightly/models --out out/load`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			// The names first, so that a mistyped one is named whatever
			// else is missing.
			if _, err := evaluation.Lookup(experiment); experiment != "" && errors.Is(err, evaluation.ErrUnknownExperiment) {
				return usageErrorf("eval: unknown experiment %q%s (experiments: %s)", experiment,
					didyoumean.Suggest(experiment, evaluation.IDs()), strings.Join(evaluation.IDs(), ", "))
			}
			for _, s := range scheds {
				if _, err := schedulers.Canonical(s); err != nil {
					return usageErrorf("eval: --schedulers: %v%s", err, didyoumean.Suggest(s, names(schedulers.Names())))
				}
			}
			if experiment == "" || out == "" {
				return usageErrorf("eval: --experiment and --out are required (experiments: %s)", strings.Join(evaluation.RunIDs(), ", "))
			}
			// The flags whose key is the experiment's section's.
			section := "eval." + strings.ReplaceAll(experiment, "-", "_")
			keys := map[string]string{}
			for flag, leaf := range map[string]string{"schedulers": "schedulers", "intervals": "intervals"} {
				if !cmd.Flags().Changed(flag) {
					continue
				}
				if !configLeaves()[section+"."+leaf] {
					return usageErrorf("eval: --%s: experiment %s has no key %s.%s", flag, experiment, section, leaf)
				}
				keys[flag] = section + "." + leaf
			}
			if cmd.Flags().Changed("fattree-k") && experiment != evaluation.MARLArrivals {
				return usageErrorf("eval: --fattree-k sets eval.marl_arrivals.k; %s's clusters are %s.clusters (a --config file sets them)", experiment, section)
			}
			r, err := a.config(cmd, keys)
			if err != nil {
				return err
			}
			cfg := r.cfg
			x, err := cfg.Plan().Standalone(experiment, jobsFile, arrivals)
			if err != nil {
				return usageErrorf("eval: %v", err)
			}
			if interfFile == "" && x.Fitted {
				a.log.Warn("the experiment simulates with the fitted interference model (" + section + ".fitted_interference), which --interference gives; simulating with the simulator's default")
			}
			speeds, err := x.Resolve(plan.Sources{Fit: interfFile, Environment: environment})
			if err != nil {
				return speedFlagError("eval", experiment, x.Speed(), err)
			}
			spec, model := x.Spec, speeds.Interference
			if evalSpecHook != nil {
				return evalSpecHook(spec)
			}
			names, err := spec.SchedulerNames()
			if err != nil {
				return usageErrorf("eval: %v", err)
			}
			var learned []string
			for _, n := range names {
				if n.Learned() {
					learned = append(learned, string(n))
				}
			}
			if len(learned) > 0 && modelsDir == "" {
				return usageErrorf("eval: learned schedulers %s need --models DIR (the models/ directory of a schedlab run that trained them), or choose --schedulers", strings.Join(learned, ", "))
			}
			// Every replicate --models holds of a learned row (a run's,
			// or schedlab train --replicate R's) is evaluated, as a
			// run evaluates the replicates it trains.
			for _, n := range names {
				if !n.Learned() {
					continue
				}
				for _, cl := range spec.Clusters {
					if r := plan.Replicates(modelsDir, n, cl.Spec); r > 1 {
						if spec.Replicates == nil {
							spec.Replicates = map[string]int{}
						}
						spec.Replicates[evaluation.ReplicateKey(n, cl.Name)] = r
					}
				}
			}
			for _, in := range []struct{ flag, file, want string }{
				{"jobs", jobsFile, "a canonical jobs table: the jobs.parquet of schedlab ingest, or a run's " + stages.JobsParquet + " or datasets/<source>/jobs.parquet"},
				{"arrivals", arrivals, "an arrivals table: the arrivals.parquet of schedlab ingest --source google-2011"},
			} {
				if in.file == "" {
					continue
				}
				if _, err := os.Stat(in.file); errors.Is(err, os.ErrNotExist) {
					return usageErrorf("eval: --%s %s: no such file; want %s", in.flag, in.file, in.want)
				} else if err != nil {
					return usageErrorf("eval: --%s: %v", in.flag, err)
				}
			}
			if m, err := pipeline.ReadManifest(out); err == nil && !evalManifest(m) {
				return usageErrorf("eval: --out %s holds a schedlab run (its manifest.json lists the run's stages): write into a directory of its own, or use schedlab export on the run", out)
			}
			// The lock refuses a second eval (or run, ingest) into the same
			// directory at once. A directory it had to create goes again if
			// the eval fails (Remove leaves a non-empty one).
			if _, err := os.Stat(out); errors.Is(err, os.ErrNotExist) {
				defer os.Remove(out)
			}
			lock, err := pipeline.LockDir(out, "eval")
			if err != nil {
				return err
			}
			defer lock.Unlock()
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			newSched := func(c evaluation.Cell, seed uint64) (sim.Scheduler, error) {
				if !c.Scheduler.Learned() {
					return nil, nil
				}
				for _, cl := range spec.Clusters {
					if cl.Name == c.Cluster {
						return plan.OpenModel(modelsDir, c.Scheduler, cl.Spec, c.Replicate, seed)
					}
				}
				return nil, fmt.Errorf("no cluster %s", c.Cluster)
			}
			// A killed eval's staging and scratch files go first; under
			// the lock nothing else writes here. The cells' per-job
			// results wait in a scratch directory of out until written
			// (evaluation.Options.ScratchDir), not in memory.
			if _, err := pipeline.RemoveScratch(out, false); err != nil {
				return err
			}
			rep, err := evaluation.Run(ctx, spec, evaluation.Options{Seed: cfg.Seed, Workers: cfg.Workers, Progress: a.progress, Log: a.log, NewScheduler: newSched, Interference: model, ScratchDir: out, Data: x.Data})
			if err != nil {
				if sig, ok := interruption(ctx); ok {
					return interruptedError{fmt.Sprintf("eval interrupted (%v); %s is as it was", sig, out), sig}
				}
				return err
			}
			defer rep.Close()
			paths := evaluation.RunLayout(out, spec.Experiment)
			if err := writeEval(ctx, out, rep, cfg.Seed); err != nil {
				return fmt.Errorf("eval %s: %w", spec.Experiment, err)
			}
			w := cmd.OutOrStdout()
			w.Write(rep.Table().Markdown())
			fmt.Fprintf(w, "\nwrote %d cells into %s:", len(rep.Cells), out)
			for _, p := range paths.List() {
				rel, err := filepath.Rel(out, p)
				if err != nil {
					rel = p
				}
				fmt.Fprintf(w, " %s", filepath.ToSlash(rel))
			}
			fmt.Fprintln(w)
			return rowsFailed(rep.FailedRecords())
		},
	}
	f := cmd.Flags()
	f.StringVar(&experiment, "experiment", "", "experiment id: "+strings.Join(evaluation.RunIDs(), ", "))
	f.StringVar(&out, "out", "", "output directory (eval/, tables/, plots/ are created in it)")
	f.StringSliceVar(&scheds, "schedulers", nil, "schedulers to compare, comma-separated (sets eval.<experiment>.schedulers; known: "+fmt.Sprint(schedulers.Names())+"; FIFO-FF-style aliases accepted)")
	f.StringVar(&jobsFile, "jobs", "", "canonical jobs Parquet file for trace workloads (default: the seeded PAI-like generator)")
	f.StringVar(&arrivals, "arrivals", "", "arrivals table (interval,start_s,jobs; CSV or Parquet) for the google workload")
	f.StringVar(&modelsDir, "models", "", "models/ directory of a schedlab run, for learned schedulers (das, rifling, marl-device, ...)")
	f.StringVar(&environment, "environment", "", "calibrated environment to simulate in: its file (a run's fit/environment-<name>.json, e.g. marl-paper); default: the configuration's (sim.environment), none by default")
	f.StringVar(&interfFile, "interference", "", "fitted interference model (model.json of schedlab fit or a run's fit/) for experiments configured to simulate with it")
	f.Int("intervals", 0, "MARL experiments: 30-minute intervals that receive jobs (sets eval.<experiment>.intervals)")
	f.Int("synthetic-jobs", 0, "jobs the PAI-like generator draws when --jobs is not given")
	f.Int("max-jobs", 0, "trace workloads keep the first N jobs by submission after pruning")
	f.Int("fattree-k", 0, "marl-arrivals: fat-tree parameter k (k pods of (k/2)² servers)")
	f.Float64("jobs-per-pod", 0, "marl-arrivals: (mean) jobs per pod per interval (0: the paper's load, 15 per 100 servers of a pod)")
	f.String("speed", "", "speed model: model (interference and communication slow jobs down) or standalone (pure trace replay: every job runs for its recorded duration)")
	f.Int("seeds", 0, "replicates per cell, each with its own random streams")
	f.Int("workers", 0, "cells simulated at once (results do not depend on it)")
	f.Uint64("seed", 0, "run seed: every random stream derives from it and the cell key")
	keyFlags(cmd, map[string]string{"synthetic-jobs": "datasets.synthetic.jobs", "max-jobs": "eval.das_table1.max_jobs",
		"fattree-k": "eval.marl_arrivals.k", "jobs-per-pod": "eval.marl_arrivals.jobs_per_pod", "speed": "sim.speed",
		"seeds": "eval.seeds", "workers": "workers", "seed": "seed"})
	return cmd
}

// evalSpecHook is nil except in tests, which see the spec the command
// built (and skip the evaluation) through it.
var evalSpecHook func(evaluation.Spec) error

// experimentsHelp lists the run experiments of the registry for --help,
// each with its summary.
func experimentsHelp() string {
	var b strings.Builder
	for _, e := range evaluation.Experiments() {
		if e.Spec == nil {
			continue
		}
		for i, line := range strings.Split(e.Summary, "\n") {
			if i == 0 {
				fmt.Fprintf(&b, "  %-14s %s\n", e.ID, line)
			} else {
				fmt.Fprintf(&b, "  %-14s %s\n", "", line)
			}
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// evalStage prefixes the manifest entry of each experiment eval wrote.
const evalStage = "eval-"

// evalManifest reports whether m was written by eval, not by a run.
func evalManifest(m *pipeline.Manifest) bool {
	for _, s := range m.Stages {
		if !strings.HasPrefix(s.Name, evalStage) {
			return false
		}
	}
	return true
}

// writeEval writes rep's files into a staging directory inside out and
// commits them with manifest.json last (pipeline.CommitStaged): a failure
// anywhere leaves out as it was. The manifest keeps the entries of earlier
// experiments evaluated into out, less their eval/ tables, which every
// experiment writes under the same names and this one replaces. The caller
// holds out's lock.
func writeEval(ctx context.Context, out string, rep *evaluation.Report, seed uint64) error {
	t0 := time.Now()
	staging, err := pipeline.MkdirScratch(out, "eval")
	if err != nil {
		return err
	}
	defer os.RemoveAll(staging)
	id := rep.Spec.Experiment
	if err := rep.Write(ctx, evaluation.RunLayout(staging, id)); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return context.Cause(ctx)
	}
	hash, err := rep.ConfigHash()
	if err != nil {
		return err
	}
	stage := pipeline.StageManifest{Name: evalStage + id, Version: "1", Key: hash, Status: "ran", WallS: time.Since(t0).Seconds()}
	var names []string
	for _, p := range evaluation.RunLayout(staging, id).List() {
		rel, err := filepath.Rel(staging, p)
		if err != nil {
			return err
		}
		sum, size, err := pipeline.HashFile(p)
		if err != nil {
			return err
		}
		names = append(names, filepath.ToSlash(rel))
		stage.Outputs = append(stage.Outputs, pipeline.Artifact{Name: filepath.ToSlash(rel), SHA256: sum, Bytes: size})
	}
	m := &pipeline.Manifest{Status: "ok", Seed: seed, ConfigHash: hash, Config: rep.Spec, Versions: pipeline.BuildVersions(), WallS: stage.WallS}
	if old, err := pipeline.ReadManifest(out); err == nil {
		for _, s := range old.Stages {
			if s.Name == stage.Name {
				continue
			}
			kept := s.Outputs[:0:0]
			for _, o := range s.Outputs {
				if !slices.Contains(names, o.Name) {
					kept = append(kept, o)
				}
			}
			s.Outputs = kept
			m.Stages = append(m.Stages, s)
		}
	}
	m.Stages = append(m.Stages, stage)
	slices.SortFunc(m.Stages, func(a, b pipeline.StageManifest) int { return strings.Compare(a.Name, b.Name) })
	if err := m.WriteFile(filepath.Join(staging, pipeline.ManifestFile)); err != nil {
		return err
	}
	return pipeline.CommitStaged(staging, out, names, pipeline.ManifestFile)
}
