package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/internal/didyoumean"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/plan"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/stages"
	"github.com/schedlab/schedlab/training"
)

func init() { register(newTrainCmd) }

// trainOptions are the flags of `schedlab train`.
type trainOptions struct {
	Family, Variant, Out string
	Experiment, Cluster  string
	Jobs, Interference   string
	Environment          string
	CPUProfile           string
	Replicate            int
}

// newTrainCmd is `schedlab train`: flags and wiring only. The model is
// planned and trained by the same functions as `schedlab run`'s training
// stage (plan.Config.Training, stages.Train, whose data come from
// plan.TrainingData), with the run's effective configuration (preset,
// --config, SCHEDLAB_* and --set) as its defaults.
func newTrainCmd(a *app) *cobra.Command {
	var opts trainOptions
	var lines []string
	width := 0 // the longest family name: the variants start in one column
	for _, n := range training.Families() {
		width = max(width, len(n))
	}
	for _, n := range training.Families() {
		f, ok := training.Lookup(n)
		if !ok {
			panic("schedlab: training.Families lists " + n + ", which Lookup does not find")
		}
		var vs []string
		for _, v := range f.Variants() {
			vs = append(vs, string(v.Info.Name))
		}
		lines = append(lines, "  "+n+strings.Repeat(" ", width+2-len(n))+strings.Join(vs, ", "))
	}
	cmd := &cobra.Command{
		Use:   "train",
		Short: "Train a learned scheduler as schedlab run does, into one directory",
		Long: `train trains one learned scheduler in the trace-driven simulator exactly as schedlab run's
training stage does (same configuration, split of the jobs, random streams and simulator
settings) and writes into --out the model directory schedlab eval --models reads: its
checkpoint and sidecar, the learning curves (curves.parquet) and their plot.

The configuration is the run's (--preset, --config, SCHEDLAB_* variables); --set KEY=VALUE
overrides any key (e.g. --set train.das.episodes=5 --set train.marl.intervals=20).
Evaluated jobs never reach training or validation: the jobs are split by the pipeline's
split function (plan.TrainingData).

The configuration's workers (2 by default; --set workers=N) bound the goroutines a
training spreads over: a multi-agent MARL training learns its agents' segments on
that many, with the same bits on one.

A long training can be run in pieces. --replicate R trains the R-th independent model
(schedlab run's models/<key>/replicate-R/ when train.seeds > R and train.replicated
selects it). After every episode the training's state is saved in --out; a training
cut short (interrupt, kill, a full disk) continues from its last finished episode when
the same command is run again, and writes the same bytes as one that ran through. The
state file goes when the training ends. Progress is logged after every episode with
an estimate of the time left, from the pace of the episodes this process ran.

Families and their variants (the first is the default):
` + strings.Join(lines, "\n"),
		Example: `  schedlab train --family das --variant da+mc --out models/da+mc
  schedlab train --family marl --interference run/fit/model.json --out models/marl-device`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if opts.CPUProfile != "" {
				f, err := pipeline.CreateAtomic(opts.CPUProfile)
				if err != nil {
					return fmt.Errorf("train: --cpuprofile: %w", err)
				}
				defer f.Abort()
				if err := pprof.StartCPUProfile(f); err != nil {
					return fmt.Errorf("train: --cpuprofile %s: %w", opts.CPUProfile, err)
				}
				err = runTrain(ctx, a, cmd, opts)
				pprof.StopCPUProfile()
				if err != nil {
					return err
				}
				return f.Commit()
			}
			return runTrain(ctx, a, cmd, opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.Family, "family", "", "learned family: "+strings.Join(training.Families(), ", ")+" (required)")
	fs.StringVar(&opts.Variant, "variant", "", "learned scheduler of the family (default: the family's first)")
	fs.StringVar(&opts.Out, "out", "", "model directory written (required)")
	fs.Uint64("seed", 0, "run seed: the same seed and configuration give schedlab run's model")
	keyFlag(cmd, "seed", "seed")
	fs.StringVar(&opts.Experiment, "experiment", "", "experiment whose simulator settings and cluster the model trains under (default: the first configured one naming the variant)")
	fs.StringVar(&opts.Cluster, "cluster", "", "cluster: for das, dl2, rifling the cluster trained on (sets config key train.das.cluster); otherwise (dl2-das, rifling-ppo and the MARL families included) a cluster name of the experiment (default: its first)")
	fs.StringVar(&opts.Jobs, "jobs", "", "das, dl2, rifling: the job trace (canonical jobs Parquet, e.g. a run's datasets/jobs.parquet; default: the configured synthetic trace)")
	fs.StringVar(&opts.Interference, "interference", "", "fitted interference model (model.json of schedlab fit or a run's fit/) for experiments that simulate with it")
	fs.StringVar(&opts.Environment, "environment", "", "calibrated environment file (a run's fit/environment-<name>.json), required when the experiment runs in one (sim.environment)")
	fs.StringVar(&opts.CPUProfile, "cpuprofile", "", "write a pprof CPU profile of the training to this file (read it with go tool pprof)")
	fs.IntVar(&opts.Replicate, "replicate", 0, "train replicate R ≥ 1 of the model, from its own random streams as schedlab run's models/<key>/replicate-R/ (0: the model one training makes)")
	return cmd
}

// trainConfig is the effective configuration of `schedlab train`: the
// layers every command shares, with --seed and (for trace-source families)
// --cluster, views of seed and train.das.cluster, on top.
func trainConfig(a *app, cmd *cobra.Command, f training.Family) (*stages.Config, error) {
	keys := map[string]string{}
	if k := plan.ClusterKey(f); k != "" {
		keys["cluster"] = k
	}
	r, err := a.config(cmd, keys)
	if err != nil {
		return nil, err
	}
	return r.cfg, nil
}

func runTrain(ctx context.Context, a *app, cmd *cobra.Command, opts trainOptions) error {
	f, ok := training.Lookup(opts.Family)
	if !ok {
		return usageErrorf("train: --family %q is not one of %s%s", opts.Family, strings.Join(training.Families(), ", "), didyoumean.Suggest(opts.Family, training.Families()))
	}
	var names []string
	for _, v := range f.Variants() {
		names = append(names, string(v.Info.Name))
	}
	if opts.Variant == "" {
		opts.Variant = names[0]
	}
	if info, ok := schedulers.Lookup(opts.Variant); !ok || !slices.Contains(names, string(info.Name)) {
		return usageErrorf("train: --variant %q is not one of %s's (%s)%s", opts.Variant, f.Name(), strings.Join(names, ", "), didyoumean.Suggest(opts.Variant, names))
	}
	if opts.Out == "" {
		return usageErrorf("train: --out is required")
	}
	cfg, err := trainConfig(a, cmd, f)
	if err != nil {
		return err
	}
	cluster := opts.Cluster
	if _, v, ok := training.VariantOf(schedulers.Name(opts.Variant)); plan.ClusterKey(f) != "" && !(ok && v.PerCluster) {
		// set the family's cluster key (train.das.cluster) above; a variant built for one machine
		// count (Variant.PerCluster) trains on the experiment's cluster
		// of that name instead.
		cluster = ""
	}
	mt, err := cfg.Plan().Training(opts.Variant, opts.Experiment, cluster)
	if err != nil {
		return usageErrorf("%v", err)
	}
	if r := opts.Replicate; r < 0 || r >= evaluation.MaxReplicates {
		return usageErrorf("train: --replicate: want 0 to %d, got %d", evaluation.MaxReplicates-1, r)
	} else if r > 0 {
		mt = mt.Replica(r)
	}
	in, err := trainInputs(ctx, a, cfg, mt, opts)
	if err != nil {
		return err
	}
	var curves []training.Curve
	var bar *pipeline.Bar
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start, first := time.Now(), 0
	in.Progress = func(done, total int) {
		// A resumed training's first report is the episode after the
		// saved one: the bar and the estimate count this process's
		// episodes only, at this process's pace (its setup included).
		if bar == nil {
			first = done - 1
			bar = a.progress.Start("train "+string(mt.Scheduler), int64(total-first))
		}
		bar.Set(int64(done - first))
		el := time.Since(start)
		eta := time.Duration(float64(el) * float64(total-done) / float64(done-first))
		a.log.Info("progress", "scheduler", mt.Scheduler, "episodes", done, "of", total,
			"elapsed", el.Round(time.Second).String(), "eta", eta.Round(time.Second).String())
		if trainProgressHook != nil && trainProgressHook(done) {
			cancel()
		}
	}
	in.Curve = func(c training.Curve) {
		curves = append(curves, c)
		a.log.Info("episode", "family", c.Family, "variant", c.Variant, "episode", c.Episode, "split", c.Split,
			"return", c.Return, "mean_jct_s", c.MeanJCT, "mean_fee", c.MeanFee)
	}
	// A second train (or eval, run) into the same directory is refused.
	lock, err := pipeline.LockDir(opts.Out, "train")
	if err != nil {
		return err
	}
	defer lock.Unlock()
	spec, err := mt.Spec(opts.Out, in)
	if err != nil {
		return err
	}
	if trainSpecHook != nil {
		return trainSpecHook(spec)
	}
	var resumeFile string
	spec.Resume, resumeFile = trainResume(opts.Out, mt.StageName(), in.Meta.ConfigHash, cfg.Seed)
	a.log.Info("training", "scheduler", mt.Scheduler, "experiment", mt.Experiment, "cluster", mt.Cluster,
		"train_jobs", len(spec.Data.Train), "validation_jobs", len(spec.Data.Val), "fitted_interference", in.Interference != nil)
	// One model, on the configuration's workers: a family that can
	// spread its work borrows them as it would a run's idle ones.
	err = stages.Train(pipeline.WithWorkers(ctx, cfg.Workers), mt, spec)
	if bar != nil {
		bar.Done()
	}
	if errors.Is(err, training.ErrResumeMismatch) {
		return fmt.Errorf("%w (in %s: remove it to train from the first episode)", err, resumeFile)
	}
	if err != nil {
		if _, serr := os.Stat(resumeFile); serr == nil {
			return fmt.Errorf("%w; the state after the last finished episode is in %s: the same command continues from it", err, resumeFile)
		}
		return err
	}
	if err := os.Remove(resumeFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	files := mt.Family().Files(schedulers.Name(mt.Scheduler))
	if slices.Contains(files, training.CurvesFile) {
		rows, err := datasets.ReadParquet[training.Curve](filepath.Join(opts.Out, training.CurvesFile))
		if err != nil {
			return err
		}
		if err := plotCurves(opts.Out, rows, string(mt.Scheduler)+" on "+mt.Cluster, mt.Data.JCTMinutes()); err != nil {
			return err
		}
		files = append(files, "curves.svg", "curves.png")
	}
	fmt.Fprintf(os.Stdout, "%s on %s (%s): %d training and %d validation jobs; wrote %s into %s\n", mt.Scheduler, mt.Cluster,
		mt.Experiment, len(spec.Data.Train), len(spec.Data.Val), strings.Join(files, ", "), opts.Out)
	return nil
}

// trainSpecHook is nil except in tests, which see the spec the command
// built (and skip the training) through it.
var trainSpecHook func(training.TrainSpec) error

// trainProgressHook is nil except in tests: it sees every episode done
// and, returning true, interrupts the training as a signal would.
var trainProgressHook func(done int) bool

// trainResume keeps a training's state between episodes in dir, in a
// file named by the training's stage (model key and replicate), the
// configuration hash and the run seed, so that only the same training
// continues from it; it returns that file too.
func trainResume(dir, stage, configHash string, seed uint64) (*training.Resume, string) {
	file := filepath.Join(dir, fmt.Sprintf("resume-%s-%s-seed%d.state", stage, configHash, seed))
	return &training.Resume{
		Load: func() ([]byte, error) {
			b, err := os.ReadFile(file)
			if errors.Is(err, fs.ErrNotExist) {
				return nil, nil
			}
			return b, err
		},
		Save: func(_, _ int, state []byte) error { return pipeline.WriteFileAtomic(file, state) },
	}, file
}

// trainInputs are the run-time inputs of the planned training mt, drawn
// from the streams schedlab run's stage of the same name draws.
func trainInputs(ctx context.Context, a *app, cfg *stages.Config, mt *plan.Training, opts trainOptions) (plan.TrainInputs, error) {
	in := mt.Inputs(cfg.Seed)
	h, err := pipeline.HashJSON(mt)
	if err != nil {
		return in, err
	}
	in.Meta.ConfigHash = h
	if mt.Data.ReadsTrace() {
		if in.Trace, err = cfg.Trace(ctx, opts.Jobs); err != nil {
			return in, usageErrorf("train: %v", err)
		}
	} else if opts.Jobs != "" {
		return in, usageErrorf("train: --jobs applies to the families that train on the job trace; %s draws its jobs", mt.Family().Name())
	}
	if opts.Interference == "" && mt.Fitted {
		a.log.Warn("the experiment simulates with the fitted interference model, which --interference gives; training with the simulator's default (schedlab run would use its fit/model.json)",
			"experiment", mt.Experiment)
	}
	if mt.Sim.Environment == "" && opts.Environment != "" {
		return in, usageErrorf("train: --environment: experiment %s runs in no calibrated environment (sim.environment)", mt.Experiment)
	}
	speed := mt.Speed()
	speeds, err := speed.Resolve(plan.Sources{Fit: opts.Interference, Environment: opts.Environment})
	if err != nil {
		return in, speedFlagError("train", mt.Experiment, speed, err)
	}
	in.Interference = speeds.Interference
	return in, nil
}

// speedFlagError is err of plan.SpeedModel.Resolve over the files of the
// flags --interference and --environment of command, as the usage error
// that names the flag to change.
func speedFlagError(command, experiment string, m plan.SpeedModel, err error) error {
	var se *plan.SourceError
	switch {
	case errors.As(err, &se) && se.Environment:
		return usageErrorf("%s: --environment: %v", command, se.Err)
	case errors.As(err, &se):
		return usageErrorf("%s: --interference: %v", command, se.Err)
	case errors.Is(err, plan.ErrNoEnvironment):
		return usageErrorf("%s: experiment %s runs in the calibrated environment %s: give its file with --environment (a run's %s; sim.environment names it)",
			command, experiment, m.Environment, plan.EnvironmentFile(m.Environment))
	}
	return usageErrorf("%s: %v", command, err)
}

// plotCurves writes the plot of curves.parquet (curves.svg, curves.png).
// The DAS paper's families' jobs last minutes, the MARL workload's hours.
func plotCurves(dir string, rows []training.Curve, title string, minutes bool) error {
	svg, png, err := training.PlotCurves(rows, title, minutes)
	if err != nil {
		return err
	}
	for name, b := range map[string][]byte{"curves.svg": svg, "curves.png": png} {
		if err := pipeline.WriteFileAtomic(filepath.Join(dir, name), b); err != nil {
			return err
		}
	}
	return nil
}
