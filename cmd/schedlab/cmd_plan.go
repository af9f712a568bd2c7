package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/stages"
	"github.com/spf13/cobra"
)

func newPlanCmd(a *app) *cobra.Command {
	var verbose bool
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Show what schedlab run would do, without running anything",
		Long: `plan takes the flags of run and prints, for the same configuration and run directory,
each stage of the DAG in the order a run starts them: whether the run would skip it
(cached: its record matches its configuration and inputs, its outputs are intact) or
run it and why, the inputs it reads from outside the run (and which of them are
missing), and the wall and CPU time of its last run recorded in the run directory's
manifest (carried over the runs that found it cached). A stage's CPU time is the process's, shared among the stages running at once by the workers
each held: exact for a stage that ran alone, an estimate where stages overlapped.

It reads and hashes but writes nothing. A stage that needs an input a run cannot
find would fail: plan exits with status 1 when any input is missing.`,
		Example: `  schedlab plan --preset nightly
  schedlab plan --out out --only das-table1 -v`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := a.config(cmd, nil)
			if err != nil {
				return err
			}
			cfg := r.cfg
			dag, err := stages.Build(cfg)
			if missing, ok := errors.AsType[stages.MissingInputsError](err); ok {
				// Exit status 1, as for the inputs Plan finds missing.
				w := cmd.OutOrStdout()
				for _, m := range missing {
					fmt.Fprintf(w, "missing input: %v\n", m)
				}
				return fmt.Errorf("plan: %d inputs missing (listed above; data_dir is %s)", len(missing), cfg.ResolveDataDir())
			}
			if err != nil {
				return usageErrorf("%v", err)
			}
			runner := &pipeline.Runner{Dir: cfg.Out, Seed: cfg.Seed}
			planned, err := runner.Plan(dag)
			if err != nil {
				return err
			}
			// The times recorded in the directory are those of its last
			// run; a run of another preset says nothing of this one's.
			lastPreset := ""
			if m, err := pipeline.ReadManifest(cfg.Out); err == nil {
				if c, ok := m.Config.(map[string]any); ok {
					lastPreset, _ = c["preset"].(string)
				}
			}
			otherPreset := lastPreset != "" && lastPreset != cfg.Preset
			var wallS, cpuS float64
			var timed, untimed int
			w := cmd.OutOrStdout()
			hash, _ := cfg.Hash()
			fmt.Fprintf(w, "preset %s, seed %d, config %s, into %s: %d stages\n\n", cfg.Preset, cfg.Seed, hash[:12], cfg.Out, len(planned))
			fmt.Fprintf(w, "%-34s %-7s %17s  %s\n", "stage", "", "last wall / CPU", "why it runs / inputs")
			var missing, cached int
			for _, p := range planned {
				state, why := "runs", p.Why
				if p.Cached {
					state, why = "cached", ""
					cached++
				}
				last := "-"
				if p.LastStatus != "" && p.LastWallS > 0 && !otherPreset {
					last = fmt.Sprintf("%.1fs / %.1fs", p.LastWallS, p.LastCPUS)
				}
				if !p.Cached {
					if last != "-" {
						wallS, cpuS = wallS+p.LastWallS, cpuS+p.LastCPUS
						timed++
					} else {
						untimed++
					}
				}
				fmt.Fprintf(w, "%-34s %-7s %17s  %s\n", p.Name, state, last, why)
				for _, m := range p.Missing {
					fmt.Fprintf(w, "%-34s %-7s %17s    missing input: %s\n", "", "", "", m)
					missing++
				}
				if verbose {
					for _, in := range p.Inputs {
						fmt.Fprintf(w, "%-34s %-7s %17s    input: %s\n", "", "", "", in)
					}
				}
			}
			fmt.Fprintln(w)
			switch {
			case otherPreset:
				fmt.Fprintf(w, "The last run in %s was of preset %s: it gives no times for %s (a %s run writes them, best into a directory of its own: --out).\n", cfg.Out, lastPreset, cfg.Preset, cfg.Preset)
			case timed > 0:
				fmt.Fprintf(w, "Estimate from the last %s run in %s: the %d stages that would run took %.1fs wall, %.1fs CPU", cfg.Preset, cfg.Out, timed, wallS, cpuS)
				if untimed > 0 {
					fmt.Fprintf(w, ", and %d more have no recorded time", untimed)
				}
				fmt.Fprintln(w, " (stages overlap: the run's wall time is less than their sum).")
			}
			fmt.Fprintf(w, "%d of %d stages cached, %d would run", cached, len(planned), len(planned)-cached)
			if missing > 0 {
				fmt.Fprintf(w, "; %d inputs missing\n", missing)
				return fmt.Errorf("plan: %d inputs missing (%s)", missing, strings.Join(missingInputs(planned), ", "))
			}
			fmt.Fprintln(w)
			return nil
		},
	}
	runFlags(cmd)
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "list every stage's inputs")
	return cmd
}

func missingInputs(planned []pipeline.PlannedStage) []string {
	var out []string
	for _, p := range planned {
		out = append(out, p.Missing...)
	}
	return out
}
