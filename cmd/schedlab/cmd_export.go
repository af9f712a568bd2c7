package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/stages"
	"github.com/spf13/cobra"
)

func init() { register(newExportCmd) }

func newExportCmd(a *app) *cobra.Command {
	var run, format, out string
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Export a run's result tables as Parquet, CSV, Markdown or LaTeX",
		Long: `export collects the results of a finished run (a directory written by schedlab run or
schedlab eval) into one folder, one file per table, in the chosen format:

  parquet  eval_results, eval_metrics, eval_timings, fit_coefficients (.parquet):
           copies of the run's tables, for DuckDB, pandas or Spark
  csv      the same tables as CSV (header row, floats that read back exactly),
           plus every tables/*.csv of the run
  md       every Markdown table of the run and all.md holding them all
  tex      every LaTeX table of the run and all.tex, a complete document

Before a table is copied or converted its bytes are checked against the sha256 in
RUN/manifest.json (both schedlab run and schedlab eval write one); a table changed
since is refused (exit status 1) naming the file. The default destination is
RUN/export/FORMAT.`,
		Example: `  schedlab export --run out --format csv
  schedlab export --run out --format tex --out paper/tables`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if run == "" || format == "" {
				return usageErrorf("export: --run and --format are required")
			}
			// export reads no key, but holds the layers to the same checks
			// as every command (a misspelt SCHEDLAB_* variable is refused).
			if _, err := a.config(cmd, nil); err != nil {
				return err
			}
			if !slices.Contains(stages.ExportFormats, format) {
				return usageErrorf("export: --format %q is not one of %s", format, strings.Join(stages.ExportFormats, ", "))
			}
			if out == "" {
				out = filepath.Join(run, "export", format)
			}
			if _, err := os.Stat(run); err != nil {
				return fmt.Errorf("export: %w", err)
			}
			// Hold the run directory so that no run or eval rewrites it
			// while its tables are checked and copied, and the destination
			// so that two exports do not interleave.
			if _, err := os.Stat(out); errors.Is(err, os.ErrNotExist) {
				defer os.Remove(out) // made for an export that failed
			}
			for _, d := range []string{run, out} {
				lock, err := pipeline.LockDir(d, "export")
				if err != nil {
					return fmt.Errorf("export: %w", err)
				}
				defer lock.Unlock()
				if filepath.Clean(out) == filepath.Clean(run) {
					break
				}
			}
			files, err := stages.Export(cmd.Context(), run, format, out)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			for _, f := range files {
				fmt.Fprintln(w, filepath.Join(out, f))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&run, "run", "", "run directory (required)")
	f.StringVar(&format, "format", "", "parquet, csv, md or tex (required)")
	f.StringVar(&out, "out", "", "destination directory (default RUN/export/FORMAT)")
	return cmd
}
