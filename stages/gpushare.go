package stages

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/fitting"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/profiling"
)

// Artifacts of the GPU-sharing import and fit.
const (
	ShareSamples    = "datasets/gpu_share_samples.parquet"
	ShareQuarantine = "datasets/gpu_share_quarantine.parquet"
	FitShareTable   = "fit/" + fitting.ShareTableFile
	FitShareErrors  = "fit/" + fitting.ShareErrorsFile
)

// GPUShareConfig names the measured GPU-sharing sources a run imports
// (profile.gpu_share), paths relative to data_dir: Gavel's throughput JSON
// and Lucid's co-location and standalone CSVs. Empty: none, and the fit
// has no GPU-sharing term (the quick preset, which needs no data files).
type GPUShareConfig struct {
	Gavel string   `mapstructure:"gavel" yaml:"gavel" json:"gavel,omitempty"`
	Lucid []string `mapstructure:"lucid" yaml:"lucid" json:"lucid,omitempty"`
}

// Enabled reports whether any source is configured.
func (c GPUShareConfig) Enabled() bool { return c.Gavel != "" || len(c.Lucid) > 0 }

// Validate names a bad key.
func (c GPUShareConfig) Validate() error {
	if n := len(c.Lucid); n != 0 && n != 2 {
		return fmt.Errorf("profile.gpu_share.lucid: want [COLOCATE.csv, SINGLE.csv], got %d files", n)
	}
	return nil
}

// gpuShareStages is the GPU-sharing import stage of c (none when no source
// is configured) and the fit stage: Fit, or with the import, FitShared.
func (c *Config) gpuShareStages() (imp []pipeline.Stage, fit pipeline.Stage, err error) {
	g := c.Profile.GPUShare
	if !g.Enabled() {
		return nil, Fit(c.Fit), nil
	}
	if err := g.Validate(); err != nil {
		return nil, nil, err
	}
	dir := c.ResolveDataDir()
	if dir == "" {
		return nil, nil, fmt.Errorf("data_dir: profile.gpu_share names measured sources but no data directory is set and ../shared/data does not exist")
	}
	resolve := func(in string) (string, error) {
		p := in
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, in)
		}
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("profile.gpu_share: %s: %w", in, err)
		}
		return p, nil
	}
	var gavel string
	var lucid []string
	if g.Gavel != "" {
		if gavel, err = resolve(g.Gavel); err != nil {
			return nil, nil, err
		}
	}
	for _, in := range g.Lucid {
		p, err := resolve(in)
		if err != nil {
			return nil, nil, err
		}
		lucid = append(lucid, p)
	}
	return []pipeline.Stage{ProfileGPUShare(gavel, lucid)}, FitShared(c.Fit), nil
}

// ProfileGPUShare is the stage that imports the measured GPU-sharing
// sources (gavel: one file or ""; lucid: two files or none) into one
// gpu_share_samples table and one quarantine table, the accounting of each
// source checked and logged.
func ProfileGPUShare(gavel string, lucid []string) pipeline.Stage {
	in := append([]string(nil), lucid...)
	if gavel != "" {
		in = append([]string{gavel}, in...)
	}
	type shareConfig struct {
		Gavel, Lucid bool
	}
	return &pipeline.Func{
		StageName: "profile-gpu-share", StageVersion: stageVersion, In: in, Out: []string{ShareSamples, ShareQuarantine},
		Cfg: shareConfig{Gavel: gavel != "", Lucid: len(lucid) > 0},
		Fn: func(ctx context.Context, env *pipeline.Env) error {
			var samples []profiling.ShareSample
			var bad []datasets.Rejected
			add := func(format string, files []string) error {
				paths := make([]string, len(files))
				for i, f := range files {
					paths[i] = env.Input(f)
				}
				r, err := profiling.ImportShare(ctx, format, paths)
				if err != nil {
					return err
				}
				env.Log.Info("imported", "source", format, "rows", r.Rows, "standalone", r.Solo, "pairs", r.Pairs,
					"quarantined", len(r.Quarantined), "samples", len(r.Samples), "speed_above_1", r.AboveOne())
				samples, bad = append(samples, r.Samples...), append(bad, r.Quarantined...)
				return nil
			}
			if gavel != "" {
				if err := add(profiling.ShareSourceGavel, []string{gavel}); err != nil {
					return err
				}
			}
			if len(lucid) > 0 {
				if err := add(profiling.ShareSourceLucid, lucid); err != nil {
					return err
				}
			}
			meta := datasets.FileMeta{Source: profiling.ShareSamplesSource, ConfigHash: env.ConfigHash}
			if err := profiling.WriteShareSamples(ctx, env.Output(ShareSamples), meta, samples); err != nil {
				return err
			}
			return datasets.WriteParquet(env.Output(ShareQuarantine), meta, bad)
		},
	}
}

// FitShared is Fit with the GPU-sharing samples as well: the Table III
// models on the profile samples, the GPU-sharing forms on the share
// samples, one model.json with both terms, and the GPU-sharing error table.
func FitShared(cfg fitting.Config) pipeline.Stage {
	return &pipeline.Func{
		StageName: StageFit, StageVersion: stageVersion, Cfg: cfg,
		In:  []string{ProfileSamples, ShareSamples},
		Out: []string{FitCoefficients, FitModel, FitTable, FitShareTable, FitShareErrors},
		Fn: func(ctx context.Context, env *pipeline.Env) error {
			share, err := profiling.ReadShareSamples(ctx, env.Input(ShareSamples))
			if err != nil {
				return err
			}
			rep, err := fitProfile(ctx, env, cfg)
			if err != nil {
				return err
			}
			srep, err := fitting.RunShare(ctx, share, cfg)
			if err != nil {
				return err
			}
			t := srep.Term
			env.Log.Info("gpu-share term", "form", t.Form, "scope", t.Scope, "leave_type_out_mae", t.LeaveTypeOut.MAE, "baseline_mae", t.Baseline.MAE)
			dir := filepath.Dir(env.Output(FitModel))
			for _, o := range []string{FitCoefficients, FitTable, FitShareTable, FitShareErrors} {
				env.Output(o)
			}
			return fitting.WriteAllArtifacts(ctx, dir, rep, srep, datasets.FileMeta{Source: "fit", ConfigHash: env.ConfigHash})
		},
	}
}
