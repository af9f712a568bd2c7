package main

import (
	"context"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// trainFamily is one learned scheduler family that `schedlab train` can
// train. Each family registers itself from its own cmd_train_<family>.go
// with registerTrainFamily in an init function, so families are added
// without touching this file.
type trainFamily struct {
	Name     string   // value of --family: das, dl2, rifling, marl, deepsys
	Short    string   // one line for --help
	Variants []string // values of --variant; the first is the default; nil when none
	// Flags adds the family's own flags (e.g. --cluster, --topology); names
	// must not clash with another family's or the common ones.
	Flags func(fs *pflag.FlagSet)
	// Run trains into opts.Out: checkpoints, curves.parquet, the plot.
	Run func(ctx context.Context, a *app, opts trainOptions) error
}

// trainOptions are the flags common to every family, plus the command's
// flag set for the family's own.
type trainOptions struct {
	Family, Variant, Out string
	Seed                 uint64
	Flags                *pflag.FlagSet
}

var trainFamilies = map[string]trainFamily{}

func registerTrainFamily(f trainFamily) {
	if _, dup := trainFamilies[f.Name]; dup {
		panic("schedlab: train family " + f.Name + " registered twice")
	}
	trainFamilies[f.Name] = f
}

func init() { register(newTrainCmd) }

func newTrainCmd(a *app) *cobra.Command {
	if len(trainFamilies) == 0 {
		return notImplemented("train", planned["train"])
	}
	var opts trainOptions
	names := sortedKeys(trainFamilies)
	var lines []string
	for _, n := range names {
		f := trainFamilies[n]
		l := "  " + n + strings.Repeat(" ", max(1, 9-len(n))) + f.Short
		if len(f.Variants) > 0 {
			l += " (variants: " + strings.Join(f.Variants, ", ") + ")"
		}
		lines = append(lines, l)
	}
	cmd := &cobra.Command{
		Use:   "train",
		Short: "Train a learned scheduler family in the simulator",
		Long: `train trains one learned scheduler family offline in the trace-driven simulator and
writes into --out its checkpoints (with the configuration hash they belong to), the
learning curves (curves.parquet: return and mean JCT per episode) and their plot.

Families:
` + strings.Join(lines, "\n") + `

Training is deterministic: the same flags and --seed give bit-identical checkpoints.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			f, ok := trainFamilies[opts.Family]
			if !ok {
				return usageErrorf("train: --family %q is not one of %s", opts.Family, strings.Join(names, ", "))
			}
			if opts.Variant == "" && len(f.Variants) > 0 {
				opts.Variant = f.Variants[0]
			}
			if opts.Variant != "" && !slices.Contains(f.Variants, opts.Variant) {
				return usageErrorf("train: --variant %q is not one of %s's (%s)", opts.Variant, f.Name, strings.Join(f.Variants, ", "))
			}
			if opts.Out == "" {
				return usageErrorf("train: --out is required")
			}
			opts.Flags = cmd.Flags()
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return f.Run(ctx, a, opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.Family, "family", "", "scheduler family: "+strings.Join(names, ", ")+" (required)")
	fs.StringVar(&opts.Variant, "variant", "", "variant of the family (default: the family's first)")
	fs.StringVar(&opts.Out, "out", "", "output directory (required)")
	fs.Uint64Var(&opts.Seed, "seed", 1, "run seed: every random stream is derived from it")
	for _, n := range names {
		if trainFamilies[n].Flags != nil {
			trainFamilies[n].Flags(fs)
		}
	}
	return cmd
}
