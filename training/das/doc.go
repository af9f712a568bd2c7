// Package das is the Dual-Agent Scheduler of Xing et al., "A Dual-Agent
// Scheduler for Distributed Deep Learning Jobs on Public Cloud via
// Reinforcement Learning" (KDD 2023), as DESIGN.md §5 interprets it: an
// ordering agent that gives every pending job a priority and a placement
// agent that gives every (job, machine) pair an affinity, trained jointly
// as the paper's Algorithm 1 (or, as the das-mappo variant, with MAPPO of
// training/rl) in the simulator (sim), and the ablations DA,
// DA+MC and DA+RWGP as switches of the same code (Config.Variant).
//
// # Data in and out
//
// Jobs enter as the Train and Val parts of a datasets.SplitTrace cut
// (sorted by submission, pruned, the first Config.MaxJobs, the evaluated
// jobs held out); daspaper.PrepareJobs turns them into a training
// daspaper.Split (submissions from 0, the reward's scale), and PrepareTrace
// does both for a whole trace on one cluster with an 8:2
// training/validation cut. The DAS paper's harness (the split, the
// episodes' segments, Eq. 3, the observation and the baselines' trainer)
// is package training/daspaper, which the baselines import beside this
// one. Train runs one training (Config.Trainer) per
// learning rate of the grid and keeps the one whose final policy has the
// lowest validation mean JCT; its learning curves are training.Curve
// rows. A model leaves as a checkpoint (nn's format) with a JSON sidecar
// holding its Config and the Config's hash (Save, Load); Open turns a
// checkpoint into a sim.Scheduler that runs the deterministic policy:
//
//	sp, _ := das.PrepareTrace(cluster, jobs, sim.DefaultConfig(), cfg)
//	res, _ := das.Train(ctx, cfg, sp, das.TrainOptions{Cluster: cluster, Sim: sim.DefaultConfig(), Seed: seed})
//	_ = das.Save("das.ckpt", res.Best().Model, das.Sidecar{Cluster: "small", LR: res.Best().LR, Norm: sp.Norm})
//	sched, _ := das.Open("das.ckpt")
//	result, _ := sim.Run(ctx, cluster, testJobs, sched, sim.DefaultConfig(), nil)
//
// # Model
//
// At a decision point (sim's event trigger) the observation is O^j, N
// pending jobs × (instances, GPU, CPU and memory per instance, wait), and
// O^c, M machines × (free GPU, CPU, memory, NIC share left to a new flow,
// running instances per GPU), normalised (obs.go). More than N pending
// jobs are sampled in training and the N longest-waiting taken in
// evaluation; fewer are padded and masked.
//
// Ordering: S^j = relu(O^j W1+b1), S^c = relu(O^c W2+b2), s̃ = mean(S^c),
// δ = σ(W3[S^j ⊕ s̃]+b3), S̃ = δ⊙s̃ + (1−δ)⊙S^j (gated variants; else
// S̃ = S^j), Z = S̃ + PE(submission rank), Ŝ = LayerNorm(Z + MHA_h(Z)) (the
// standard encoder layer), μ^j = tanh(Ŝ W4+b4), σ^j = 0.01 + 0.99·sigmoid(Ŝ W5+b5).
//
// Placement: job-aware machine features x_ik = Ŝ_i ⊙ S^c_k. The MLP
// variants score x_ik with a two-layer MLP, with a per-job σ. The RWGP
// variants build per job the graph P^(i) = Matern52(x_i·, x_i·; ρ) and its
// random-walk feature φ (rwkernel.go: k_RW(G1,G2) = φ(G1)·φ(G2), exact up
// to the truncation at L, no M²×M² matrix), and a GP over the last τ
// placements (their x and the affinity row acted on, held fixed as GP
// data): μ_i = m(x_i) + k*ᵀ(K+σ²I)⁻¹(Y − m(X)) with m(x) = x·w + b per
// machine, Σ_i = k** − k*ᵀ(K+σ²I)⁻¹k*, floored at MinStd². A^c_i ~
// N(μ_i, Σ_i I).
//
// Decoding: jobs in descending priority; each instance on the machine of
// highest affinity that still has room in the decision's ledger; a job
// that does not fit whole stays pending. The priority and affinity heads
// start at zero, so the untrained deterministic policy is FIFO first-fit.
// Evaluation runs the ordering agent off the tape and only for the jobs
// that fit the free resources (order.go): the others cannot be placed
// whatever their priority; the decisions are the same to the bit.
//
// # Training
//
// Episodes are random windows of Config.SegmentJobs consecutive training
// jobs. Reward (Config.Reward "eq3", the default): Eq. 3, a finished job
// adding 1/(fee·JCT) with fee and JCT over their training means (the term
// capped at RewardCap), a job the previous decision left pending adding
// −α·C·n^GPU over the mean GPUs per job, divided by the jobs counted;
// "jct" is the dense alternative −(job-seconds in the system)/mean
// duration (Algorithm 1 needs "eq3": it learns before the episode ends).
// Two actors on the shared trunk, each with its own Adam. Config.Trainer
// "algorithm1" (the default, algorithm1.go) is the paper's Algorithm 1:
// after every decision one Adam step of a centralised critic
// Q(O^j, O^c, a^j, A^c) (Eq. 15, an MLP) on the TD target of the target
// policy and critic (Eq. 16), one clipped-surrogate step of each agent
// against the target policy (Eq. 17) with the one-step advantage
// y_t − Q_old(O_t, π_old(O_t)), and the targets copied every z = 2
// decisions; γ 0.98, clip 0.2, entropy 0.03. "mappo" is one MAPPO update
// per episode (λ 0.95, 4 epochs of minibatches of 64) with a centralised
// state-value critic (an MLP on the whole observation): about 20 times
// fewer Adam steps for the same decisions. Validation also counts the
// decisions that differ from FIFO-FirstFit's on the same state
// (Evaluation.NotFIFO, the curves' not_fifo): the zero-initialised heads
// make the untrained policy FIFO first-fit within its window. The ordering action's log-probability sums over the real
// job rows; the placement action's over the rows of the jobs placed
// (the other rows did not act on the environment; being independent
// Gaussians they marginalise out exactly). The update's passes compute
// the trunk only where those losses read it, with the bits of the whole
// trunk: the ordering agent's attention at the real rows (trunkReal), the
// placement agent's at the placed rows, of the observations that placed
// a job (trunkAt, placedBatch).
//
// Every random stream comes from pipeline.Rand(seed, Stage, ...): the same
// inputs and seed give bit-identical checkpoints.
package das
