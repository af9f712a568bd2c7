package main

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/profiling"
	"github.com/schedlab/schedlab/stages"
	"github.com/spf13/cobra"
)

func init() { register(newProfileCmd) }

func newProfileCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profile",
		Short: "Produce co-location samples (profile_samples Parquet)",
		Long: `profile produces profile_samples tables, the input of "schedlab fit":

  synth    synthetic co-location samples on a 2-socket, 4-GPU server (ground truth
           documented in the profiling package; not the fitted model family)
  cpu      real measurements on this machine: a reference CPU-bound task alone and
           beside duty-cycled CPU hogs
  import   samples from profiler output files (nvidia-smi dmon, dcgm, nsys, proc, pidstat)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageErrorf("profile: name a subcommand: synth, cpu or import (see schedlab profile --help)")
		},
	}
	cmd.AddCommand(newProfileSynthCmd(a), newProfileCPUCmd(a), newProfileImportCmd(a))
	return cmd
}

func newProfileSynthCmd(a *app) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "synth",
		Short: "Draw synthetic co-location samples",
		Example: `  schedlab profile synth --samples 480 --seed 1 --out samples
  schedlab fit --samples samples/profile_samples.parquet --out fit`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageErrorf("profile synth: --out is required")
			}
			r, err := a.config(cmd, nil)
			if err != nil {
				return err
			}
			out, err := outFile(a, "profile synth", out, samplesFile)
			if err != nil {
				return err
			}
			cfg, seed := r.cfg.Profile.Synth, r.cfg.Seed
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			// The same stream as the pipeline's profile-synth stage.
			s, err := profiling.Synthesize(ctx, cfg, stages.SynthSamples(seed))
			if err != nil {
				return err
			}
			meta := datasets.FileMeta{Source: profiling.ProfileSamplesSource + ":synthetic"}
			if err := profiling.WriteSamples(ctx, out, meta, s); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d synthetic samples to %s\n", len(s), out)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "output directory: writes DIR/"+samplesFile+" (required)")
	f.Uint64("seed", 0, "run seed (the samples draw from it as the run's profile-synth stage does)")
	f.Int("samples", 0, "number of samples")
	f.Float64("cores-per-socket", 0, "physical cores per socket")
	f.Float64("pcie-gbps", 0, "PCIe link bandwidth per socket, Gbit/s")
	f.Float64("noise", 0, "log-normal run-time noise σ")
	keyFlags(cmd, map[string]string{"seed": "seed", "samples": "profile.synth.samples", "cores-per-socket": "profile.synth.cores_per_socket",
		"pcie-gbps": "profile.synth.pcie_gbps", "noise": "profile.synth.noise_sigma"})
	return cmd
}

func newProfileCPUCmd(a *app) *cobra.Command {
	var out string
	cfg := profiling.DefaultCPUProfileConfig()
	cmd := &cobra.Command{
		Use:   "cpu",
		Short: "Measure CPU interference on this machine (real measurements)",
		Long: `cpu runs a reference CPU-bound task alone and beside duty-cycled CPU hog threads pinned
to the task's CPU ("same") or another CPU ("other"), at several duty cycles and hog
counts, each configuration repeated with paired alone/loaded runs, and writes one
profile_samples row per configuration (each CPU treated as a socket of one core).
Results depend on the machine and on whatever else it runs: they are measurements.`,
		Example: `  schedlab profile cpu --out cpu --repetitions 5`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageErrorf("profile cpu: --out is required")
			}
			if _, err := a.config(cmd, nil); err != nil {
				return err
			}
			out, err := outFile(a, "profile cpu", out, samplesFile)
			if err != nil {
				return err
			}
			if err := cfg.Validate(); err != nil {
				return usageErrorf("%v", err)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			var bar *pipeline.Bar
			s, err := profiling.ProfileCPU(ctx, cfg, func(done, total int) {
				if bar == nil {
					bar = a.progress.Start("profile cpu", int64(total))
				}
				bar.Add(1)
			})
			if bar != nil {
				bar.Done()
			}
			if err != nil {
				return err
			}
			if err := profiling.WriteSamples(ctx, out, datasets.FileMeta{Source: profiling.ProfileSamplesSource + ":cpu-profiler"}, s); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			for _, x := range s {
				fmt.Fprintf(w, "  %-26s task %.2f cores  slowdown %6.3f\n", x.SampleID, x.CPUCores, x.Slowdown)
			}
			fmt.Fprintf(w, "wrote %d samples to %s\n", len(s), out)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "output directory: writes DIR/"+samplesFile+" (required)")
	f.IntVar(&cfg.Repetitions, "repetitions", cfg.Repetitions, "paired runs per configuration")
	f.Float64SliceVar(&cfg.DutyCycles, "duty", cfg.DutyCycles, "hog duty cycles (fractions of a core)")
	f.IntSliceVar(&cfg.HogCounts, "hogs", cfg.HogCounts, "numbers of hogs")
	f.StringSliceVar(&cfg.Placements, "placements", cfg.Placements, "hog placements: same, other")
	f.IntVar(&cfg.TaskSteps, "task-steps", cfg.TaskSteps, "work of one reference run, in loop steps")
	return cmd
}

func newProfileImportCmd(a *app) *cobra.Command {
	var out, format string
	cmd := &cobra.Command{
		Use:   "import --format F FILE...",
		Short: "Read profiler output files into a readings Parquet table",
		Long: `import parses profiler output (formats: dmon = nvidia-smi dmon, dcgm = dcgm-exporter
Prometheus text, nsys = nsys stats cuda_gpu_mem_size_sum CSV, proc-stat = /proc/stat,
proc-pid-stat = /proc/<pid>/stat, pidstat = pidstat -u) into utilisation readings
(source, file, line, entity, metric, value, unit). Readings carry no slowdown: turning
them into profile_samples needs a run plan of who ran beside whom. A malformed file
stops the import with its name, line and field.

GPU-sharing measurements (formats gavel = Gavel's throughput JSON, one file; lucid =
Lucid's COLOCATE.csv then SINGLE.csv) become a gpu_share_samples table instead: per job
of each measured pair, both jobs' standalone profiles, the GPU type and the job's speed
relative to running alone. Rows that cannot be samples (pairs not run, non-positive or
non-finite throughputs, a job with no standalone row) go to OUT's .quarantine.parquet
beside it, with file, line, field and reason.`,
		Example: `  schedlab profile import --format dmon gpu0.dmon gpu1.dmon --out readings
  schedlab profile import --format gavel gavel_throughputs.json --out gavel
  schedlab profile import --format lucid lucid_colocate_info.csv lucid_single_data.csv --out lucid`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" || format == "" {
				return usageErrorf("profile import: --format and --out are required")
			}
			ctx := cmd.Context()
			if slices.Contains(profiling.ShareFormats, format) {
				out, err := outFile(a, "profile import", out, shareSamplesName)
				if err != nil {
					return err
				}
				return importShare(cmd, format, args, out)
			}
			out, err := outFile(a, "profile import", out, readingsFile)
			if err != nil {
				return err
			}
			rd, err := profiling.Import(ctx, format, args)
			if err != nil {
				if strings.HasPrefix(err.Error(), "profile.import.format") {
					return usageErrorf("%v", err)
				}
				return err
			}
			if err := datasets.WriteParquet(out, datasets.FileMeta{Source: "profile_readings:" + format}, rd); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d readings from %d files to %s\n", len(rd), len(args), out)
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "", "input format: "+strings.Join(append(slices.Clone(profiling.ImportFormats), profiling.ShareFormats...), ", "))
	cmd.Flags().StringVar(&out, "out", "", "output directory: writes DIR/"+readingsFile+", or DIR/"+shareSamplesName+" and its quarantine (required)")
	return cmd
}

// The files profile writes into its --out directory.
const (
	samplesFile      = "profile_samples.parquet"
	shareSamplesName = "gpu_share_samples.parquet"
	readingsFile     = "profile_readings.parquet"
)

// outFile is where a profile subcommand writes its table: name in the
// directory out, which it creates, as every --out of schedlab names a
// directory. An out ending in .parquet is the file itself, the form before
// --out meant a directory: still written, with a deprecation warning.
func outFile(a *app, command, out, name string) (string, error) {
	if strings.HasSuffix(out, ".parquet") {
		a.log.Warn(command+": --out FILE.parquet is deprecated: --out names a directory, into which it writes "+name, "out", out)
		return out, nil
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", fmt.Errorf("%s: --out: %w", command, err)
	}
	return filepath.Join(out, name), nil
}

// importShare is profile import of a GPU-sharing source: the samples to
// out, the quarantined rows beside it (ShareQuarantinePath).
func importShare(cmd *cobra.Command, format string, files []string, out string) error {
	ctx := cmd.Context()
	r, err := profiling.ImportShare(ctx, format, files)
	if err != nil {
		if strings.HasPrefix(err.Error(), "profile.import") {
			return usageErrorf("%v", err)
		}
		return err
	}
	src := profiling.ShareSamplesSource + ":" + format
	if err := profiling.WriteShareSamples(ctx, out, datasets.FileMeta{Source: src}, r.Samples); err != nil {
		return err
	}
	qp := profiling.ShareQuarantinePath(out)
	if err := datasets.WriteParquet(qp, datasets.FileMeta{Source: src}, r.Quarantined); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s: %d rows read: %d standalone, %d pairs accepted, %d quarantined\nwrote %d samples (%d with speed > 1, kept) to %s, %d quarantined rows to %s\n",
		format, r.Rows, r.Solo, r.Pairs, len(r.Quarantined), len(r.Samples), r.AboveOne(), out, len(r.Quarantined), qp)
	return nil
}
