// Package daspaper is the DAS paper's experimental harness (Xing et al.,
// "A Dual-Agent Scheduler for Distributed Deep Learning Jobs on Public
// Cloud via Reinforcement Learning", KDD 2023): what DAS (training/das) and
// the RL baselines trained beside it (training/dl2, training/rifling)
// share, so that the three import it as peers rather than the baselines
// importing DAS.
//
//   - Split, PrepareJobs, PrepareTrace, NewSplit: a trace cut for training
//     on one cluster (DAS §5.1.2), each part with submissions from 0, with
//     the training means that scale the reward (RewardNorm).
//   - Segment: one training episode, a random window of consecutive jobs.
//   - Eq3: the reward of the paper's Eq. 3, the objective of all three.
//   - Observe, Obs: the paper's observation of a decision point (pending
//     jobs and machines, normalised), DAS's input and the baselines'
//     features.
//   - Categorical, PolicyObs: the actor-critic the RL baselines train
//     with PPO (App. D); Drive, an episode whose Eq. 3 rewards go to the
//     last action before them; PPOLoop, their training loop (per episode
//     a sampled run, GAE, one PPO update, a validation, curve rows); and
//     Evaluation, what a deterministic policy achieved.
//   - PaperConfig, Baseline, BaselineOptions: the run configuration's
//     train.das section and the training.Family of a baseline (one
//     variant, one model file, trained on the trace).
//
// Data enter as a datasets.Split (or a whole trace and a cluster) and leave
// as a Split; Baseline's Train writes a model and its curves into the model
// directory training.TrainSpec names.
package daspaper
