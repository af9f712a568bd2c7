// Package deepsys holds the two learned baselines of the MARL paper's
// evaluation (§VI-A) that are not MARL itself:
//
//   - DeepSys (Li et al., Internetware 2020): a network predicting a job's
//     speed from its placement, trained on placements logged from the
//     heuristic schedulers (Tetris, load balancing, least interference
//     first) run in the simulator; it places each instance of an arriving
//     job on the server that maximises the predicted speed.
//   - Atte (the attentive placement of SCARL, Cheong et al., IEEE Access
//     2019): for each worker or PS, an attention score per server (a query
//     from the task, a key per server) and the highest-scoring server;
//     the scores are trained by policy gradient in the simulator. SCARL
//     places single-task jobs; for the MARL paper's multi-task jobs a
//     server's key also sees how many of the job's workers and PS are
//     already on it (our choice), which lets Atte learn to keep a job's
//     tasks together — in our simulator, where cross-server gradient
//     traffic dominates slowdowns, that alone brings it level with MARL.
//
// Both are sim.Schedulers built from a trained model; Train* functions
// train them and Save/Load* store them as nn checkpoints with a JSON
// sidecar, like the marl package's policies.
package deepsys
