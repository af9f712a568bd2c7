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
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/stages"
	"github.com/spf13/cobra"
)

func init() { register(newEvalCmd) }

func newEvalCmd(a *app) *cobra.Command {
	var (
		experiment, out, jobsFile, arrivals string
		modelsDir, speed, environment       string
		scheds                              []string
		workers, seeds, synthetic, maxJobs  int
		fatTreeK, intervals                 int
		jobsPerPod                          float64
		seed                                uint64
	)
	cmd := &cobra.Command{
		Use:   "eval --experiment ID --out DIR",
		Short: "Run an evaluation experiment (a matrix of simulations) and write its tables",
		Long: `eval runs one experiment of DESIGN.md §6: every cell of cluster × workload ×
scheduler × seed is simulated (cells run --workers at a time; results never depend
on it) and written into --out:

  eval/results.parquet    one row per evaluated job per cell (JCT, fee, queueing, ...)
  eval/metrics.parquet    one row per cell (mean/p50/p95 JCT, mean fee, makespan, ...)
  eval/timings.parquet    wall-clock seconds per cell (the only non-reproducible file)
  tables/ID.md .csv .tex  the summary table (Markdown, CSV, LaTeX tabular)
  plots/ID.svg .png       bar charts of mean JCT and mean fee

Experiments:
` + experimentsHelp() + `

The MARL experiments' load defaults to the paper's 15 jobs per pod of 100 servers
scaled to each cluster's pod size. Learned schedulers (das, rifling, marl-device,
...) load their models from --models, the models/ directory of a "schedlab run"
that trained them: DAS-paper models from DIR/NAME/, MARL models from
DIR/NAME/CLUSTER-ID/ (e.g. marl-device/fattree-k8-power8).

--speed standalone replays the trace: every job runs for its recorded duration,
so JCT = queueing + duration; the default, --speed model, slows jobs by
interference and communication. The tables' notes say which produced them.

The files commit as one set, with manifest.json (every file with its sha256, as a
run's, so that schedlab export reads the directory) written last: an eval that fails
leaves --out as it was. --out may hold earlier evals (their tables and plots stay
and the manifest keeps listing them), not a schedlab run.

Same inputs, flags and --seed give byte-identical Parquet files, tables and plots.
An unknown experiment or scheduler is exit status 2; a scheduler that returns an
infeasible placement fails the run (exit 1) naming the scheduler and the cell.`,
		Example: `  schedlab eval --experiment das-table1 --out out/das --synthetic-jobs 5000
  schedlab ingest --source pai-sim --input operate_simulator_jobs_6000.csv --out out/pai
  schedlab eval --experiment das-table1 --jobs out/pai/jobs.parquet --out out/das
  schedlab eval --experiment marl-arrivals --schedulers tetris,lb --arrivals out/google/arrivals.parquet --out out/marl
  schedlab eval --experiment das-load --jobs out/nightly/datasets/pai-sim/jobs.parquet --models out/nightly/models --out out/load`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if experiment == "" || out == "" {
				return usageErrorf("eval: --experiment and --out are required (experiments: %s)", strings.Join(evaluation.RunIDs(), ", "))
			}
			e, err := evaluation.Lookup(experiment)
			if errors.Is(err, evaluation.ErrUnknownExperiment) || (err == nil && e.Spec == nil) {
				return usageErrorf("eval: unknown experiment %q; experiments: %s", experiment, strings.Join(evaluation.RunIDs(), ", "))
			}
			if err != nil {
				return err
			}
			spec := e.Spec()
			if len(scheds) > 0 {
				spec.Schedulers = nil
				for _, s := range scheds {
					if _, err := schedulers.Canonical(s); err != nil {
						return usageErrorf("eval: --schedulers: %v", err)
					}
					spec.Schedulers = append(spec.Schedulers, s)
				}
			}
			fl := cmd.Flags()
			spec.Seeds = seeds
			switch speed {
			case sim.SpeedModel, sim.SpeedStandalone:
				spec.Sim.Speed = speed
			default:
				return usageErrorf("eval: --speed: must be %s or %s, got %q", sim.SpeedModel, sim.SpeedStandalone, speed)
			}
			var model sim.Interference
			if environment != "" {
				e, err := sim.ReadEnvironment(environment)
				if err != nil {
					return usageErrorf("eval: --environment: %v", err)
				}
				spec.Sim.Environment, model = e.Name, e.Interference(nil)
			}
			for i := range spec.Workloads {
				w := &spec.Workloads[i]
				switch w.Kind {
				case evaluation.KindTrace:
					w.JobsFile = jobsFile
					if fl.Changed("synthetic-jobs") {
						w.SyntheticJobs = synthetic
					}
					if fl.Changed("max-jobs") {
						w.MaxJobs = maxJobs
					}
				default:
					w.ArrivalsFile = arrivals
					if fl.Changed("intervals") {
						w.Intervals = intervals
					}
					if fl.Changed("jobs-per-pod") {
						w.JobsPerPod = jobsPerPod
					}
				}
			}
			if fl.Changed("fattree-k") {
				for i, c := range spec.Clusters {
					if c.Spec.Topology == "fattree" {
						spec.Clusters[i].Spec.K = fatTreeK
						if strings.HasPrefix(c.Name, "fattree-k") {
							spec.Clusters[i].Name = fmt.Sprintf("fattree-k%d", fatTreeK)
						}
					}
				}
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
			if workers < 1 {
				return usageErrorf("eval: --workers must be >= 1, got %d", workers)
			}
			if err := spec.Validate(); err != nil {
				return usageErrorf("eval: %v", err)
			}
			for _, f := range []string{jobsFile, arrivals} {
				if f == "" {
					continue
				}
				if _, err := os.Stat(f); err != nil {
					return usageErrorf("eval: %v", err)
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
						return stages.OpenModel(modelsDir, c.Scheduler, cl.Spec, seed)
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
			rep, err := evaluation.Run(ctx, spec, evaluation.Options{Seed: seed, Workers: workers, Progress: a.progress, Log: a.log, NewScheduler: newSched, Interference: model, ScratchDir: out})
			if err != nil {
				return err
			}
			defer rep.Close()
			paths := evaluation.RunLayout(out, spec.Experiment)
			if err := writeEval(ctx, out, rep, seed); err != nil {
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
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&experiment, "experiment", "", "experiment id: "+strings.Join(evaluation.RunIDs(), ", "))
	f.StringVar(&out, "out", "", "output directory (eval/, tables/, plots/ are created in it)")
	f.StringSliceVar(&scheds, "schedulers", nil, "schedulers to compare, comma-separated (default: the experiment's; known: "+fmt.Sprint(schedulers.Names())+"; FIFO-FF-style aliases accepted)")
	f.StringVar(&jobsFile, "jobs", "", "canonical jobs Parquet file for trace workloads (default: the seeded PAI-like generator)")
	f.IntVar(&synthetic, "synthetic-jobs", 20000, "jobs the PAI-like generator draws when --jobs is not given")
	f.IntVar(&maxJobs, "max-jobs", 20000, "trace workloads keep the first N jobs by submission after pruning")
	f.StringVar(&arrivals, "arrivals", "", "arrivals table (interval,start_s,jobs; CSV or Parquet) for the google workload")
	f.IntVar(&fatTreeK, "fattree-k", 8, "MARL experiments: fat-tree parameter k (k pods of (k/2)² servers)")
	f.IntVar(&intervals, "intervals", 20, "MARL experiments: 30-minute intervals that receive jobs")
	f.Float64Var(&jobsPerPod, "jobs-per-pod", 0, "MARL experiments: (mean) jobs per pod per interval (0: the paper's load, 15 per 100 servers of a pod)")
	f.StringVar(&modelsDir, "models", "", "models/ directory of a schedlab run, for learned schedulers (das, rifling, marl-device, ...)")
	f.StringVar(&speed, "speed", sim.SpeedModel, "speed model: model (interference and communication slow jobs down) or standalone (pure trace replay: every job runs for its recorded duration)")
	f.StringVar(&environment, "environment", "", "calibrated environment to simulate in: its file (a run's fit/environment-<name>.json, e.g. marl-paper); default: none, the simulator's defaults")
	f.IntVar(&seeds, "seeds", 1, "replicates per cell, each with its own random streams")
	f.IntVar(&workers, "workers", 2, "cells simulated at once (results do not depend on it)")
	f.Uint64Var(&seed, "seed", 1, "run seed: every random stream derives from it and the cell key")
	return cmd
}

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
