// Package rifling is RIFLING (Chen et al., "Deep Learning Workloads
// Scheduling with Reinforcement Learning on GPU Clusters", the poster in
// ../shared/papers) as the DAS paper uses it as a baseline: jobs are taken
// first come first served; for each, tabular Q-learning chooses a
// placement — or to wait until the next decision point, at most once per
// job, so that no job starves. The state is the cluster (k-means group) of
// the job's features concatenated with the cluster's free share, as the
// DAS paper complements RIFLING's job state with the cluster state; k =
// √(N/2) groups for N training jobs (DAS Table 2).
//
// # Actions and reward
//
// A job's instances go by one of three placement rules — pack (first
// fit), spread (the server with the most free GPUs for each instance),
// best fit (the server with the fewest free GPUs that fits) — or the job
// waits. A placement's reward is the job's normalised processing rate
// right after it starts (the simulator's rate relative to standalone,
// 1 = no slowdown), a terminal transition; waiting earns 0 and bootstraps
// from the job's state at its next decision point (RIFLING's reward
// design). Exploration is UCB or ε-greedy over the feasible actions
// (training/rl's QTable and Explorers).
//
// # Data in and out
//
// Train fits the k-means groups on the states a first-fit pass over the
// training jobs meets, then runs Q-learning episodes on random segments,
// validating the greedy policy after each. A policy is saved as one JSON
// file (configuration, its hash, centroids, Q-table) and runs as a
// sim.Scheduler (Open).
package rifling
