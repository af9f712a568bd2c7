// Package das is the Dual-Agent Scheduler of Xing et al., "A Dual-Agent
// Scheduler for Distributed Deep Learning Jobs on Public Cloud via
// Reinforcement Learning" (KDD 2023), as DESIGN.md §5 interprets it: an
// ordering agent that gives every pending job a priority and a placement
// agent that gives every (job, machine) pair an affinity, trained jointly
// as the paper's Algorithm 1 (or, as the das-mappo variant, with MAPPO of
// training/rl) in the simulator, and the ablations DA, DA+MC and DA+RWGP
// as switches of the same code (Config.Variant). The model's equations,
// the decoding and the training loop are in docs/packages.md
// (training/das).
//
// # What it owns
//
//   - The model (observation, ordering and placement agents, the RWGP
//     kernel, the critic) and Train, one training per learning rate of the
//     grid, keeping the one with the lowest validation mean JCT; its
//     learning curves are training.Curve rows.
//   - The model's files: a checkpoint (nn's format) with a JSON sidecar
//     holding its Config and the Config's hash (Save, Load), and Open,
//     which turns one into a sim.Scheduler running the deterministic
//     policy.
//
// # What it promises
//
//   - It trains only on the Train and Val parts of a datasets.SplitTrace
//     cut (daspaper.PrepareJobs): never on an evaluated job.
//   - The untrained deterministic policy is FIFO first-fit (the heads
//     start at zero); evaluation's decisions are those of the full
//     forward pass, to the bit.
//   - Every random stream comes from pipeline.Rand(seed, Stage, ...): the
//     same inputs and seed give bit-identical checkpoints.
//
// # Extending it
//
// A variant is a Config switch registered as a training.Variant of the
// family (family.go); a new trainer is a Config.Trainer value beside
// algorithm1.go and the MAPPO path, sharing the observation and decoding.
package das
