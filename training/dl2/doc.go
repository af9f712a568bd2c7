// Package dl2 is DL² (Peng et al., "DL2: A Deep Learning-driven Scheduler
// for Deep Learning Clusters", TPDS 2021) as the DAS paper adapts it for
// its comparison: an ordering policy, trained first by supervised learning
// from a heuristic's decisions and then by reinforcement learning (PPO,
// the DAS paper's Appendix D: hidden 64, entropy 0.03, clip 0.2, γ 0.98,
// Adam), with the DAS paper's features and reward (training/daspaper:
// Observe, Eq3).
//
// # Model
//
// At a decision point the policy repeatedly picks one of the N oldest
// pending jobs that still fit — a categorical choice over job slots, the
// others masked — and the job goes to the servers by first fit, until no
// slot fits. DL²'s network reads a flat vector: the N job rows (instances,
// GPU, CPU, memory per instance, wait, and whether the slot may be
// chosen) and the free share of the cluster's GPUs, cores and memory
// after the picks so far. A two-layer MLP (64 units) gives the slot
// logits, another the state value. The logits' last layer starts at zero,
// so the untrained deterministic policy (arg max, ties to the oldest) is
// FIFO first-fit.
//
// # Training
//
// Warm-up: the heuristic (Config.Heuristic, a schedulers name, by default
// drf-firstfit) runs over WarmupEpisodes training segments; each job it
// starts becomes a step whose target is that job's slot; WarmupEpochs of
// cross-entropy minimisation follow, with the critic regressed on the
// heuristic's discounted returns. RL: episodes of SegmentJobs consecutive
// training jobs with sampled picks; the Eq. 3 reward of a decision
// interval goes to the last pick made before it; one PPO update per
// episode. Validation runs the deterministic policy on the validation
// split. The same inputs and seed give a bit-identical checkpoint.
package dl2
