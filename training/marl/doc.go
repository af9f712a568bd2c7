// Package marl is the MARL-GNN scheduler of Zhao & Wu, "Large-scale ML
// Cluster Scheduling via Multi-agent Graph Reinforcement Learning" (IEEE
// TNSM 2021; DESIGN.md §5): one placement agent per pod, hierarchical
// edge-conditioned graph networks over the data-centre topology, trained
// with advantage actor-critic in the simulator.
//
// # Data in and out
//
// Training takes a *sim.Cluster and jobs ([]datasets.Job, e.g. from
// datasets.GenerateMARL, split by datasets.SplitMARL into 90 % training and
// 10 % held-out per scheduler) and returns a *Policy and one training.Curve per
// episode:
//
//	pol, curves, err := marl.Train(ctx, marl.DefaultConfig(), marl.TrainOptions{
//		Cluster: c, Train: train, Validation: test, Sim: simCfg, Seed: seed})
//	err = pol.Save(dir, nil)             // policy.ckpt (nn checkpoint) + policy.json (Sidecar)
//	pol, err = marl.LoadPolicy(dir)      // a mismatched architecture wraps nn.ErrArchMismatch
//	sched := pol.Scheduler(marl.SchedulerOptions{}) // a sim.Scheduler (greedy; Sample to draw)
//	res, err := sim.Run(ctx, c, jobs, sched, simCfg, nil)
//
// A policy's parameters do not depend on the cluster's size: a policy
// trained on a fat-tree with k = 4 schedules one with k = 20 (the graphs
// are built for whatever cluster the scheduler is given). Jobs go to the
// scheduler of the pod named in their user field ("pod-NN", as the
// workload generator writes it; datasets.PodOf). Everything is deterministic:
// the same seed gives bit-identical checkpoints at any GOMAXPROCS.
//
// # Model (MARL paper §IV)
//
// Inner graph per pod: GPU-group nodes (device level; servers at server
// level) first, then one CPU node per socket, then the switches the pod
// owns. Edges: GPU group–CPU (PCIe), CPU–CPU (QPI), every CPU of a server
// to its switches (the NIC serves both sockets), switch–switch; each edge
// carries (log-scaled bandwidth, load, tier). Every link is two directed
// edges, and a network edge's load is the flows crossing its link its way,
// as the simulator counts and shares them (sim.State.LinkFlows: links are
// full duplex), plus the flows of the jobs this decision has already placed
// (sim.Cluster.FlowLinks: the simulator's own routing). A switch belongs
// to a pod when every lower-tier neighbour does; the others (fat-tree
// cores, VL2's dual-homed aggregation and intermediate switches, BCube's
// upper levels) are nodes of the inter-scheduler graph, whose
// scheduler–switch edges aggregate the pod's links to the switch (summed
// capacity; flows summed per direction).
// Candidate features: free GPU, cores, memory; workers and PS of each of
// the N concurrent jobs (the job being placed first, then the most
// recently started); and — our addition — workers and PS of the job being
// placed on the candidate's whole server (see nodeWidth). CPU and switch
// nodes start at zero. Four ECC layers (nn.ECC) embed the inner graph.
//
// The observation o_v = (model one-hots and demands of the N jobs, the
// GPU-group embeddings, the task) goes through an MLP encoder to z⁰_v; we
// pool the GPU-group embeddings by their mean rather than flatten them, so
// that the encoder's width does not depend on the pod's size. Two ECC
// layers over the inter-scheduler graph give z¹, z²; the state is
// s_v = [z⁰_v, z¹_v, z²_v] (DenseNet-style). The actor scores every action
// with one hidden layer of 128 units: a GPU group m from [s_v, h_m, h⁰_m],
// forwarding to scheduler u from [s_v, s_u]; the policy is the softmax of
// the scores over the feasible actions (a group whose server has the
// task's resources and whose socket has its GPUs; a scheduler not yet
// visited by the task with room for it). The critic is V(s_v), one hidden
// layer of 128. All agents share one network (our pods are alike; sharing
// gives every parameter all agents' samples). Single-agent: one partition
// of the whole cluster, state z⁰, no forwarding.
//
// # Training (MARL paper §IV-C)
//
// One inference per worker or PS, agents in order, jobs in submission
// order. A forwarded task is decided by the receiving agent (its decision,
// in its own rollout). A decision's reward is its job's speed over the
// following 30-minute interval: with Reward = "progress" the paper's
// epochs trained / max epochs, with Reward = "speed" (the default) that
// share times the job's standalone duration over the interval, i.e. the
// job's mean speed relative to standalone. The paper's quantity varies
// with the job's length, which the observation does not show. Measured on
// fattree(4), 0.2 jobs per pod per interval, 10 episodes (mean JCT of the
// sampled training episodes, first → last; held-out greedy untrained →
// trained): device level, progress 6.43 → 6.81 h (5.61 → 4.30 h), speed
// 6.37 → 1.97 h (5.61 → 1.77 h); server level, progress 5.95 → 2.24 h
// (3.88 → 1.61 h), speed 6.00 → 2.38 h (3.88 → 1.96 h). The speed reward
// is the default because the device level learns with it in that budget.
// Forwards earn 0: with the job's reward on every hop, agents learnt to
// pass tasks around to collect it repeatedly (the return tripled while
// JCT rose).
//
// Each agent's decisions of an interval are one rollout, bootstrapped at
// the next decision point from V of the agent's observation there;
// rl.A2CUpdate (TD(0) advantage, γ = 0.9) back-propagates each rollout and
// Adam takes one step on the summed gradients per interval. The device-
// and server-level updates run one interval behind the decisions
// (Config.Lag): at a decision point the agents decide with the
// parameters there are while the update learns the interval before, with
// the values that decided it (its gradient is theirs), and its step then
// moves the parameters for the next decision point, as asynchronous
// actor-critic applies a gradient one step stale. The decisions, on one
// core, and the update share the machine's cores instead of waiting for
// each other. The single agent (Lag 0) learns an interval before anyone
// decides again: at its learning rate of 1e-2 the lag cost it the
// learning (TestLearning's setting, ten training seeds: held-out mean
// JCT 1.90 h synchronous, 2.90 h lagged, four seeds not learning),
// while the device and server levels learned as well or better (2.11 →
// 2.02 h and 2.09 → 1.87 h there). In the update
// the other agents' z⁰ are the values the behaviour network computed
// (constants): gradients flow through the acting agent's own inner graph,
// encoder, the inter-scheduler layers and the heads. Within an interval a
// pod's z⁰ (as others see it) is cached and recomputed only after a task
// is placed in that pod.
//
// Rollouts (Config.Rollouts, train.marl.rollouts): a training may collect
// several episodes side by side, in lock step, per update — synchronous
// A2C over parallel environments. At each decision point every rollout of
// the iteration reaches it, one update learns the segments of all of them
// (rollout by rollout, agent by agent), Adam takes one step on the mean
// over the rollouts of their summed gradients, and every rollout decides
// with the new parameters at the next decision point (with Lag 0, at
// this one). The rollouts' decisions and
// simulations, and the update's segments, run on as many goroutines as
// the run lends idle workers (TrainOptions.Borrow); the reduction is in
// rollout order, never in completion order, and each episode's stream is
// named by its index, so the bytes depend on the number of rollouts,
// never on the workers. One rollout is the training described above.
// Each rollout's gradient is summed on its own (its agents in order) and
// the rollouts' are added in rollout order, so that with
// TrainOptions.Spread (spread.go; a run with an executor sets it) each
// rollout's step from one decision point to the next (decide, simulate,
// learn its segments) can be a task of the executor (RunStep), on any
// worker, and the driver that adds the gradients and takes the Adam step
// writes the same bytes. The worker that ran a rollout's step keeps the
// rollout for its next step; one that does not hold it replays the
// episode with the parameters of each earlier step (every step's
// parameters are a blob the step reads).
// Each rollout holds its own simulation, caches and an interval's
// recorded decisions: at k = 20 (BenchmarkTrainRollouts, two intervals)
// peak RSS was 0.43 GB with one rollout and 0.76 GB with two (0.49 and
// 0.86 GB while each learner kept an incremental pass per partition
// rather than one it moves from partition to partition). Learning
// at the same number of episodes (TestRolloutsLearnAsWell, fattree(4),
// five seeds, 24 episodes): final held-out mean JCT 1.66 h (sd 0.06) with
// one rollout and with two; four rollouts, a quarter of the updates,
// ended higher over 16 episodes (1.84 against 1.65 h, three seeds).
//
// Speed (TestGoldenTraining pins checkpoints, curves and placements by
// sha256): a decision's pass reuses the previous pass of the same pod and
// recomputes only the rows its changes reach (nn.ECCStack for the inner
// and inter-scheduler ECC stacks, nn.LinearRows for the group scorer's
// candidate half), to the bits of a full pass. The update takes each
// step's log-probability, entropy and value from the pass that chose it.
// Its backward pass runs the inner ECC stack once per chunk of up to 32
// steps of a segment (nn.ECCSegment): one version of each row per run of
// steps over which the row's inputs hold, computed with the bits of the
// step's own pass, the steps' gradients summed per version before they
// go down a layer. A segment's consecutive steps differ in few rows, so
// the stack's backward work is that of the rows that changed, not of the
// pod's whole graph at every step (at k = 20, 4 intervals: about a fifth
// of the rows). The group scorer's candidate half, [h_m, h⁰_m]·W, is the
// segment's head (nn.ECCSegment.SetHead): a product per version of a
// candidate's row, its gradient summed per version the same way. The
// rest of the network back-propagates one step at a time, in cache, from
// that step's inner output and candidate products, summing the parameter
// gradients' rows in the order of one batched pass (nn.Tape.DeferGrad),
// with the inter-scheduler stack from an incremental cache recorded on
// its tape (nn.ECCStack.RecordLayers). The segment adds the gradients in
// another order than a pass per step would: the same sums to rounding,
// not to the bit (the goldens changed with it; issue 33 lifted
// bit-identity with earlier checkpoints).
//
// Cost at paper scale (fat-tree k = 20, 15 jobs per pod per interval,
// BenchmarkTrainEpisode, which reports each figure below): the 100
// intervals of arrivals fill the cluster by about the 13th, and the
// episode runs on until the queue drains, 218 decision points in all;
// its 149,950 tasks take 257,957 decisions (1.7 per task: forwards, which
// reach 40 % of the decisions once pods are full, and tries of jobs that
// then did not fit), nearly all of them learned. Each decision costs one
// inference and, in the update, its share of a backward pass: about 15
// MFLOP of matrix products in all (3.9 TFLOP per episode, nn.GemmFlops;
// 4.5 TFLOP before the learner's last inter layer was restricted to the
// scheduler rows and EdgeConv's backward to the rows that read a
// gradient, 6.7 TFLOP while the update back-propagated the inner
// graph's 411 nodes × 4 layers of width 16 at every step, before
// nn.ECCSegment). Most of what remains is per step: the inter-scheduler
// stack (20 pods and 100 core switches, 4,000 edges, width 32), whose
// every row a decision changes (its own z⁰ reaches every core, and they
// every pod), recorded and back-propagated, and the scorers' hidden
// layers over the candidates. The group scorer scores the candidates the
// mask lets through only (nn.Tape.ReLUScoreRows): once pods are full
// most are not (a third of the candidate rows over a 30-interval
// episode), and it reads the inner segment's head products where they
// are (nn.ECCSegment.HeadVersions). The message loops keep a node's row
// in registers across its edges (nn's aggregate and spread kernels).
// Together with these, the episode took 6 min 59.6 s and 591 s of CPU
// against 9 min 29.3 s and 804 s at d49014f, back to back on two quiet
// cores (0.74×), every bit the same. A scorer's hidden layer and output are one
// operator (nn.ReLUScore: the composed operators' bits without their
// three candidates × 128 intermediates, its one-column product run as a
// row so that the candidates' chains share the vector kernel's lanes):
// at k = 20, 6 intervals, 0.92× the episode's wall time for the fusion
// and 0.93× again for the layout, side by side. nn runs the products as
// chains of fused multiply-adds in AVX2 kernels, 17–24 GFLOP/s on
// BenchmarkGemmSerial's shapes (one core of a loaded AMD EPYC; gonum's Dgemm about 1–2 there);
// the per-edge message loops, element-wise operators and buffer copies
// take as much again. The update runs on both cores; decide on one: its
// decisions are sequential, and embedding the other pods on a second
// goroutine while the acting pod's pass runs made the episode slower
// (1.07–1.11× its wall time), so it does not; nor does it share a
// pass's rows between two goroutines: the inter-scheduler pass of a
// decision (about 0.35 ms, in phases of 0.05–0.15 ms) ran no faster so
// (a row-split ECCStack, measured on 2026-11-28 and not kept: 345
// against 350 µs a pass at k = 20), because waking the other core costs tens of microseconds on this
// host (two 0.1 ms halves of a loop ran 1.17× faster than one after
// the other, two 5 ms halves 1.95×). A decision reads the inter stack's
// scheduler rows only, so its last layer computes no switch row
// (nn.ECCStack.Only); the learner records that layer at those rows too.
// Over a whole k = 20 episode (CPU profile at 7db2f94) decide took 207
// of 613 s of CPU, on one core: about half of the wall time; 49 s of it
// embedding the pods placed in since their last z⁰ (actor.z), about
// 0.3 ms each. The update took 320 s, on both. Side by side on a loaded
// host (12 intervals), the episode took 0.79× the CPU and 0.64× the wall
// time of the update that back-propagated every step's whole graph.
// With the update one interval behind the decisions (Config.Lag), a
// decision point's decisions and the update of the interval before run
// side by side (trainer.phase: the goroutine done with its rollout's
// decisions learns segments too), and each learned segment's
// observations go at once: the 100-interval episode took 1 min 53 s of
// wall time and 215 s of CPU against 2 min 33 s and 216 s synchronously
// (0975778), back to back on 2026-11-28's host, an AMD EPYC with AVX-512
// on which the figures' above run about 2.7× faster (24db19f, the
// revision issue 33 set out from: 5 min 14 s there). So 0.74× the wall
// time for the same CPU, both cores busy 95 % of it; peak RSS 0.78 GB
// against 0.88 GB. What remains is CPU, the two cores being busy.
//
// The single agent costs more per decision than the per-pod agents
// because its backward pass covers the whole cluster's graph: the forward
// passes are incremental for both (a placement changes a few rows), but
// every decision's loss reads every candidate's score and the pooled
// embedding, so the gradient reaches every node. On fat-tree k = 8 that
// is 592 nodes (256 GPU groups, 256 CPUs, 80 switches) against a pod's
// 72, for about as many decisions per episode (≈ 3,400 on the nightly's
// marl-vs-single workload); one training episode took 3.5× the CPU of
// the device level's (15.2 against 4.35 s, loaded machine), nothing in
// it growing faster than the decisions and the graph.
//
// Learning rate: the paper's Adam 1e-5 (PaperLR) barely moves the policy
// in our budgets. Measured on fattree(4), 0.2 jobs per pod per interval,
// 8 episodes, device level (TestLRSweep; mean JCT of the
// sampled training episode, first → last; held-out greedy 5.61 h
// untrained): 1e-5: 8.50 → 7.62 h, held-out 4.45 h; 1e-4: 8.32 → 6.22 h,
// 1.98 h; 1e-3: 6.55 → 2.78 h, 2.11 h; 3e-3: 6.37 → 1.79 h, 2.08 h. The
// default is 3e-3 with the global gradient norm clipped at 1; LR is config.
//
// So that the tuned choices are not the only ones reported, the family
// registers a fourth scheduler, marl-device-paper (PaperConfig): the
// device-level policy with the paper's learning rate and progress reward
// and otherwise the tuned configuration; the nightly and paper presets
// evaluate it beside marl-device in marl-arrivals.
package marl
