package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/internal/didyoumean"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/stages"
	"github.com/schedlab/schedlab/training"
	"github.com/spf13/cobra"
)

func init() { register(newListCmd) }

// listings are what schedlab list shows, by the argument that names it.
var listings = map[string]func(w io.Writer) error{
	"experiments": listExperiments,
	"schedulers":  listSchedulers,
	"families":    listFamilies,
	"sources":     listSources,
	"presets":     listPresets,
	"clusters":    listClusters,
}

func newListCmd(a *app) *cobra.Command {
	kinds := sortedKeys(listings)
	return &cobra.Command{
		Use:   "list " + strings.Join(kinds, "|"),
		Short: "List what there is: experiments, schedulers, learned families, trace sources, presets, clusters",
		Long: `list prints one line per registered thing, with its doc:

  experiments  the ids of eval.experiments, schedlab eval --experiment and run --only,
               how each is made (run: a matrix of simulations; staged: its own stage
               of schedlab run; derived: from another experiment's outputs), its
               configuration section (eval.<id>) and the paper's figure it reproduces
  schedulers   every scheduler name of eval.<experiment>.schedulers and --schedulers
  families     the learned families of schedlab train --family, their variants and
               their configuration section (train.<section>)
  sources      the trace sources of datasets.source, datasets.ingest and schedlab ingest
  presets      the embedded presets of --preset
  clusters     the named clusters of schedlab replay --cluster (and sim.Preset)`,
		Example:   "  schedlab list experiments",
		Args:      cobra.ExactArgs(1),
		ValidArgs: kinds,
		RunE: func(cmd *cobra.Command, args []string) error {
			f, ok := listings[args[0]]
			if !ok {
				return usageErrorf("list: %q is not one of %s%s", args[0], strings.Join(kinds, ", "), didyoumean.Suggest(args[0], kinds))
			}
			return f(cmd.OutOrStdout())
		},
	}
}

// names turns registered names into strings, for didyoumean.
func names[S ~string](ns []S) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = string(n)
	}
	return out
}

func listExperiments(w io.Writer) error {
	for _, e := range evaluation.Experiments() {
		how := "run"
		switch {
		case e.Staged():
			how = "staged"
		case e.Derived():
			how = "derived from " + e.Derive.From
		}
		summary, _, _ := strings.Cut(e.Summary, "\n")
		if summary == "" {
			summary = e.Section.Title
		}
		key := e.ConfigKey()
		if key == "" {
			key = "-"
		}
		fmt.Fprintf(w, "%-28s %-28s %-22s %s. %s\n", e.ID, how, key, e.Reproduces, strings.TrimPrefix(summary, e.Reproduces+": "))
	}
	return nil
}

func listSchedulers(w io.Writer) error {
	for _, n := range schedulers.Names() {
		info, ok := schedulers.Lookup(string(n))
		if !ok {
			return fmt.Errorf("schedulers.Names lists %s, which Lookup does not find", n)
		}
		kind := "heuristic"
		if info.Learned() {
			kind = "learned (" + info.Family + ")"
		}
		fmt.Fprintf(w, "%-18s %-18s %s\n", n, kind, info.Doc)
	}
	return nil
}

func listFamilies(w io.Writer) error {
	for _, n := range training.Families() {
		f, ok := training.Lookup(n)
		if !ok {
			return fmt.Errorf("training.Families lists %s, which Lookup does not find", n)
		}
		var vs []string
		for _, v := range f.Variants() {
			vs = append(vs, string(v.Info.Name))
		}
		fmt.Fprintf(w, "%-9s train.%-6s %s\n", n, f.Section(), strings.Join(vs, ", "))
	}
	return nil
}

func listSources(w io.Writer) error {
	fmt.Fprintf(w, "%-15s %s\n", stages.SyntheticPAI, "the seeded PAI-like generator (datasets.synthetic.jobs jobs; needs no data files); datasets.source only")
	for _, n := range datasets.Sources() {
		r, err := datasets.Lookup(n)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%-15s %s\n", n, r.Describe())
	}
	return nil
}

func listClusters(w io.Writer) error {
	for _, n := range sim.PresetNames() {
		spec, err := sim.Preset(n)
		if err != nil {
			return err
		}
		c, err := spec.Build()
		if err != nil {
			return fmt.Errorf("cluster %s: %w", n, err)
		}
		fmt.Fprintf(w, "%-8s %-28s %3d servers, %4g GPUs\n", n, c.Name, len(c.Servers), c.TotalGPU())
	}
	return nil
}

func listPresets(w io.Writer) error {
	for _, p := range Presets {
		b, err := presetFS.ReadFile("presets/" + p + ".yaml")
		if err != nil {
			return err
		}
		first, _, _ := strings.Cut(string(b), "\n")
		fmt.Fprintf(w, "%-8s %s\n", p, strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(first, "#"), " "+p+":")))
	}
	return nil
}
