package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/spf13/cobra"
)

func init() { register(newIngestCmd) }

func newIngestCmd(a *app) *cobra.Command {
	var source, out string
	var inputs []string
	var interval float64
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

A file that is not in the source's format (a missing column, not text at all) stops
the ingest with exit status 1 and its file, line and field; an unknown source is
exit status 2.`,
		Example: `  schedlab ingest --source elasticflow --input ../shared/data/elasticflow --out out/itp
  schedlab ingest --source pai-sim --input operate_simulator_jobs_6000.csv --out out/pai`,
		RunE: func(cmd *cobra.Command, args []string) error {
			inputs = append(inputs, args...)
			if source == "" || out == "" || len(inputs) == 0 {
				return usageErrorf("ingest: --source, --input and --out are required (see schedlab ingest --help)")
			}
			// A bin must be a positive, finite length: 0 or -5 used to
			// become the 1800 s default unseen. A year is already far
			// beyond any use (the trace spans 29 days).
			if !(interval > 0 && interval <= maxIntervalS) {
				return usageErrorf("ingest: --interval %g: must be a number of seconds in (0, %d] (a year)", interval, maxIntervalS)
			}
			r, err := datasets.Lookup(source)
			if err != nil {
				return usageErrorf("ingest: unknown source %q; known sources: %s", source, strings.Join(datasets.Sources(), ", "))
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
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
	f.StringSliceVar(&inputs, "input", nil, "input file or directory (repeatable, or comma-separated; positional arguments are inputs too)")
	f.StringVar(&out, "out", "", "output directory")
	f.Float64Var(&interval, "interval", 1800, "arrivals bin length in seconds (google-2011)")
	return cmd
}

// maxIntervalS bounds --interval: one year.
const maxIntervalS = 366 * 24 * 3600

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
