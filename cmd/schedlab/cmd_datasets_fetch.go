package main

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/spf13/cobra"
)

func init() { datasetsSubcommands = append(datasetsSubcommands, newDatasetsFetchCmd) }

func newDatasetsFetchCmd(a *app) *cobra.Command {
	var dir, baseURL string
	var connectTimeout, readTimeout time.Duration
	var retries int
	cmd := &cobra.Command{
		Use:   "fetch SOURCE [--dir D]",
		Short: "Download a public trace's official tarballs, verified by sha256",
		Long: `fetch downloads the official tarballs of a public trace, checks each against the
sha256 its publisher lists (and each unpacked file against its listed sum), and
unpacks them into D. A tarball is downloaded to a temporary file and unpacked into a
temporary directory first: one that fails a check leaves nothing behind, and what
lands in D is verified. Tables already in D are checked against their published
sha256 and downloaded again only if one is missing, empty or different.

A connection that takes longer than --connect-timeout, or a server that sends
nothing for --read-timeout (before its headers or in the middle of a body), fails
the attempt; failed attempts (timeouts, dropped connections, HTTP 5xx and 429) are
retried --retries times, waiting 2 s, 4 s, 8 s, ... (at most 1 min) between them.
A 404 or a checksum mismatch is not retried. A second fetch into D while one runs
is refused.

A source that publishes its raw tables as tarballs says so in its registration
(datasets.Publisher); the sources fetched this way: ` + strings.Join(datasets.PublishedSources(), ", ") + `.
What lands in D is ready for "schedlab ingest --source SOURCE --input D".`,
		Example: `  schedlab datasets fetch pai-v2020 --dir data/pai-v2020
  schedlab ingest --source pai-v2020 --input data/pai-v2020 --out out/pai`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("datasets fetch: name the trace to fetch: %s (those published as tarballs)", strings.Join(datasets.PublishedSources(), ", "))
			}
			src, err := datasets.LookupPublisher(args[0])
			if err != nil {
				return usageErrorf("datasets fetch: %v", err)
			}
			defURL, tarballs := src.Published()
			if baseURL == "" {
				baseURL = defURL
			}
			if dir == "" {
				dir = args[0]
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if connectTimeout <= 0 || readTimeout <= 0 {
				return usageErrorf("datasets fetch: --connect-timeout and --read-timeout must be > 0, got %v and %v", connectTimeout, readTimeout)
			}
			if retries < 0 || retries > maxFetchRetries {
				return usageErrorf("datasets fetch: --retries must be in [0, %d], got %d", maxFetchRetries, retries)
			}
			if retries == 0 {
				retries = -1 // Fetch's 0 means its default
			}
			bars := map[string]*pipeline.Bar{}
			f := datasets.Fetch{Dir: dir, BaseURL: baseURL, Tarballs: tarballs, ConnectTimeout: connectTimeout, ReadTimeout: readTimeout, Retries: retries,
				Log: func(msg string) { a.log.Warn(msg) }, Progress: func(name string, done, total int64) {
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
			err = f.Run(ctx)
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
	fl.StringVar(&dir, "dir", "", "directory to unpack the tables into (default: the source's name)")
	fl.StringVar(&baseURL, "base-url", "", "where the tarballs are published (default: the source's publisher; a mirror, or a local server in tests)")
	fl.DurationVar(&connectTimeout, "connect-timeout", datasets.DefaultConnectTimeout, "longest wait to connect to the server")
	fl.DurationVar(&readTimeout, "read-timeout", datasets.DefaultReadTimeout, "longest wait for the server's next bytes (headers or body)")
	fl.IntVar(&retries, "retries", datasets.DefaultRetries, "times a failed download is tried again (0: never)")
	return cmd
}

// maxFetchRetries bounds --retries: with the backoff capped at a minute,
// this many retries wait at most about a quarter of an hour per tarball.
const maxFetchRetries = 20
