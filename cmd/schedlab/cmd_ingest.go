package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/internal/didyoumean"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/spf13/cobra"
)

func init() { register(newIngestCmd) }

func newIngestCmd(a *app) *cobra.Command {
	var source, out string
	var inputs []string
	var partitioned bool
	var executor string
	cmd := &cobra.Command{
		Use:   "ingest --source SRC --input PATH... --out DIR",
		Short: "Read a public trace into canonical Parquet tables",
		Long: `ingest runs the reader registered for SRC (see "schedlab datasets list") over the
input files or directories and writes its tables into DIR: jobs.parquet (or, for
google-2011, arrivals.parquet), quarantine.parquet (the rows it could not accept,
with file, line, field and reason) and any source-specific table. It prints how
many rows each file gave, accepted and quarantined, and the tables written.

The tables commit as one set, listed with their sha256 in DIR/ingest.json: a failed
or interrupted ingest leaves DIR's previous set as it was, and tables of a previous
set that this one does not write (cluster.parquet of another source) are removed. A
second ingest into DIR while one runs is refused.

With --partitioned (or into a DIR that already holds one) the output is a
partitioned dataset: one Parquet partition per input file, DIR/jobs/NAME.parquet
(job_events/NAME.parquet for google-2011) and DIR/quarantine/NAME.parquet, with
DIR/_dataset.json recording each input's path, size and sha256, its rows read,
accepted and quarantined, and each partition file's sha256 (google-2011 adds
DIR/arrivals.parquet over all partitions). Ingesting again into DIR re-reads only
the inputs that were added or changed and removes the partitions of inputs that
are gone; the result is byte for byte what a fresh ingest writes. A job id (for
google-2011 an event) repeating an earlier partition's, in name order, is
quarantined in the later one. With --executor (local, or temporal://HOST:PORT as
for run) each input file is read as a task of its own, on that executor; the
dataset is the same bytes. DuckDB reads the table as
read_parquet('DIR/jobs/*.parquet'); --jobs flags and eval's jobs_file take DIR.
Sources: google-2011, elasticflow, philly-gavel, tiresias, pai-sim (pai-v2020 and
alibaba-v2023 join tables across their files).

A file that is not in the source's format (a missing column, not text at all) stops
the ingest with exit status 1 and its file, line and field; an unknown source is
exit status 2.`,
		Example: `  schedlab ingest --source elasticflow --input ../shared/data/elasticflow --out out/itp
  schedlab ingest --source pai-sim --input operate_simulator_jobs_6000.csv --out out/pai`,
		RunE: func(cmd *cobra.Command, args []string) error {
			// --input is split at commas only: a CSV-style split (pflag's
			// StringSlice) also broke a name at a newline or a quote.
			var given []string
			for _, in := range inputs {
				given = append(given, strings.Split(in, ",")...)
			}
			inputs = append(given, args...)
			if _, err := datasets.Lookup(source); source != "" && err != nil {
				return usageErrorf("ingest: unknown source %q%s (sources: %s)", source, didyoumean.Suggest(source, datasets.Sources()), strings.Join(datasets.Sources(), ", "))
			}
			if source == "" || out == "" || len(inputs) == 0 {
				return usageErrorf("ingest: --source, --input and --out are required (see schedlab ingest --help)")
			}
			// The bin length is the configuration's (datasets.interval_s,
			// which --interval sets): one set of bounds for run and ingest.
			rc, err := a.config(cmd, nil)
			if err != nil {
				return err
			}
			interval := rc.cfg.Datasets.IntervalS
			r, err := datasets.Lookup(source)
			if err != nil {
				return usageErrorf("ingest: unknown source %q; known sources: %s", source, strings.Join(datasets.Sources(), ", "))
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if _, isDS := datasets.IsDataset(out); partitioned || isDS {
				pr, ok := r.(datasets.PerFileReader)
				if !ok {
					return usageErrorf("ingest: --partitioned: source %s has no per-file partitions (its tables join across files); ingest it without --partitioned", source)
				}
				ex, closeEx, err := newExecutor(ctx, executor, runtime.GOMAXPROCS(0), a) // cmd_worker.go
				if err != nil {
					return err
				}
				defer closeEx()
				rep, err := datasets.IngestDataset(ctx, pr, datasets.Request{Inputs: inputs, OutDir: out, IntervalS: interval, Executor: ex})
				if err != nil {
					return fmt.Errorf("ingest %s: %w", source, err)
				}
				printDatasetReport(cmd.OutOrStdout(), rep)
				return nil
			}
			if executor != "" {
				return usageErrorf("ingest: --executor needs --partitioned (a single-file ingest reads its files together, in this process)")
			}
			var bar *pipeline.Bar
			var last int64
			req := datasets.Request{Inputs: inputs, OutDir: out, IntervalS: interval,
				Progress: func(done, total int64) {
					if bar == nil {
						bar = a.progress.Start("ingest "+source, total)
					}
					bar.Add(done - last)
					last = done
				}}
			rep, err := datasets.IngestInto(ctx, r, req)
			bar.Done()
			if err != nil {
				return fmt.Errorf("ingest %s: %w", source, err)
			}
			printReport(cmd.OutOrStdout(), rep)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&source, "source", "", "trace format: one of the sources of schedlab datasets list")
	f.StringArrayVar(&inputs, "input", nil, "input file or directory (repeatable, or comma-separated; positional arguments are inputs too)")
	f.StringVar(&out, "out", "", "output directory")
	f.Float64("interval", 0, "arrivals bin length in seconds (google-2011)")
	keyFlag(cmd, "interval", "datasets.interval_s")
	f.StringVar(&executor, "executor", "", "with --partitioned: read each input file as a task on this executor: local, or temporal://HOST:PORT[/NAMESPACE] (see schedlab worker); the dataset does not depend on it")
	f.BoolVar(&partitioned, "partitioned", false, "write a partitioned dataset, one partition per input file, refreshed incrementally")
	return cmd
}

// printReport writes the accounting, per file and in total, and the tables.
func printReport(w io.Writer, rep *datasets.Report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "file\tread\taccepted\tquarantined\t\n")
	for _, f := range rep.Files() {
		a := rep.PerFile[f]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t\n", f, a.Read, a.Accepted, a.Quarantined)
	}
	fmt.Fprintf(tw, "total (%s)\t%d\t%d\t%d\t\n", rep.Source, rep.Total.Read, rep.Total.Accepted, rep.Total.Quarantined)
	tw.Flush()
	for _, o := range rep.Outputs {
		fmt.Fprintf(w, "wrote %-10s %8d rows  %s\n", o.Table, o.Rows, o.Path)
	}
	if rep.Total.Quarantined > 0 {
		fmt.Fprintf(w, "%d rows quarantined: see the quarantine table for file, line, field and reason\n", rep.Total.Quarantined)
	}
}

// printDatasetReport writes a refresh's accounting per partition and in
// total, and what it read, kept and removed.
func printDatasetReport(w io.Writer, rep *datasets.DatasetReport) {
	ds := rep.Dataset
	read := map[string]bool{}
	for _, n := range rep.Read {
		read[n] = true
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "partition\tread\taccepted\tquarantined\t\t\n")
	for _, p := range ds.Partitions {
		how := "kept"
		if read[p.Name] {
			how = "read"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t\n", p.Name, p.Rows.Read, p.Rows.Accepted, p.Rows.Quarantined, how)
	}
	fmt.Fprintf(tw, "total (%s)\t%d\t%d\t%d\t\t\n", ds.Source, ds.Total.Read, ds.Total.Accepted, ds.Total.Quarantined)
	tw.Flush()
	fmt.Fprintf(w, "%s: %d partitions of %s, %d read, %d kept, %d removed\n", filepath.Join(rep.Dir, datasets.DatasetFile), len(ds.Partitions), ds.Table, len(rep.Read), len(rep.Kept), len(rep.Removed))
	for _, n := range rep.Removed {
		fmt.Fprintf(w, "removed partition %s (its input is gone)\n", n)
	}
	if ds.CrossDuplicates > 0 {
		fmt.Fprintf(w, "%d rows repeat a key of an earlier partition and are quarantined\n", ds.CrossDuplicates)
	}
	if ds.Total.Quarantined > 0 {
		fmt.Fprintf(w, "%d rows quarantined: see %s for file, line, field and reason\n", ds.Total.Quarantined, filepath.Join(rep.Dir, "quarantine", "*.parquet"))
	}
}
