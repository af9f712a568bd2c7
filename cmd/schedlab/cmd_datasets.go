package main

import (
	"fmt"
	"strings"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/stages"
	"github.com/spf13/cobra"
)

func init() { register(newDatasetsCmd) }

// datasetsSubcommands are further "schedlab datasets" subcommands defined in
// other files (e.g. fetch): append a constructor from an init function.
var datasetsSubcommands []func(*app) *cobra.Command

func newDatasetsCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "datasets",
		Short: "List trace readers and describe canonical tables",
		Long: `datasets works with the canonical tables and the readers that produce them:

  list       the trace sources "schedlab ingest" reads, with their formats
  describe   a statistical summary of a jobs or arrivals Parquet table`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageErrorf("datasets: name a subcommand (see schedlab datasets --help)")
		},
	}
	cmd.AddCommand(newDatasetsListCmd(a), newDatasetsDescribeCmd(a))
	for _, c := range datasetsSubcommands {
		cmd.AddCommand(c(a))
	}
	return cmd
}

func newDatasetsListCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the registered trace sources",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			names := datasets.Sources()
			width := 0
			for _, n := range names {
				width = max(width, len(n))
			}
			for _, n := range names {
				r, err := datasets.Lookup(n)
				if err != nil {
					return err
				}
				fmt.Fprintf(w, "%-*s  %s\n", width, n, r.Describe())
			}
			return nil
		},
	}
}

func newDatasetsDescribeCmd(a *app) *cobra.Command {
	quantiles := []float64{0.5, 0.9, 0.99}
	cmd := &cobra.Command{
		Use:   "describe FILE",
		Short: "Summarise a canonical jobs or arrivals Parquet table",
		Long: `describe prints a Markdown summary of a canonical table:

  jobs       rows, sources, submission span, GPU-hours, duration mean and quantiles,
             the GPUs-per-job histogram and the most common workload types (the same
             table as the pipeline's jobs-summary stage)
  arrivals   intervals, interval length, total jobs, min/mean/p50/p90/max per interval`,
		Example: `  schedlab datasets describe out/datasets/jobs.parquet`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, q := range quantiles {
				if !(q > 0 && q < 1) {
					return usageErrorf("datasets describe: --quantiles: %v is not in (0, 1)", q)
				}
			}
			info, err := datasets.InspectTable(args[0])
			if err != nil {
				return err
			}
			if info.Kind == "" {
				return fmt.Errorf("%s: not a canonical jobs or arrivals table (columns: %s)", args[0], strings.Join(info.Columns, ", "))
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "<!-- %s: %s table, %d rows, source %q, schema version %q -->\n\n", info.Path, info.Kind, info.Rows, info.Source, info.SchemaVersion)
			switch info.Kind {
			case datasets.KindJobs:
				jobs, err := datasets.ReadParquet[datasets.Job](args[0])
				if err != nil {
					return err
				}
				fmt.Fprint(w, stages.SummariseJobs(jobs, quantiles))
			case datasets.KindArrivals:
				s, err := datasets.DescribeArrivals(args[0])
				if err != nil {
					return err
				}
				fmt.Fprint(w, s.Markdown())
			}
			return nil
		},
	}
	cmd.Flags().Float64SliceVar(&quantiles, "quantiles", quantiles, "job-duration quantiles to report, each in (0, 1)")
	return cmd
}
