package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/schedlab/schedlab/history"
	"github.com/spf13/cobra"
)

func init() { register(newHistoryCmd) }

func newHistoryCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "history",
		Short: "Keep runs' metrics in one Parquet dataset and plot them over revisions and dates",
		Long: `history keeps the per-cell metrics of many runs (eval/metrics.parquet: one row per
experiment, cluster, workload, scheduler, seed and replicate) in one Hive-partitioned
Parquet dataset, so that a nightly job can watch each headline number move and any
Parquet reader can query every run as one table:

  DIR/preset=<preset>/revision=<revision>/metrics.parquet

  add    add a finished run (or set the config key history.dir, and schedlab run
         adds each successful run itself)
  plot   draw each experiment's mean JCT and mean fee over the runs, as SVG

A run is identified by preset, revision (with -dirty for uncommitted changes), config
hash and date, all read from its manifest.json (the date is when the run ended, never
the time of adding). A file holds every run of its preset and revision, rows sorted by
date, config hash and cell; adding the same run again replaces its rows (the same
rows: the file's bytes do not change) and says so. preset and revision are columns of
the path only (Hive's convention; Spark refuses them in both places, DuckDB would
silently prefer the path's); their values are escaped as Hive escapes them (%2F for
'/', %3D for '=', ...), which DuckDB and Spark undo.

Columns: date (TIMESTAMP, UTC), config_hash, experiment, cluster, workload, scheduler,
seed, replicate, jobs, pruned, mean_jct_s, p50_jct_s, p95_jct_s, mean_fee_usd,
mean_queue_s, mean_slowdown, makespan_s, gpu_util, decisions; and from the path,
preset and revision.

Query it with DuckDB (hive_types_autocast=false keeps a revision of digits text):

  SELECT revision, date, scheduler, cluster, avg(mean_jct_s) AS jct_s
  FROM read_parquet('DIR/*/*/metrics.parquet', hive_partitioning=true,
                    hive_types_autocast=false)
  WHERE preset = 'nightly' AND experiment = 'das-table1'
  GROUP BY ALL ORDER BY date, scheduler, cluster;

or with Spark: spark.read.parquet("DIR").`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageErrorf("history: name a subcommand, add or plot (see schedlab history --help)")
		},
	}
	cmd.AddCommand(newHistoryAddCmd(a), newHistoryPlotCmd(a))
	return cmd
}

func newHistoryAddCmd(a *app) *cobra.Command {
	var to, date string
	cmd := &cobra.Command{
		Use:         "add RUN --to DIR",
		Annotations: map[string]string{inputTreesAnnotation: "run"},
		Short:       "Add a finished run's per-cell metrics to the history in DIR",
		Long: `add reads RUN/manifest.json and RUN/eval/metrics.parquet (checked against the sha256
the manifest records) and writes the run's rows into
DIR/preset=<preset>/revision=<revision>/metrics.parquet, atomically, under a lock on
DIR. The rows of the same run (same preset, revision, config hash and date) are
replaced; other runs of that revision, on other dates or with other configurations,
are kept. A run that did not finish (status other than ok) is refused.

A manifest written before schedlab dated runs has no date: give it with --date.`,
		Example: `  schedlab run --preset nightly --out runs/n1 && schedlab history add runs/n1 --to history
  schedlab history add old-run --to history --date 2026-11-20T23:00:00Z
  duckdb -c "SELECT preset, revision, date, count(*) FROM read_parquet('history/*/*/metrics.parquet',
             hive_partitioning=true, hive_types_autocast=false) GROUP BY ALL ORDER BY date"`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("history add: want one run directory, got %d arguments (see schedlab history add --help)", len(args))
			}
			if to == "" {
				return usageErrorf("history add: --to DIR is required: the history's directory")
			}
			var opt history.Options
			if date != "" {
				d, err := time.Parse(time.RFC3339, date)
				if err != nil {
					return usageErrorf("history add: --date %q: want RFC 3339, such as 2026-11-20T23:00:00Z", date)
				}
				opt.Date = d
			}
			res, err := history.Add(cmd.Context(), args[0], to, opt)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), addedMessage(res))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&to, "to", "", "the history's directory (created if needed)")
	f.StringVar(&date, "date", "", "the run's date (RFC 3339), for a manifest that records none")
	return cmd
}

// addedMessage says what history.Add did.
func addedMessage(res history.Added) string {
	switch {
	case res.Unchanged:
		return fmt.Sprintf("history: run (%s) was already in %s with the same %d rows: nothing changed", res.Key, res.File, res.Rows)
	case res.Replaced > 0:
		return fmt.Sprintf("history: run (%s) replaced: its %d earlier rows by %d rows in %s", res.Key, res.Replaced, res.Rows, res.File)
	}
	return fmt.Sprintf("history: run (%s) added: %d rows in %s", res.Key, res.Rows, res.File)
}

func newHistoryPlotCmd(a *app) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "plot DIR",
		Short: "Draw each experiment's headline metrics over the runs in the history",
		Long: `plot reads the history in DIR and writes, per preset and experiment, one SVG
(<preset>-<experiment>.svg) with a panel per headline metric, mean JCT and mean fee,
and cluster (a metric that is zero in every run, such as the MARL experiments' fee, is
left out). Each line is a scheduler; each point one run, the mean of the metric over the
run's cells of that cluster and scheduler (workloads, seeds and replicates); the runs
are ordered by date, then revision. index.md lists the plots and, per preset, the
runs (date, revision, config hash, cells).

The default --out is DIR/_plots: Spark skips directories whose names start with '_'
when it reads DIR as a table.`,
		Example: `  schedlab history plot history                # history/_plots/index.md
  schedlab history plot history --out site/history`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("history plot: want the history's directory, got %d arguments (see schedlab history plot --help)", len(args))
			}
			dir := out
			if dir == "" {
				dir = filepath.Join(args[0], "_plots")
			}
			files, err := history.Plot(cmd.Context(), args[0], dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "history: %d plots; index: %s\n", len(files)-1, files[len(files)-1])
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "directory of the plots and index.md (default DIR/_plots)")
	return cmd
}
