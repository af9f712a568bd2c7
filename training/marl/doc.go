// Package marl is the MARL-GNN scheduler of Zhao & Wu, "Large-scale ML
// Cluster Scheduling via Multi-agent Graph Reinforcement Learning" (IEEE
// TNSM 2021; DESIGN.md §5): one placement agent per pod, hierarchical
// edge-conditioned graph networks over the data-centre topology, trained
// with advantage actor-critic in the simulator.
//
// # What it owns
//
// The network (inner per-pod ECC graphs, the inter-scheduler graph, actor
// and critic heads), its trainer (Train: A2C per agent per interval, the
// update one interval behind the decisions with Config.Lag, several
// rollouts per update with Config.Rollouts, spread over an executor with
// TrainOptions.Spread), the checkpoint (Policy.Save, LoadPolicy) and the
// sim.Scheduler a policy becomes (Policy.Scheduler). The family registers
// itself with training.Register: marl-device, marl-server,
// marl-device-paper (the paper's learning rate and reward) and
// marl-single.
//
// # Data in and out
//
//	pol, curves, err := marl.Train(ctx, marl.DefaultConfig(), marl.TrainOptions{
//		Cluster: c, Train: train, Validation: test, Sim: simCfg, Seed: seed})
//	err = pol.Save(dir, nil)             // policy.ckpt (nn checkpoint) + policy.json (Sidecar)
//	pol, err = marl.LoadPolicy(dir)      // a mismatched architecture wraps nn.ErrArchMismatch
//	sched := pol.Scheduler(marl.SchedulerOptions{}) // greedy; Sample to draw
//
// Jobs come from datasets.GenerateMARL, split by datasets.SplitMARL (90 %
// train, 10 % held out per pod); a job goes to the agent of the pod its
// user field names (datasets.PodOf).
//
// # What it promises
//
//   - A policy's parameters do not depend on the cluster's size: one
//     trained at fat-tree k = 4 schedules k = 20.
//   - The same seed gives bit-identical checkpoints and curves at any
//     GOMAXPROCS, any number of borrowed workers and any executor: every
//     random stream is pipeline.Rand(seed, training.Stream, streamKey, ...),
//     each episode's named by its index; gradients are reduced in rollout
//     and agent order, never in completion order (TestGoldenTraining pins
//     the bytes). Config.Precision float32 (the actors' inner passes in
//     single precision) is another policy's bits, with the same promise.
//   - The scheduler observes the cluster's state and the jobs' requirement
//     lists (model type, workers, PS, demands), never a job's duration; a
//     duration enters only the training reward.
//   - Config.Validate and FamilyConfig.Validate name every bad key;
//     CheckRollouts is the one range check of the rollouts.
//
// # Extending it
//
// A variant is a Variant in family.Variants plus its VariantConfig; a
// new feature of the observation goes in graph.go and observe.go and
// changes the architecture hash, so old checkpoints are
// refused rather than misread. Interpretations of the paper, and every
// measurement behind the defaults (reward, learning rate, rollouts, the
// cost at paper scale), are in docs/measurements.md under "MARL-GNN".
package marl
