package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Conventions for subcommands (each lives in its own cmd_<name>.go file):
//
//   - register the constructor in an init function:
//     func init() { register(newIngestCmd) }
//   - a constructor takes the *app, which carries the logger, the progress
//     reporter and the configuration loader;
//   - bad flags or arguments return usageErrorf(...) (exit status 2); data and
//     I/O problems return ordinary errors (exit status 1) that name the file,
//     line and field;
//   - long work takes cmd.Context(), which SIGINT and SIGTERM cancel, and
//     reports through a.progress.

// app is what every command shares.
type app struct {
	log      *slog.Logger
	progress *pipeline.Progress
	stderr   io.Writer

	logLevel, logFormat string
	preset, configFile  string
	set                 []string // --set KEY=VALUE
}

var constructors []func(*app) *cobra.Command

func register(c func(*app) *cobra.Command) { constructors = append(constructors, c) }

func newRootCmd() *cobra.Command {
	a := &app{stderr: os.Stderr}
	root := &cobra.Command{
		Use:   "schedlab",
		Short: "A reproducible pipeline for GPU-cluster scheduling research",
		Long: `schedlab ingests GPU-cluster job traces and profiler samples into Parquet, fits the
job-interference model, trains learned schedulers (the multi-agent graph-RL scheduler
and the dual-agent DAS scheduler) in a trace-driven simulator beside every baseline
their papers compare against, and writes reproducible evaluation tables.

Same inputs, configuration and seed give byte-identical tables and Parquet files.

Start with:
  schedlab run --preset quick        the whole pipeline in seconds, into ./out
  schedlab plan --preset nightly     what a run would do, without running it
  schedlab list experiments          what there is to run (also schedulers, families, sources, presets)
  schedlab config show --origin      the effective configuration and where each key comes from

Configuration layers, lowest first: embedded defaults < preset (--preset) < --config FILE <
SCHEDLAB_* environment variables < --set KEY=VALUE < a command's flags. A flag applies only
when given; its help names the key it sets.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return a.setup()
		},
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErrorf("%v (see %s --help)", flagError(err), c.CommandPath())
	})
	pf := root.PersistentFlags()
	pf.StringVar(&a.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	pf.StringVar(&a.logFormat, "log-format", "text", "log format: text or json")
	pf.StringVar(&a.preset, "preset", "", "configuration preset: "+strings.Join(Presets, ", ")+" (default: SCHEDLAB_PRESET, else the config file's preset, else quick)")
	pf.StringVar(&a.configFile, "config", "", "YAML configuration file layered over the preset")

	pf.StringArrayVar(&a.set, "set", nil, "KEY=VALUE: set a configuration key, above the environment and below flags (repeatable; schedlab config show --origin lists the keys)")

	for _, c := range constructors {
		root.AddCommand(c(a))
	}
	root.AddCommand(newRunCmd(a), newPlanCmd(a), newConfigCmd(a), newVersionCmd())
	protectInputs(root)
	return root
}

func (a *app) setup() error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(a.logLevel)); err != nil {
		return usageErrorf("--log-level: %q is not one of debug, info, warn, error", a.logLevel)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch a.logFormat {
	case "text":
		a.log = slog.New(slog.NewTextHandler(a.stderr, opts))
	case "json":
		a.log = slog.New(slog.NewJSONHandler(a.stderr, opts))
	default:
		return usageErrorf("--log-format: %q is not text or json", a.logFormat)
	}
	slog.SetDefault(a.log)
	var term io.Writer
	if f, ok := a.stderr.(*os.File); ok && isTerminal(f) {
		term = f
	}
	a.progress = pipeline.NewProgress(term, a.log, 10*time.Second)
	return nil
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// usageError marks bad usage or configuration: exit status 2.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func usageErrorf(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// interruptedError is a command stopped by SIGINT or SIGTERM (not a
// failure of its work): exit status 128 + the signal's number, the shell's
// convention (130 for Ctrl-C).
type interruptedError struct {
	msg string
	sig syscall.Signal
}

func (e interruptedError) Error() string { return e.msg }

// interruption reports whether ctx, from signal.NotifyContext, was
// canceled by a signal, and which. The context's cause is the only record
// of the signal; its text is "<signal> signal received".
func interruption(ctx context.Context) (syscall.Signal, bool) {
	if ctx.Err() == nil {
		return 0, false
	}
	cause := context.Cause(ctx)
	for _, s := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		if cause != nil && cause.Error() == s.String()+" signal received" {
			return s, true
		}
	}
	return 0, false
}

func exitCode(err error) int {
	if s, ok := errors.AsType[exitStatus](err); ok {
		return s.code
	}
	var u usageError
	if errors.As(err, &u) {
		return 2
	}
	var in interruptedError
	if errors.As(err, &in) {
		return 128 + int(in.sig)
	}
	// cobra's own argument errors.
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "required flag", "accepts ", "requires at least", "invalid argument"} {
		if strings.HasPrefix(msg, p) {
			return 2
		}
	}
	return 1
}

// keyAnnotation marks a flag that is a view of a configuration key.
const keyAnnotation = "schedlab.config-key"

// keyFlag makes flag name of cmd a named view of a configuration key: given,
// it sets the key (above --set and every lower layer); not given, it sets
// nothing, whatever its default. Its help names the key.
func keyFlag(cmd *cobra.Command, name, key string) {
	f := cmd.Flags().Lookup(name)
	if f == nil || !configLeaves()[key] {
		panic(fmt.Sprintf("schedlab: keyFlag(%s, --%s, %s): no such flag or key", cmd.Name(), name, key))
	}
	if f.Annotations == nil {
		f.Annotations = map[string][]string{}
	}
	f.Annotations[keyAnnotation] = []string{key}
	f.Usage += " (config key " + key + ")"
}

// keyFlags makes each flag of cmd named in keys a view of its key
// (keyFlag).
func keyFlags(cmd *cobra.Command, keys map[string]string) {
	for flag, key := range keys {
		keyFlag(cmd, flag, key)
	}
}

// config resolves the configuration a command runs with: the layers every
// command shares (--preset, --config, SCHEDLAB_*, --set) and the flags of
// cmd that it was given which are views of keys (keyFlag). keys maps
// further given flags to keys whose name depends on another flag's value
// (eval's --schedulers names eval.<experiment>.schedulers).
func (a *app) config(cmd *cobra.Command, keys map[string]string) (*resolved, error) {
	src := configSource{preset: a.preset, file: a.configFile, set: a.set, flags: map[string]string{}, flagNames: map[string]string{}}
	var err error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		key := keys[f.Name]
		if k := f.Annotations[keyAnnotation]; len(k) == 1 {
			key = k[0]
		}
		if key == "" {
			return
		}
		if prev, dup := src.flagNames[key]; dup {
			err = usageErrorf("--%s and --%s both set %s", prev, f.Name, key)
		}
		src.flags[key], src.flagNames[key] = flagText(f), f.Name
	})
	if err != nil {
		return nil, err
	}
	return resolveConfig(src)
}

// flagText is a given flag's value as the configuration's text layers
// write it: a list comma-separated.
func flagText(f *pflag.Flag) string {
	if sv, ok := f.Value.(pflag.SliceValue); ok {
		return strings.Join(sv.GetSlice(), ",")
	}
	return f.Value.String()
}
