package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/fitting"
	"github.com/schedlab/schedlab/profiling"
	"github.com/schedlab/schedlab/stages"
	"github.com/spf13/cobra"
)

func init() { register(newFitCmd) }

func newFitCmd(a *app) *cobra.Command {
	var samples []string
	var out, model, predict string
	cmd := &cobra.Command{
		Use:   "fit",
		Short: "Fit the interference models (MARL Table III, GPU sharing) to profile samples",
		Long: `fit reads profile_samples and gpu_share_samples Parquet files (--samples, repeatable)
and fits every model the samples support, writing into --out:

  from profile_samples (CPU/PCIe co-location):
  coefficients.parquet  every coefficient of the five models of the MARL paper's Table III
                        (TRACON-linear, TRACON-quadratic, ours, ours w/o PCIe, ours w/o CPU)
  interference.md       Table III as measured (k-fold), beside the paper's figures (labelled)
  from gpu_share_samples (jobs sharing one GPU; schedlab profile import --format gavel|lucid):
  gpu_share.md          the GPU-sharing forms' errors: leave-type-out, leave-model-out,
  gpu_share_errors.parquet  k-fold over pairs, across GPU types and sources, beside the median
  and in both cases:
  model.json            the fitted terms the simulator loads (units, solver status)

Samples with NaN/Inf, negative utilisation or no co-runners are quarantined and
listed; a fit that did not converge is flagged.

With --model and --predict, fit predicts instead: every sample of the --predict file
(gpu_share_samples or profile_samples) gets its measured and predicted speed relative
to running alone, written to the Parquet file --out.`,
		Example: `  schedlab profile synth --samples 480 --out samples.parquet
  schedlab fit --samples samples.parquet --out fit/
  schedlab fit --samples gavel.parquet --samples lucid.parquet --out fit/
  schedlab fit --model fit/model.json --predict heldout.parquet --out predictions.parquet`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if model != "" || predict != "" {
				if model == "" || predict == "" || out == "" || len(samples) > 0 {
					return usageErrorf("fit: prediction takes --model, --predict and --out (and no --samples)")
				}
				return fitPredict(cmd, model, predict, out)
			}
			if len(samples) == 0 || out == "" {
				return usageErrorf("fit: --samples and --out are required")
			}
			r, err := a.config(cmd, nil)
			if err != nil {
				return err
			}
			cfg, seed := r.cfg.Fit, r.cfg.Seed
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			var cpu []profiling.Sample
			var share []profiling.ShareSample
			var names []string
			for _, path := range samples {
				isShare, err := shareSamplesFile(path)
				if err != nil {
					return err
				}
				if isShare {
					s, err := profiling.ReadShareSamples(ctx, path)
					if err != nil {
						return err
					}
					share = append(share, s...)
				} else {
					s, err := profiling.ReadSamples(ctx, path)
					if err != nil {
						return err
					}
					cpu = append(cpu, s...)
				}
				names = append(names, filepath.Base(path))
			}
			bar := a.progress.Start("fit", 1)
			var rep *fitting.Report
			var srep *fitting.ShareReport
			if len(cpu) > 0 {
				rep, err = fitting.Run(ctx, cpu, cfg, stages.FitFolds(seed))
			}
			if err == nil && len(share) > 0 {
				srep, err = fitting.RunShare(ctx, share, cfg)
			}
			bar.Done()
			if err != nil {
				return fmt.Errorf("%s: %w", strings.Join(samples, ", "), err)
			}
			meta := datasets.FileMeta{Source: "fit:" + strings.Join(names, ",")}
			if err := fitting.WriteAllArtifacts(ctx, out, rep, srep, meta); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if rep != nil {
				fmt.Fprintf(w, "samples: %d read, %d fitted, %d quarantined\n", rep.Samples, rep.Samples-len(rep.Quarantined), len(rep.Quarantined))
				for i, f := range rep.Fits {
					fmt.Fprintf(w, "  %-17s CV error %6.2f%%  %s\n", f.Model, 100*rep.CV[i].Error, f.Status)
				}
				if !rep.Converged() {
					a.log.Warn("some fits did not converge; see interference.md")
				}
				fmt.Fprintf(w, "wrote %s, %s in %s\n", fitting.CoefficientsFile, fitting.TableFile, out)
			}
			if srep != nil {
				t := srep.Term
				fmt.Fprintf(w, "GPU-sharing samples: %d read, %d quarantined, %d with speed > 1 (kept)\n", srep.Samples, len(srep.Quarantined), srep.AboveOne)
				fmt.Fprintf(w, "  term %s on %s: leave-type-out MAE %.3f (run time %.1f%%), median baseline %.3f (%.1f%%)\n",
					t.Form, t.Scope, t.LeaveTypeOut.MAE, 100*t.LeaveTypeOut.RunTime, t.Baseline.MAE, 100*t.Baseline.RunTime)
				fmt.Fprintf(w, "wrote %s, %s in %s\n", fitting.ShareTableFile, fitting.ShareErrorsFile, out)
			}
			fmt.Fprintf(w, "wrote %s in %s\n", fitting.ModelFile, out)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&samples, "samples", nil, "profile_samples or gpu_share_samples Parquet file (repeatable)")
	f.StringVar(&out, "out", "", "output directory (fitting) or Parquet file (with --predict) (required)")
	f.StringVar(&model, "model", "", "model.json of a fit, to predict with (with --predict)")
	f.StringVar(&predict, "predict", "", "samples to predict (gpu_share_samples or profile_samples Parquet)")
	f.Int("folds", 0, "cross-validation folds")
	f.Int("max-iterations", 0, "Levenberg–Marquardt iteration limit, 0 for the default")
	f.Uint64("seed", 0, "run seed (the fold assignment draws from it, as the run's fit stage does)")
	keyFlags(cmd, map[string]string{"folds": "fit.folds", "max-iterations": "fit.max_iterations", "seed": "seed"})
	return cmd
}

// shareSamplesFile tells a gpu_share_samples file from a profile_samples
// one by its schedlab.source metadata, else by its columns.
func shareSamplesFile(path string) (bool, error) {
	info, err := datasets.InspectTable(path)
	if err != nil {
		return false, err
	}
	if strings.HasPrefix(info.Source, profiling.ShareSamplesSource) {
		return true, nil
	}
	for _, c := range info.Columns {
		if c == "job_gpu_util" {
			return true, nil
		}
	}
	return false, nil
}

// predictSamples reads the samples table at path with read and predicts
// each sample with m (loaded from model, which an error of the prediction
// names).
func predictSamples[S any](ctx context.Context, m *fitting.InterferenceModel, model, path string,
	read func(context.Context, string) ([]S, error),
	predict func(*fitting.InterferenceModel, []S) ([]fitting.PredictionRow, error)) ([]fitting.PredictionRow, error) {
	s, err := read(ctx, path)
	if err != nil {
		return nil, err
	}
	rows, err := predict(m, s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", model, err)
	}
	return rows, nil
}

// fitPredict is fit --model --predict --out.
func fitPredict(cmd *cobra.Command, model, predict, out string) error {
	ctx := cmd.Context()
	m, err := fitting.LoadModel(model)
	if err != nil {
		return err
	}
	isShare, err := shareSamplesFile(predict)
	if err != nil {
		return err
	}
	var rows []fitting.PredictionRow
	if isShare {
		rows, err = predictSamples(ctx, m, model, predict, profiling.ReadShareSamples, fitting.PredictShare)
	} else {
		rows, err = predictSamples(ctx, m, model, predict, profiling.ReadSamples, fitting.PredictSlowdown)
	}
	if err != nil {
		return err
	}
	if err := datasets.WriteParquet(out, datasets.FileMeta{Source: "fit-predict:" + filepath.Base(predict)}, rows); err != nil {
		return err
	}
	n, mae := 0, 0.0
	for _, r := range rows {
		if r.Reason == "" {
			n++
			d := r.Predicted - r.Measured
			if d < 0 {
				d = -d
			}
			mae += d
		}
	}
	if n > 0 {
		mae /= float64(n)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "predicted %d of %d samples (%d refused, reasons in the file), MAE %.4f; wrote %s\n", n, len(rows), len(rows)-n, mae, out)
	return nil
}
