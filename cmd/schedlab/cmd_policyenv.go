package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers/external"
	"github.com/schedlab/schedlab/sim"
	"github.com/spf13/cobra"
)

// policyEnvStream and policyEnvWorkload name the stream of the
// generated jobs (--synthetic).
const (
	policyEnvStream   pipeline.Stream = "policy-env"
	policyEnvWorkload pipeline.Key    = "workload"
)

func init() { register(newPolicyEnvCmd) }

// newPolicyEnvCmd serves one simulated episode to the process that
// started schedlab, over schedlab's own standard input and output: the
// external-policy protocol with the roles of the processes swapped, for
// the Python environment (python/schedlab/env.py).
func newPolicyEnvCmd(a *app) *cobra.Command {
	var (
		cluster, trace, speed string
		synthetic, maxJobs    int
		seed                  uint64
		oracle                bool
	)
	cmd := &cobra.Command{
		Use:   "policy-env",
		Short: "Simulate one episode for a policy that started schedlab, on stdin/stdout (docs/policy-protocol.md)",
		Long: `policy-env simulates one episode and speaks schedlab's side of the external-policy
protocol (docs/policy-protocol.md) on its standard output and input: the program that
started it (python/schedlab/env.py's SchedlabEnv) is the policy. The jobs are a canonical
jobs table (--trace) or PAI-like jobs drawn from --seed (--synthetic N).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			spec, err := sim.Preset(cluster)
			if err != nil {
				return usageErrorf("--cluster: %v", err)
			}
			c, err := spec.Build()
			if err != nil {
				return err
			}
			var jobs []datasets.Job
			switch {
			case trace != "" && synthetic > 0:
				return usageErrorf("give --trace or --synthetic, not both")
			case trace != "":
				if jobs, err = datasets.ReadParquet[datasets.Job](trace); err != nil {
					return fmt.Errorf("--trace: %w", err)
				}
			case synthetic > 0:
				cfg := datasets.PAILikeConfig{Jobs: synthetic}
				if err := cfg.Validate(); err != nil {
					return usageErrorf("--synthetic: %v", err)
				}
				if jobs, err = datasets.GeneratePAILikeJobs(ctx, cfg, pipeline.Rand(seed, policyEnvStream, policyEnvWorkload)); err != nil {
					return err
				}
			default:
				return usageErrorf("give --trace FILE (a canonical jobs table) or --synthetic N")
			}
			if maxJobs > 0 && len(jobs) > maxJobs {
				jobs = jobs[:maxJobs]
			}
			cfg := sim.DefaultConfig()
			cfg.Speed = speed
			if err := cfg.Validate(); err != nil {
				return usageErrorf("--speed: %v", err)
			}
			s, err := sim.New(c, jobs, cfg, nil)
			if err != nil {
				return err
			}
			p, err := external.NewConn(ctx, external.Config{Name: "env", Seed: seed, Oracle: oracle}, cmd.InOrStdin(), cmd.OutOrStdout())
			if err != nil {
				return err
			}
			for {
				st, err := s.Next(ctx)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					return err
				}
				d, err := sim.DecisionOf(ctx, p, st)
				if err != nil {
					return err
				}
				if err := s.Do(d); err != nil {
					return err
				}
			}
			return p.End(ctx, s.Result())
		},
	}
	f := cmd.Flags()
	f.StringVar(&cluster, "cluster", "small", "cluster preset: small, medium, large (DAS), fattree, vl2, bcube")
	f.StringVar(&trace, "trace", "", "canonical jobs table (jobs.parquet of schedlab ingest or of a run)")
	f.IntVar(&synthetic, "synthetic", 0, "draw N PAI-like jobs from --seed instead of reading a trace")
	f.IntVar(&maxJobs, "max-jobs", 0, "keep the first N jobs (0: all)")
	f.Uint64Var(&seed, "seed", 1, "the episode's seed: the synthetic jobs and the hello's seed")
	f.StringVar(&speed, "speed", sim.SpeedModel, "model (interference and communication) or standalone (a pure replay)")
	f.BoolVar(&oracle, "oracle", false, "send true durations with arrivals (an oracle policy)")
	return cmd
}
