package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/stages"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/deepsys"
	"github.com/schedlab/schedlab/training/marl"
)

func init() {
	registerTrainFamily(trainFamily{
		Name:     "marl",
		Short:    "MARL-GNN placement agents per pod (Zhao & Wu, TNSM 2021)",
		Variants: marl.Variants(),
		Flags:    marlTrainFlags,
		Run:      runTrainMARL,
	})
	// DeepSys and Atte, the MARL paper's learned baselines, train on the
	// same clusters and workloads and read the MARL family's flags.
	registerTrainFamily(trainFamily{
		Name:     "deepsys",
		Short:    "MARL paper's learned baselines: DeepSys speed model, Atte attention (flags as marl)",
		Variants: []string{deepsys.VariantDeepSys, deepsys.VariantAtte},
		Run:      runTrainDeepSys,
	})
}

// Flags of the MARL family. --episodes is shared with other families
// (DAS defines one too): whoever registers first defines it and each reads
// it through the flag set.
func marlTrainFlags(fs *pflag.FlagSet) {
	fs.String("topology", "fattree", "marl: cluster topology: fattree, vl2 or bcube")
	fs.String("servers", "power8", "marl: server kind: power8, dgx1, hetero-cpu or mixed")
	fs.Int("k", 0, "marl: topology parameter (fattree k, vl2 k, bcube level; default 8, 4, 1: a scaled-down cluster)")
	fs.Int("bcube-n", 4, "marl: bcube switch port count n")
	fs.String("workload", datasets.MARLUniform, "marl: arrival pattern: uniform or poisson")
	fs.Float64("jobs-per-pod", 0, "marl: mean jobs per pod per 30-minute interval (default: the pod's GPUs / 50)")
	fs.Int("intervals", 80, "marl: intervals that receive jobs (the last 10 % of each pod's jobs are held out)")
	fs.String("interference", "", "marl: fitted interference model (model.json of schedlab fit; default: sim.DefaultInterference)")
	defineSharedInt(fs, "episodes", 0, "training episodes (default: the family's)")
}

// fittedInterference adapts a fitted model to the simulator.
func fittedInterference(path string) (sim.Interference, error) {
	if path == "" {
		return nil, nil
	}
	m, err := stages.FittedInterference(path)
	if err != nil {
		return nil, usageErrorf("train: --interference: %v", err)
	}
	return m, nil
}

// defineSharedInt defines an int flag unless another family already did.
func defineSharedInt(fs *pflag.FlagSet, name string, def int, usage string) {
	if fs.Lookup(name) == nil {
		fs.Int(name, def, usage)
	}
}

// flagInt reads an int flag whatever its defining family declared it as;
// ok is false when the user did not set it.
func flagInt(fs *pflag.FlagSet, name string) (v int, ok bool, err error) {
	f := fs.Lookup(name)
	if f == nil || !f.Changed {
		return 0, false, nil
	}
	v, err = strconv.Atoi(f.Value.String())
	if err != nil {
		return 0, false, usageErrorf("train: --%s: %v", name, err)
	}
	return v, true, nil
}

// marlSetup is everything a MARL training run is derived from; its hash
// labels the outputs.
type marlSetup struct {
	Config     marl.Config     `json:"config"`
	Cluster    sim.ClusterSpec `json:"cluster"`
	Workload   string          `json:"workload"`
	JobsPerPod float64         `json:"jobs_per_pod"`
	Intervals  int             `json:"intervals"`
	Seed       uint64          `json:"seed"`
}

// marlRun is the cluster and workload the MARL-paper families train on.
type marlRun struct {
	cluster     *sim.Cluster
	spec        sim.ClusterSpec
	clusterName string
	kind        string
	jobsPerPod  float64
	intervals   int
	simCfg      sim.Config
	model       sim.Interference // nil: sim.DefaultInterference
	train, test []datasets.Job
}

// marlWorkload builds the cluster and workload named by the MARL flags;
// parts is the number of schedulers the jobs are split over (0: one per
// pod).
func marlWorkload(fs *pflag.FlagSet, seed uint64, single bool) (*marlRun, error) {
	topo, _ := fs.GetString("topology")
	servers, _ := fs.GetString("servers")
	k, _ := fs.GetInt("k")
	bn, _ := fs.GetInt("bcube-n")
	kind, _ := fs.GetString("workload")
	jpp, _ := fs.GetFloat64("jobs-per-pod")
	intervals, _ := fs.GetInt("intervals")
	spec := sim.ClusterSpec{Topology: topo, K: k, Servers: servers}
	switch topo {
	case "fattree":
		if k == 0 {
			spec.K = 8
		}
	case "vl2":
		if k == 0 {
			spec.K = 4
		}
	case "bcube":
		spec.N = bn
		if k == 0 {
			spec.K = 1
		}
	default:
		return nil, usageErrorf("train: --topology %q is not fattree, vl2 or bcube", topo)
	}
	if servers == "pai-v100" {
		return nil, usageErrorf("train: --servers must be power8, dgx1, hetero-cpu or mixed")
	}
	if err := spec.Validate(); err != nil {
		return nil, usageErrorf("train: %v", err)
	}
	if kind != datasets.MARLUniform && kind != datasets.MARLPoisson {
		return nil, usageErrorf("train: --workload %q is not uniform or poisson", kind)
	}
	if intervals < 1 || jpp < 0 {
		return nil, usageErrorf("train: --intervals must be >= 1 and --jobs-per-pod >= 0")
	}
	cluster, err := spec.Build()
	if err != nil {
		return nil, err
	}
	ipath, _ := fs.GetString("interference")
	model, err := fittedInterference(ipath)
	if err != nil {
		return nil, err
	}
	if jpp == 0 {
		jpp = cluster.TotalGPU() / float64(cluster.Pods) / 50
	}
	r := &marlRun{cluster: cluster, spec: spec, clusterName: fmt.Sprintf("%s-k%d-%s", topo, spec.K, servers), kind: kind, jobsPerPod: jpp, intervals: intervals, simCfg: sim.DefaultConfig(), model: model}
	r.simCfg.Trigger = sim.TriggerInterval
	// One workload stream for every family and variant, so that they are
	// trained and held out on the same jobs.
	jobs, err := datasets.GenerateMARL(datasets.MARLWorkload{Kind: kind, Pods: cluster.Pods, JobsPerPod: jpp, Intervals: intervals, IntervalS: r.simCfg.IntervalS},
		pipeline.Rand(seed, "train", "marl", "workload"))
	if err != nil {
		return nil, err
	}
	parts := cluster.Pods
	if single {
		parts = 1
	}
	r.train, r.test = datasets.SplitMARL(jobs, parts, 0.1, r.simCfg.IntervalS)
	return r, nil
}

func runTrainMARL(ctx context.Context, a *app, opts trainOptions) error {
	fs := opts.Flags
	cfg := marl.VariantConfig(opts.Variant)
	if n, ok, err := flagInt(fs, "episodes"); err != nil {
		return err
	} else if ok {
		cfg.Episodes = n
	}
	if err := cfg.Validate(); err != nil {
		return usageErrorf("train: %v", err)
	}
	run, err := marlWorkload(fs, opts.Seed, cfg.Variant == marl.VariantSingle)
	if err != nil {
		return err
	}
	cluster, clusterName, simCfg, train, test, kind := run.cluster, run.clusterName, run.simCfg, run.train, run.test, run.kind
	setup := marlSetup{Config: cfg, Cluster: run.spec, Workload: kind, JobsPerPod: run.jobsPerPod, Intervals: run.intervals, Seed: opts.Seed}
	hash, err := pipeline.HashJSON(setup)
	if err != nil {
		return err
	}
	a.log.Info("marl training", "variant", cfg.Variant, "cluster", cluster.Name, "pods", cluster.Pods, "servers", len(cluster.Servers),
		"train_jobs", len(train), "heldout_jobs", len(test), "episodes", cfg.Episodes, "lr", cfg.LR)

	untrained, err := marl.NewPolicy(cfg, opts.Seed)
	if err != nil {
		return err
	}
	heldout := run.heldout(ctx)
	before, err := heldout(untrained.Scheduler(marl.SchedulerOptions{Seed: opts.Seed}))
	if err != nil {
		return err
	}
	bar := a.progress.Start("train marl-"+cfg.Variant, int64(cfg.Episodes))
	wall := time.Now()
	pol, curves, err := marl.Train(ctx, cfg, marl.TrainOptions{
		Cluster: cluster, ClusterName: clusterName, Train: train, Validation: test, Sim: simCfg, Interference: run.model, Seed: opts.Seed,
		Episode: func(c training.Curve) {
			if c.Split == "train" {
				bar.Add(1)
			}
			a.log.Info("episode", "episode", c.Episode+1, "of", cfg.Episodes, "split", c.Split, "return", round3(c.Return), "mean_jct_h", round3(c.MeanJCT/3600))
		},
	})
	bar.Done()
	if err != nil {
		return err
	}
	trainS := time.Since(wall).Seconds()
	after, err := heldout(pol.Scheduler(marl.SchedulerOptions{Seed: opts.Seed}))
	if err != nil {
		return err
	}
	out := opts.Out
	meta := map[string]string{"cluster": clusterName, "seed": strconv.FormatUint(opts.Seed, 10), "episodes": strconv.Itoa(cfg.Episodes), "setup_hash": hash}
	if err := pol.Save(out, meta); err != nil {
		return err
	}
	if err := writeMARLCurves(out, curves, "synthetic-marl-"+kind, hash); err != nil {
		return err
	}
	fmt.Fprintf(os.Stdout, "marl-%s on %s: %d episodes in %.1f s; held-out mean JCT (%d jobs): untrained %.2f h, trained %.2f h",
		cfg.Variant, clusterName, cfg.Episodes, trainS, len(test), before/3600, after/3600)
	if err := run.printHeuristics(ctx); err != nil {
		return err
	}
	fmt.Fprintf(os.Stdout, "wrote %s, %s, %s, curves.svg, curves.png into %s\n", marl.CheckpointFile, marl.SidecarFile, training.CurvesFile, out)
	return nil
}

// heldout returns a function giving a scheduler's mean JCT on the
// held-out jobs.
func (r *marlRun) heldout(ctx context.Context) func(sim.Scheduler) (float64, error) {
	return func(s sim.Scheduler) (float64, error) {
		res, err := sim.Run(ctx, r.cluster, r.test, s, r.simCfg, r.model)
		if err != nil {
			return 0, err
		}
		return res.Metrics.MeanJCTS, nil
	}
}

// printHeuristics ends the summary line with the heuristics' held-out mean
// JCT on the same jobs.
func (r *marlRun) printHeuristics(ctx context.Context) error {
	heldout := r.heldout(ctx)
	for _, name := range evaluation.MARLHeuristics {
		s, err := schedulers.New(schedulers.Name(name), schedulers.Options{})
		if err != nil {
			return err
		}
		j, err := heldout(s)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stdout, ", %s %.2f h", name, j/3600)
	}
	fmt.Fprintln(os.Stdout)
	return nil
}

func runTrainDeepSys(ctx context.Context, a *app, opts trainOptions) error {
	run, err := marlWorkload(opts.Flags, opts.Seed, false)
	if err != nil {
		return err
	}
	heldout := run.heldout(ctx)
	wall := time.Now()
	var sched sim.Scheduler
	var what string
	switch opts.Variant {
	case deepsys.VariantDeepSys:
		m, mse, err := deepsys.TrainDeepSys(ctx, deepsys.DefaultSpeedConfig(), run.cluster, run.train, run.simCfg, run.model, opts.Seed)
		if err != nil {
			return err
		}
		if err := m.Save(opts.Out); err != nil {
			return err
		}
		sched, what = m.Scheduler(), fmt.Sprintf("speed model fitted to the heuristics' placements (MSE %.4f)", mse)
	default:
		cfg := deepsys.DefaultAtteConfig()
		if n, ok, err := flagInt(opts.Flags, "episodes"); err != nil {
			return err
		} else if ok {
			cfg.Episodes = n
		}
		bar := a.progress.Start("train atte", int64(cfg.Episodes))
		var curves []training.Curve
		at, err := deepsys.TrainAtte(ctx, cfg, run.cluster, run.train, run.simCfg, run.model, opts.Seed, func(c training.Curve) {
			c.Cluster = run.clusterName
			curves = append(curves, c)
			bar.Add(1)
			a.log.Info("episode", "episode", c.Episode+1, "of", cfg.Episodes, "return", round3(c.Return), "mean_jct_h", round3(c.MeanJCT/3600))
		})
		bar.Done()
		if err != nil {
			return err
		}
		if err := at.Save(opts.Out); err != nil {
			return err
		}
		hash, err := pipeline.HashJSON(struct {
			Atte     deepsys.AtteConfig
			Cluster  sim.ClusterSpec
			Workload string
			Jobs     float64
			Interval int
			Seed     uint64
		}{cfg, run.spec, run.kind, run.jobsPerPod, run.intervals, opts.Seed})
		if err != nil {
			return err
		}
		if err := writeMARLCurves(opts.Out, curves, "synthetic-marl-"+run.kind, hash); err != nil {
			return err
		}
		sched, what = at.Scheduler(), fmt.Sprintf("%d episodes", cfg.Episodes)
	}
	j, err := heldout(sched)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stdout, "%s on %s: %s in %.1f s; held-out mean JCT (%d jobs): %s %.2f h", opts.Variant, run.clusterName, what, time.Since(wall).Seconds(), len(run.test), opts.Variant, j/3600)
	if err := run.printHeuristics(ctx); err != nil {
		return err
	}
	fmt.Fprintf(os.Stdout, "wrote %s, %s into %s\n", deepsys.CheckpointFile, deepsys.SidecarFile, opts.Out)
	return nil
}

// writeMARLCurves writes curves.parquet (labelled with the run's setup hash)
// and its plot into dir.
func writeMARLCurves(dir string, curves []training.Curve, source, hash string) error {
	if err := training.WriteCurves(filepath.Join(dir, training.CurvesFile), datasets.FileMeta{Source: source, ConfigHash: hash}, curves); err != nil {
		return err
	}
	svg, png, err := training.PlotCurves(curves, "", false)
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

func round3(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }
