// Package calibration fits the calibrated environments (sim.Environment)
// to each paper's measurements of its own testbed, and builds the
// scenarios those measurements were taken on: marl-paper to the MARL
// paper's §II, das-paper to DAS Table 1's heuristic rows.
//
// # The MARL paper's environment (marl-paper)
//
// Targets, from §II of the MARL paper (Table I, Figs 1–3):
//
//   - Fig. 1(a): the eight Table I jobs packed by multi-resource bin
//     packing onto four servers of one 16-core socket and two GPUs (Intel
//     E5-1660, two GTX 1080Ti): mean slowdown vs standalone 30 % (±3).
//   - Fig. 3(a): the same jobs placed by load balancing: 37 % (±3).
//   - Fig. 1(b): with more CTC jobs on one GPU of a server, a co-located
//     ResNet-50 slows more than a VGG-16 (ordering).
//   - Fig. 2(b): two 1-GPU jobs under the same CPU run slower than under
//     different CPUs, both slower than standalone (ordering).
//
// Interpretation where the paper leaves the setup open:
//
//   - Each job is one worker (1 GPU, 6 cores: "each job demands 6 CPU
//     cores and 1 GPU") and one parameter server (1 core, no GPU); the
//     paper does not say how many PSs, and one is the smallest.
//   - Servers: one socket of 16 cores and 2 GPUs (PCIe 128 Gbit/s, PCIe 3.0
//     x16), 64 GiB, under one switch at 10 Gbit/s (the paper gives no NIC
//     speed; 10 Gbit/s is the simulator's assumption for the MARL servers,
//     and comm_scale absorbs the difference).
//   - Bin packing (Tetris): jobs in Table I order, each whole job onto the
//     first server where both its tasks fit (worker and PS together), the
//     servers filled in order: two jobs per server (2 × 7 cores, 2 GPUs).
//   - Load balancing (Kubernetes/Mesos, §II-D): tasks one at a time, worker
//     then PS, each onto the feasible server with the least load, load the
//     mean of its used CPU and GPU fractions, ties to the lower index; it
//     puts most PSs on another server than their worker.
//   - Slowdown of a job: rate_alone/rate − 1 with every job placed at
//     once (the simulator's rate: ideal / iteration time), i.e. training
//     speed while all co-runners train, as the paper measures it, against
//     the job's standalone rate: the job alone on a dedicated server,
//     which is not 1 (since the instance-slowdown fix a worker and its PS
//     on one socket slow each other, so a job alone runs at 0.79–0.90).
//     The mean is over the eight.
//   - Fig. 1(b): one server of the testbed kind; the target (ResNet-50 or
//     VGG-16) on one GPU, k = 1, 2, 3 CTC jobs sharing the other GPU (1/k
//     GPU each); CPU requests are left out so that each instance's CPU use
//     is its profile's (sim.Profiles) and the CTC jobs may over-subscribe
//     the socket, as processes without CPU limits do.
//   - Fig. 2(b): one power8 server (two sockets of 8 cores, 2 GPUs each);
//     two ResNet-50 jobs (1 GPU, profile CPU) on GPUs of the same socket,
//     then of different sockets, against each alone.
//
// The fitted parameters (sim.Environment) are those of the speed model that
// no source gives: interference_scale, comm_scale and ps_share. Two numeric
// targets identify at most two of them; which two depends on the base
// model:
//
//   - With the pipeline's fitted interference model (fit/model.json), a
//     PS is never a job's straggler in these scenarios, so ps_share has no
//     effect and stays at its start (1, the model as it is), and the
//     targets fix interference_scale and comm_scale uniquely, both targets
//     met exactly (a run's values are in its tables/calibration.md; the
//     quick preset's are in docs/measurements.md).
//   - With sim.DefaultInterference, since the instance-slowdown fix (an
//     instance no longer skips the first instance of its own job on its
//     socket, so a worker and its PS on one socket slow each other) both
//     targets are met with ps_share at its start: interference_scale 3.53,
//     comm_scale 0.0091, ps_share 1 (packed 9.7 % → 30 %, load-balanced
//     455 % → 37 %). Before that fix a PS on a fuller server was the
//     straggler of load-balanced jobs, and only ps_share → 0 met both
//     targets. ps_share stays a parameter: with two targets for three
//     parameters it is fixed at its start by the fit's path, not by the
//     data, and the table says which parameters had no effect.
//
// The parameters are fitted by fitting.Minimize (Levenberg–Marquardt,
// forward-difference Jacobian) to the residuals (ours − target)/tolerance
// of the two numeric targets, plus a hinge max(0, lower − higher)/tolerance
// per ordering (zero when it holds). Bounds are the environment's
// documented ranges (sim.EnvironmentParams); the start is the neutral
// environment (every factor 1: the speed model as it is). The orderings do
// not depend on the parameters (each factor multiplies all of a scenario's
// slowdowns, and those scenarios have no communication): they check the
// interference model and the profiles. Fig. 2(b)'s "different CPUs slower
// than standalone" fails for every setting: the interference model has no
// cross-socket term below over-subscription of the other socket.
//
// The environment scales a base interference model (the fitted one,
// fit/model.json, in the pipeline): it is relative to that model.
//
// # MARL Table III
//
// "Our interference model's cross-validated error on the calibration
// samples is the lowest of the five models, as in the paper" is an
// ordering row of marl-paper's (TableIIICheck): the fit stage's k-fold
// errors (fit/coefficients.parquet, cv_error), ours against the best of
// the other four. No environment changes it. On the quick preset's
// synthetic samples TRACON-Nonlinear (15 parameters) is lower, 6.6 %
// against 6.9 %: a finding about the samples, which profiling draws from
// a model of the same form as ours with noise, not a failure of the fit.
//
// # The DAS paper's environment (das-paper)
//
// Targets, from DAS Table 1 (Xing et al., KDD 2023), heuristic rows only,
// per cluster (Small, Medium, Large: 8, 16, 32 servers of 8 V100):
//
//   - the best-to-worst spread of mean JCT, (worst − best)/best, within
//     the paper's range 4–22 % (the paper: Small 21.6 %, Medium 12.8 %,
//     Large 4.1 %);
//   - the spread of mean fee at most 6 % (the paper: 1.0–3.7 %).
//
// How we read the paper's environment. The DAS paper evaluates in its own
// simulator of the PAI trace and does not describe a speed model: it says
// neither whether co-located jobs slow each other nor whether a job spread
// over servers pays for communication. What its table does say: fee is
// price × GPUs × run time, and its heuristics' fees differ by at most 4 %,
// so in its simulator a job's run time hardly depends on where it is
// placed; its JCTs differ more (4–22 %), which is then mostly queueing
// (which job starts when). We read its environment as our speed model
// with the placement-dependent terms scaled down until the heuristics'
// spreads are the paper's: the fitted interference_scale and comm_scale
// say how much of our interference and communication the paper's numbers
// leave room for (1: all of it; the lower bounds: a pure replay). The
// base model is das-table1's (the default interference model unless
// das_table1.fitted_interference), so the environment means the same in
// das-table1, das-load, das-tuning and the DAS-family trainings.
//
// The fit's surrogate is the simulator itself: every residual evaluation
// simulates the rows on das-table1's three clusters and evaluated jobs,
// built by das-table1's own code (evaluation.DASTable1Workload: trace,
// pruning, max_jobs, 8:2 split) from the run's trace. Rows: FIFO and DRF
// × FirstFit and LoadBalance, and Tetris (DASFitRows). MALO and MOSA are
// left out: their searches cost 13 s to 3.4 min per cell on the PAI
// trace's 1,197 evaluated jobs (measured on a loaded 2-core machine), 7
// minutes per evaluation, against a budget of under a minute for the
// whole calibrate stage; das-table1 itself shows all seven rows in the
// fitted environment.
//
// Residuals are hinges in percentage points: per cluster the JCT spread's
// excess above 22 % and shortfall below 4 %, and the fee spread's excess
// above 6 %, each zero inside its range. The spreads are a rugged
// function of the parameters: a small change of speeds reorders starts
// and moves a spread by several points (on the PAI trace, Large's spread
// goes 26 % → 28 % → 20 % → 39 % as comm_scale goes 0.001 → 0.01 → 0.1 →
// 0.2 at interference_scale 0.01). Levenberg–Marquardt from the neutral
// point therefore ends at the nearest bound (measured: interference_scale
// 0.01, comm_scale 0.001, with Large at 26 %, since even a pure replay's
// queueing spreads FIFO and DRF by more than 22 % there), so the fit
// starts it from the best point of a half-decade log grid of the two
// factors (DASStartGrid, ps_share 1; ties to the point nearest the
// neutral one) and bounds it to DASMaxIterations Jacobians. A point that
// meets the targets may meet them by a few points only: the targets hold
// on the trace they were fitted on, not robustly nearby.
//
// Measured on the nightly preset's trace (PAI's simulator input, 6,000
// jobs, 1,197 evaluated), five rows: without an environment the JCT
// spreads are 16.8 / 28.6 / 44.8 % (Small / Medium / Large) and the fee
// spreads 5.6 / 14.8 / 16.3 %; the fit ends at interference_scale 0.01
// (its lower bound), comm_scale 0.1, ps_share 1, with JCT spreads 9.4 /
// 19.2 / 19.9 % and fee spreads 0.9 / 1.9 / 4.3 %: every target met. The
// finding: the paper's spreads leave room for almost none of our
// co-location interference and a tenth of our communication cost on that
// trace. On the quick preset's synthetic trace (397 evaluated jobs) the
// best grid point is instead interference_scale 1, comm_scale 0.03: the
// fitted environment depends on the trace as much as on the paper.
package calibration
