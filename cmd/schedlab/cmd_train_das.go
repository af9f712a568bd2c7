package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/das"
	"github.com/schedlab/schedlab/training/dl2"
	"github.com/schedlab/schedlab/training/rifling"
	"github.com/spf13/pflag"
)

// The DAS paper's families (das and its RL baselines dl2 and rifling)
// share the flags below: the cluster, the job trace and the training
// length. Each is defined once, by whichever family's Flags runs first.

func init() {
	registerTrainFamily(trainFamily{
		Name:     "das",
		Short:    "Dual-Agent Scheduler (KDD 2023): ordering + RWGP placement agents, MAPPO",
		Variants: das.Variants(),
		Flags:    dasPaperFlags,
		Run:      runTrainDAS,
	})
	registerTrainFamily(trainFamily{
		Name:  "dl2",
		Short: "DL² (DAS baseline): job-slot policy, warm-up from drf-firstfit, then PPO",
		Flags: dasPaperFlags,
		Run:   runTrainDL2,
	})
	registerTrainFamily(trainFamily{
		Name:  "rifling",
		Short: "RIFLING (DAS baseline): k-means states, Q-learning over placements and wait",
		Flags: dasPaperFlags,
		Run:   runTrainRIFLING,
	})
}

// dasPaperFlags adds the flags of the DAS paper's families.
func dasPaperFlags(fs *pflag.FlagSet) {
	def := func(name string, add func()) {
		if fs.Lookup(name) == nil {
			add()
		}
	}
	def("cluster", func() {
		fs.String("cluster", "small", "das, dl2, rifling: DAS cluster preset: small, medium or large (8/16/32 servers × 8 V100)")
	})
	def("jobs", func() {
		fs.String("jobs", "", "das, dl2, rifling: canonical jobs Parquet (e.g. from schedlab ingest --source pai-sim); default: the PAI 6000-job subset under ../shared/data when present, else the seeded PAI-like generator")
	})
	def("episodes", func() { fs.Int("episodes", 0, "das, dl2, rifling: training episodes (0: the family's default)") })
	def("lr", func() {
		fs.String("lr", "", "das, dl2: learning rates (das searches them by validation; dl2 takes one), comma-separated (default: the paper's)")
	})
	def("segment-jobs", func() {
		fs.Int("segment-jobs", 0, "das, dl2, rifling: jobs per training episode (0: 1000, the paper's)")
	})
	def("max-jobs", func() {
		fs.Int("max-jobs", 0, "das, dl2, rifling: jobs of the trace used, first by submission (0: 20000, the paper's)")
	})
	def("val-jobs", func() {
		fs.Int("val-jobs", 0, "das, dl2, rifling: validation jobs simulated after each episode (0: the whole validation split)")
	})
}

// paperFlags are the parsed values of dasPaperFlags.
type paperFlags struct {
	cluster, jobs, lr               string
	episodes, segment, maxJobs, val int
	lrs                             []float64
}

func readPaperFlags(fs *pflag.FlagSet) (paperFlags, error) {
	var f paperFlags
	var err error
	get := func(v error) {
		if err == nil {
			err = v
		}
	}
	var e error
	f.cluster, e = fs.GetString("cluster")
	get(e)
	f.jobs, e = fs.GetString("jobs")
	get(e)
	f.lr, e = fs.GetString("lr")
	get(e)
	f.episodes, e = fs.GetInt("episodes")
	get(e)
	f.segment, e = fs.GetInt("segment-jobs")
	get(e)
	f.maxJobs, e = fs.GetInt("max-jobs")
	get(e)
	f.val, e = fs.GetInt("val-jobs")
	get(e)
	if err != nil {
		return f, err
	}
	switch f.cluster {
	case "small", "medium", "large":
	default:
		return f, usageErrorf("train: --cluster %q is not one of small, medium, large", f.cluster)
	}
	if f.episodes < 0 || f.segment < 0 || f.maxJobs < 0 || f.val < 0 {
		return f, usageErrorf("train: --episodes, --segment-jobs, --max-jobs and --val-jobs must be ≥ 0")
	}
	if f.lr != "" {
		for _, s := range strings.Split(f.lr, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || !(v > 0) {
				return f, usageErrorf("train: --lr %q: %q is not a positive number", f.lr, s)
			}
			f.lrs = append(f.lrs, v)
		}
	}
	if f.jobs != "" {
		if _, err := os.Stat(f.jobs); err != nil {
			return f, usageErrorf("train: --jobs: %v", err)
		}
	}
	return f, nil
}

// paiSubset is where the real PAI 6000-job subset lives relative to the
// repository.
var paiSubset = filepath.Join("..", "shared", "data", "pai-v2020", "operate_simulator_jobs_6000.csv")

// loadTrainJobs returns the job trace of a training run and names its
// source: --jobs, else the PAI subset ingested through the pai-sim reader
// into a temporary directory, else 6000 jobs of the seeded PAI-like
// generator.
func loadTrainJobs(ctx context.Context, a *app, file string, seed uint64, family string) ([]datasets.Job, string, error) {
	if file != "" {
		jobs, err := datasets.ReadParquet[datasets.Job](file)
		if err != nil {
			return nil, "", fmt.Errorf("train: --jobs %s: %w", file, err)
		}
		a.log.Info("jobs from file", "file", file, "jobs", len(jobs))
		return jobs, filepath.Base(file), nil
	}
	if _, err := os.Stat(paiSubset); err == nil {
		r, err := datasets.Lookup(datasets.SourcePAISim)
		if err != nil {
			return nil, "", err
		}
		tmp, err := os.MkdirTemp("", "schedlab-train-")
		if err != nil {
			return nil, "", err
		}
		defer os.RemoveAll(tmp)
		rep, err := r.Ingest(ctx, datasets.Request{Inputs: []string{paiSubset}, OutDir: tmp, Meta: datasets.FileMeta{Source: datasets.SourcePAISim}})
		if err != nil {
			return nil, "", fmt.Errorf("train: ingest %s: %w", paiSubset, err)
		}
		jobs, err := datasets.ReadParquet[datasets.Job](filepath.Join(tmp, "jobs.parquet"))
		if err != nil {
			return nil, "", err
		}
		a.log.Info("jobs from the PAI 6000-job subset", "file", paiSubset, "jobs", len(jobs), "quarantined", rep.Total.Quarantined)
		return jobs, "pai-sim:" + filepath.Base(paiSubset), nil
	}
	cfg := datasets.PAILikeConfig{Jobs: 6000}
	jobs, err := datasets.GeneratePAILikeJobs(ctx, cfg, pipeline.Rand(seed, "train-"+family, "synthetic-jobs"))
	if err != nil {
		return nil, "", err
	}
	a.log.Info("jobs from the seeded PAI-like generator (no --jobs and no PAI subset at "+paiSubset+")", "jobs", len(jobs))
	return jobs, "synthetic-pai", nil
}

func buildPreset(name string) (*sim.Cluster, error) {
	spec, err := sim.Preset(name)
	if err != nil {
		return nil, err
	}
	return spec.Build()
}

func runTrainDAS(ctx context.Context, a *app, opts trainOptions) error {
	ps, err := setupPaper(ctx, a, opts, "das")
	if err != nil {
		return err
	}
	f, sp, sc, c, source := ps.f, ps.split, ps.sim, ps.cluster, ps.source
	cfg := das.DefaultConfig()
	cfg.Variant = opts.Variant
	if f.episodes > 0 {
		cfg.Episodes = f.episodes
	}
	if f.lrs != nil {
		cfg.LearningRates = f.lrs
	}
	if f.segment > 0 {
		cfg.SegmentJobs = f.segment
	}
	if f.maxJobs > 0 {
		cfg.MaxJobs = f.maxJobs
	}
	cfg.ValJobs = f.val
	if err := cfg.Validate(); err != nil {
		return usageErrorf("train: %v", err)
	}
	var bar *pipeline.Bar
	var barLR float64
	res, err := das.Train(ctx, cfg, sp, das.TrainOptions{Cluster: c, ClusterName: f.cluster, Sim: sc, Seed: opts.Seed,
		OnEpisode: func(lr float64, rows []training.Curve) {
			if bar == nil || lr != barLR {
				if bar != nil {
					bar.Done()
				}
				bar = a.progress.Start(fmt.Sprintf("train das/%s lr=%g", cfg.Variant, lr), int64(cfg.Episodes))
				barLR = lr
			}
			bar.Add(1)
			for _, r := range rows {
				a.log.Info("episode", "lr", lr, "episode", r.Episode, "split", r.Split, "return", r.Return,
					"mean_jct_s", r.MeanJCT, "mean_fee", r.MeanFee)
			}
		}})
	if bar != nil {
		bar.Done()
	}
	if err != nil {
		return err
	}
	best := res.Best()
	ckpt := filepath.Join(opts.Out, cfg.Variant+".ckpt")
	if err := das.Save(ckpt, best.Model, das.Sidecar{Cluster: f.cluster, LR: best.LR, Norm: sp.Norm}); err != nil {
		return err
	}
	var rows []training.Curve
	for _, r := range res.Runs {
		if r.LR == best.LR {
			rows = r.Curves
		}
	}
	if err := writeCurves(opts.Out, rows, source, cfg.Hash(), "das/"+cfg.Variant+" on "+f.cluster); err != nil {
		return err
	}
	w := os.Stdout
	fmt.Fprintf(w, "das/%s on %s: %d training and %d validation jobs (%s; %d pruned)\n", cfg.Variant, f.cluster, len(sp.Train), len(sp.Val), source, sp.Pruned)
	for _, r := range res.Runs {
		mark := " "
		if r.LR == best.LR {
			mark = "*"
		}
		fmt.Fprintf(w, "%s lr %-8g validation mean JCT %8.1f min → %8.1f min, mean fee %7.2f $ → %7.2f $ (untrained → trained)\n",
			mark, r.LR, r.InitVal.Metrics.MeanJCTS/60, r.FinalVal.Metrics.MeanJCTS/60, r.InitVal.Metrics.MeanFeeUSD, r.FinalVal.Metrics.MeanFeeUSD)
	}
	fmt.Fprintf(w, "wrote %s (config %s), %s, curves.svg, curves.png in %s\n", filepath.Base(ckpt), cfg.Hash()[:12], training.CurvesFile, opts.Out)
	return nil
}

// paperSetup is what every DAS-paper family needs before training: the
// flags, the cluster, the jobs and their split.
type paperSetup struct {
	f       paperFlags
	cluster *sim.Cluster
	source  string
	split   das.Split
	sim     sim.Config
}

func setupPaper(ctx context.Context, a *app, opts trainOptions, family string) (*paperSetup, error) {
	f, err := readPaperFlags(opts.Flags)
	if err != nil {
		return nil, err
	}
	c, err := buildPreset(f.cluster)
	if err != nil {
		return nil, err
	}
	jobs, source, err := loadTrainJobs(ctx, a, f.jobs, opts.Seed, family)
	if err != nil {
		return nil, err
	}
	dc := das.DefaultConfig()
	if f.maxJobs > 0 {
		dc.MaxJobs = f.maxJobs
	}
	sc := sim.DefaultConfig()
	sp, err := das.PrepareTrace(c, jobs, sc, dc)
	if err != nil {
		return nil, err
	}
	a.log.Info(family+" split", "cluster", f.cluster, "read", sp.Read, "pruned", sp.Pruned, "beyond", sp.Beyond,
		"train", len(sp.Train), "validation", len(sp.Val))
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return nil, err
	}
	return &paperSetup{f: f, cluster: c, source: source, split: sp, sim: sc}, nil
}

// episodeBar reports each episode on a progress bar and in the log.
func episodeBar(a *app, label string, total int) (func(rows []training.Curve), func()) {
	bar := a.progress.Start(label, int64(total))
	return func(rows []training.Curve) {
		bar.Add(1)
		for _, r := range rows {
			a.log.Info("episode", "family", r.Family, "episode", r.Episode, "split", r.Split, "return", r.Return,
				"mean_jct_s", r.MeanJCT, "mean_fee", r.MeanFee)
		}
	}, bar.Done
}

func runTrainDL2(ctx context.Context, a *app, opts trainOptions) error {
	ps, err := setupPaper(ctx, a, opts, "dl2")
	if err != nil {
		return err
	}
	cfg := dl2.DefaultConfig()
	if ps.f.episodes > 0 {
		cfg.Episodes = ps.f.episodes
	}
	if len(ps.f.lrs) > 1 {
		return usageErrorf("train: dl2 trains at one --lr (got %d)", len(ps.f.lrs))
	}
	if len(ps.f.lrs) == 1 {
		cfg.LR = ps.f.lrs[0]
	}
	if ps.f.segment > 0 {
		cfg.SegmentJobs = ps.f.segment
	}
	cfg.ValJobs = ps.f.val
	if err := cfg.Validate(); err != nil {
		return usageErrorf("train: %v", err)
	}
	onEp, done := episodeBar(a, "train dl2", cfg.Episodes)
	res, err := dl2.Train(ctx, cfg, ps.split, dl2.TrainOptions{Cluster: ps.cluster, ClusterName: ps.f.cluster, Sim: ps.sim, Seed: opts.Seed, OnEpisode: onEp})
	done()
	if err != nil {
		return err
	}
	ckpt := filepath.Join(opts.Out, "dl2.ckpt")
	if err := dl2.Save(ckpt, res.Model, ps.f.cluster); err != nil {
		return err
	}
	if err := writeCurves(opts.Out, res.Curves, ps.source, cfg.Hash(), "dl2 on "+ps.f.cluster); err != nil {
		return err
	}
	w := os.Stdout
	fmt.Fprintf(w, "dl2 on %s: %d training and %d validation jobs (%s; %d pruned)\n", ps.f.cluster, len(ps.split.Train), len(ps.split.Val), ps.source, ps.split.Pruned)
	fmt.Fprintf(w, "validation mean JCT %.1f min untrained, %.1f min after warm-up from %s, %.1f min after RL (fee %.2f → %.2f $)\n",
		res.InitVal.Metrics.MeanJCTS/60, res.WarmVal.Metrics.MeanJCTS/60, cfg.Heuristic, res.FinalVal.Metrics.MeanJCTS/60,
		res.InitVal.Metrics.MeanFeeUSD, res.FinalVal.Metrics.MeanFeeUSD)
	fmt.Fprintf(w, "wrote dl2.ckpt (config %s), %s, curves.svg, curves.png in %s\n", cfg.Hash()[:12], training.CurvesFile, opts.Out)
	return nil
}

func runTrainRIFLING(ctx context.Context, a *app, opts trainOptions) error {
	ps, err := setupPaper(ctx, a, opts, "rifling")
	if err != nil {
		return err
	}
	if ps.f.lrs != nil {
		return usageErrorf("train: rifling learns a Q-table; --lr does not apply")
	}
	cfg := rifling.DefaultConfig()
	if ps.f.episodes > 0 {
		cfg.Episodes = ps.f.episodes
	}
	if ps.f.segment > 0 {
		cfg.SegmentJobs = ps.f.segment
	}
	cfg.ValJobs = ps.f.val
	if err := cfg.Validate(); err != nil {
		return usageErrorf("train: %v", err)
	}
	onEp, done := episodeBar(a, "train rifling", cfg.Episodes)
	res, err := rifling.Train(ctx, cfg, ps.split, rifling.TrainOptions{Cluster: ps.cluster, ClusterName: ps.f.cluster, Sim: ps.sim, Seed: opts.Seed, OnEpisode: onEp})
	done()
	if err != nil {
		return err
	}
	if err := rifling.Save(filepath.Join(opts.Out, "rifling.json"), res.Policy, ps.f.cluster); err != nil {
		return err
	}
	if err := writeCurves(opts.Out, res.Curves, ps.source, cfg.Hash(), "rifling on "+ps.f.cluster); err != nil {
		return err
	}
	w := os.Stdout
	fmt.Fprintf(w, "rifling on %s: %d training and %d validation jobs (%s; %d pruned), %d state groups\n", ps.f.cluster, len(ps.split.Train), len(ps.split.Val), ps.source, ps.split.Pruned, len(res.Policy.Centroids))
	fmt.Fprintf(w, "validation mean JCT %.1f min → %.1f min, mean fee %.2f $ → %.2f $ (untrained → trained)\n",
		res.InitVal.Metrics.MeanJCTS/60, res.FinalVal.Metrics.MeanJCTS/60, res.InitVal.Metrics.MeanFeeUSD, res.FinalVal.Metrics.MeanFeeUSD)
	fmt.Fprintf(w, "wrote rifling.json (config %s), %s, curves.svg, curves.png in %s\n", cfg.Hash()[:12], training.CurvesFile, opts.Out)
	return nil
}

// writeCurves writes curves.parquet and its plot (curves.svg, curves.png):
// mean JCT and return per episode, training and validation.
func writeCurves(dir string, rows []training.Curve, source, hash, title string) error {
	if err := training.WriteCurves(filepath.Join(dir, training.CurvesFile), datasets.FileMeta{Source: source, ConfigHash: hash}, rows); err != nil {
		return err
	}
	svg, png, err := training.PlotCurves(rows, title, true)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "curves.svg"), svg, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "curves.png"), png, 0o644)
}
