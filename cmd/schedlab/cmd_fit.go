package main

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/fitting"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/profiling"
	"github.com/spf13/cobra"
)

func init() { register(newFitCmd) }

func newFitCmd(a *app) *cobra.Command {
	var samples, out string
	cmd := &cobra.Command{
		Use:   "fit",
		Short: "Fit the interference models (MARL Table III) to profile samples",
		Long: `fit reads a profile_samples Parquet file, fits the five models of the MARL paper's
Table III (TRACON-linear, TRACON-quadratic, ours, ours w/o PCIe, ours w/o CPU) by
least squares (Levenberg–Marquardt; linear models by QR), cross-validates each with
k folds, and writes into --out:

  coefficients.parquet  every coefficient with its std. error and the fit metrics
  model.json            the fitted model the simulator loads (units, solver status)
  interference.md       Table III as measured, beside the paper's figures (labelled)

Samples with NaN/Inf, negative utilisation or no co-runners are quarantined and
listed in interference.md; a fit that did not converge is flagged in both files.`,
		Example: `  schedlab profile synth --samples 480 --out samples.parquet
  schedlab fit --samples samples.parquet --out fit/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if samples == "" || out == "" {
				return usageErrorf("fit: --samples and --out are required")
			}
			r, err := a.config(cmd, nil)
			if err != nil {
				return err
			}
			cfg, seed := r.cfg.Fit, r.cfg.Seed
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			s, err := profiling.ReadSamples(ctx, samples)
			if err != nil {
				return err
			}
			bar := a.progress.Start("fit", 1)
			rep, err := fitting.Run(ctx, s, cfg, pipeline.RandSource(seed, "fit", "folds"))
			bar.Done()
			if err != nil {
				return fmt.Errorf("%s: %w", samples, err)
			}
			meta := datasets.FileMeta{Source: "fit:" + filepath.Base(samples)}
			if err := fitting.WriteArtifacts(ctx, out, rep, meta); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "samples: %d read, %d fitted, %d quarantined\n", rep.Samples, rep.Samples-len(rep.Quarantined), len(rep.Quarantined))
			for i, f := range rep.Fits {
				fmt.Fprintf(w, "  %-17s CV error %6.2f%%  %s\n", f.Model, 100*rep.CV[i].Error, f.Status)
			}
			if !rep.Converged() {
				a.log.Warn("some fits did not converge; see interference.md")
			}
			fmt.Fprintf(w, "wrote %s, %s, %s in %s\n", fitting.CoefficientsFile, fitting.ModelFile, fitting.TableFile, out)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&samples, "samples", "", "profile_samples Parquet file (required)")
	f.StringVar(&out, "out", "", "output directory (required)")
	f.Int("folds", 0, "cross-validation folds")
	f.Int("max-iterations", 0, "Levenberg–Marquardt iteration limit, 0 for the default")
	f.Uint64("seed", 0, "run seed (the fold assignment draws from it, as the run's fit stage does)")
	for flag, key := range map[string]string{"folds": "fit.folds", "max-iterations": "fit.max_iterations", "seed": "seed"} {
		keyFlag(cmd, flag, key)
	}
	return cmd
}
