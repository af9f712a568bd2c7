package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/spf13/cobra"
)

func init() { datasetsSubcommands = append(datasetsSubcommands, newDatasetsFetchCmd) }

func newDatasetsFetchCmd(a *app) *cobra.Command {
	var dir, baseURL string
	cmd := &cobra.Command{
		Use:   "fetch pai-v2020 [--dir D]",
		Short: "Download a public trace's official tarballs, verified by sha256",
		Long: `fetch downloads the official tarballs of a public trace, checks each against the
sha256 its publisher lists (and each unpacked file against its listed sum), and
unpacks them into D. A tarball is downloaded to a temporary file and unpacked into a
temporary directory first: one that fails a check leaves nothing behind, and what
lands in D is verified. Tables already in D are not downloaded again.

pai-v2020 is the only trace fetched this way: the seven raw tables of Alibaba's PAI
GPU trace 2020 (about 1.4 GB of tarballs, 7 GB unpacked), ready for
"schedlab ingest --source pai-v2020 --input D".`,
		Example: `  schedlab datasets fetch pai-v2020 --dir data/pai-v2020
  schedlab ingest --source pai-v2020 --input data/pai-v2020 --out out/pai`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || args[0] != datasets.SourcePAIV2020 {
				return usageErrorf("datasets fetch: name the trace to fetch: %s (the only one published as tarballs)", datasets.SourcePAIV2020)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			bars := map[string]*pipeline.Bar{}
			f := datasets.Fetch{Dir: dir, BaseURL: baseURL, Progress: func(name string, done, total int64) {
				b := bars[name]
				if b == nil {
					b = a.progress.Start("fetch "+name, total)
					bars[name] = b
				}
				b.Set(done)
				if done == total {
					b.Done()
				}
			}}
			err := f.Run(ctx)
			for _, b := range bars {
				b.Done()
			}
			if err != nil {
				return fmt.Errorf("datasets fetch %s: %w", args[0], err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s tables in %s\n", args[0], dir)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&dir, "dir", "pai-v2020", "directory to unpack the tables into")
	fl.StringVar(&baseURL, "base-url", datasets.PAIV2020BaseURL, "where the tarballs are published (a mirror, or a local server in tests)")
	return cmd
}
