package evaluation

import (
	"errors"
	"fmt"
	"slices"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
)

// Experiment ids (DESIGN.md §6), in its order.
const (
	DASTable1   = "das-table1"
	DASLoad     = "das-load"
	DASTuning   = "das-tuning"
	DASWilcoxon = "das-wilcoxon"
	DASOverhead = "das-overhead"
	// DASTraining is how far das-table1's learned rows trained (Adam
	// steps, decisions unlike FIFO-FirstFit's), from their curves.
	DASTraining    = "das-table1-training"
	MARLArrivals   = "marl-arrivals"
	MARLServers    = "marl-servers"
	MARLTopologies = "marl-topologies"
	MARLVsSingle   = "marl-vs-single"
	// MARLConvergence is marl-vs-single's convergence table and plot (MARL
	// Fig. 10a), derived from its learned schedulers' learning curves.
	MARLConvergence = "marl-vs-single-convergence"
	// MARLArrivalsConvergence is the learning curves of marl-arrivals'
	// learned rows (the models whose verdicts the MARL Fig. 7 claims give).
	MARLArrivalsConvergence = "marl-arrivals-convergence"
	// Sensitivity is the learned-vs-heuristic margin across a grid of
	// communication and interference scales (issue 15, item 6): a staged
	// experiment, written by its own stage.
	Sensitivity = "sensitivity"
)

// The parts of the sensitivity experiment (eval.sensitivity.parts), each
// named after its learned scheduler.
const (
	// SensitivityMARLDevice: marl-device on a fat-tree of power8 servers,
	// marl-arrivals' uniform workload, against MARL heuristics, in the
	// MARL paper's environment.
	SensitivityMARLDevice = "marl-device"
	// SensitivityDAS: das on one DAS cluster, das-table1's trace, against
	// DAS heuristics, in the DAS paper's environment (or none).
	SensitivityDAS = "das"
)

// SensitivityParts lists the parts in table order.
func SensitivityParts() []string { return []string{SensitivityMARLDevice, SensitivityDAS} }

// The registry, in DESIGN.md §6 order. Every paper figure a table shows
// beside ours is in a Reference here.
func init() {
	Register(Experiment{
		ID: DASTable1, Paper: PaperDAS, Reproduces: "DAS Table 1",
		Defaults: `# Rows of DAS Table 1 (schedulers of "schedlab eval --help"). MALO and
# MOSA search for minutes per cell; the nightly preset adds them.
# Learned rows (das, da, da+mc, da+rwgp, dl2, rifling) are trained by
# their own stages (train.das); the quick preset leaves them to nightly.
schedulers: [fifo-firstfit, fifo-loadbalance, drf-firstfit, drf-loadbalance, tetris]
# The first max_jobs jobs of the run's trace by submission (the paper:
# 20,000), after pruning jobs no cluster holds; the last test_fraction of
# them are evaluated (the paper's 8:2 split).
max_jobs: 20000
test_fraction: 0.2
# Job speeds from the fitted interference model (fit/model.json) rather
# than the simulator's per-socket default. Off here: the model is fitted
# to samples of a 2×8-core server, and its per-core exponentials do not
# extrapolate to the 48-core sockets of the PAI V100 servers.
fitted_interference: false
`,
		Summary: `DAS Table 1: clusters Small/Medium/Large (8/16/32 servers × 8 V100);
the PAI trace: --jobs FILE (canonical jobs Parquet, e.g. from
"schedlab ingest --source pai-sim"), else the seeded PAI-like generator;
sorted by submission, jobs too large for any cluster pruned (counted),
first --max-jobs kept, 8:2 split, the last 20 % simulated;
FIFO/DRF × FirstFit/LoadBalance, Tetris, MALO, MOSA; mean JCT (min) and
fee ($), with the paper's figures beside ours (columns "paper" and Δ % in
Markdown; rows labelled "(paper)" in CSV and LaTeX).`,
		Section: ReportSection{"Mean JCT and fee of each scheduler on each cluster (DAS Table 1)",
			"The PAI trace replayed on the Small, Medium and Large clusters (8, 16, 32 servers of 8 V100). Figures marked paper are the DAS paper's, not ours."},
		Reference: &Reference{
			Traces: PaperTraces,
			Note:   "Figures marked paper (columns in Markdown, rows labelled (paper) in CSV and LaTeX) are the DAS paper's Table 1 (Xing et al., KDD 2023), shown for comparison; they are not our measurements. Δ % = (ours − paper) / paper.",
			Groups: []string{"Small", "Medium", "Large", AverageGroup},
			// JCT in minutes and fee in dollars, by registry name.
			Rows: map[string][]float64{
				"fifo-firstfit":    {720.228, 51.685, 171.282, 51.684, 110.316, 51.219, 333.942, 51.529},
				"fifo-loadbalance": {715.776, 51.559, 162.102, 50.900, 112.290, 51.112, 330.054, 51.189},
				"drf-firstfit":     {862.242, 52.055, 164.778, 51.354, 109.098, 52.325, 378.708, 51.911},
				"drf-loadbalance":  {852.984, 51.798, 173.106, 51.908, 113.556, 51.924, 379.884, 51.877},
				"tetris":           {813.480, 51.668, 176.688, 52.567, 113.364, 53.109, 367.842, 52.448},
				"malo":             {708.858, 51.675, 182.862, 51.129, 111.660, 51.233, 334.458, 51.346},
				"mosa":             {759.222, 51.783, 173.400, 51.998, 109.422, 51.933, 347.346, 51.905},
				// The paper ran DL² and RIFLING with PPO on its own features
				// (App. D): dl2-das and rifling-ppo here; dl2 (pooled cluster
				// features) and rifling (tabular Q-learning) are shown against
				// the same figures.
				"dl2":         {721.083, 51.166, 160.100, 50.970, 110.215, 51.080, 330.468, 51.072},
				"dl2-das":     {721.083, 51.166, 160.100, 50.970, 110.215, 51.080, 330.468, 51.072},
				"rifling":     {717.576, 51.160, 176.676, 50.980, 109.872, 51.039, 334.708, 51.060},
				"rifling-ppo": {717.576, 51.160, 176.676, 50.980, 109.872, 51.039, 334.708, 51.060},
				"da":          {697.732, 51.106, 173.354, 51.097, 108.821, 51.025, 326.636, 51.076},
				"da+mc":       {680.861, 50.952, 163.456, 50.941, 109.854, 50.701, 318.057, 50.865},
				"da+rwgp":     {686.894, 51.029, 157.071, 50.856, 107.896, 50.439, 317.287, 50.684},
				"das":         {638.046, 50.484, 155.003, 50.019, 108.700, 50.354, 300.584, 50.286},
			},
		},
		Spec: func() Spec { return dasSpec(DASTable1) },
		Configure: func(c *Config, s *Spec) bool {
			s.Schedulers = DASTable1Section.Get(c).Schedulers
			return configureDASTrace(c, s)
		},
		Settings: DASTable1Section,
		CheckConfig: func(c *Config, listed bool) []error {
			t := DASTable1Section.Get(c)
			errs := checkSchedulers("eval.das_table1.schedulers", t.Schedulers)
			if t.MaxJobs < 1 || t.MaxJobs > MaxJobs {
				errs = append(errs, fmt.Errorf("eval.das_table1.max_jobs: must be in [1, %d], got %d", MaxJobs, t.MaxJobs))
			}
			if !(t.TestFraction > 0 && t.TestFraction <= 1) {
				errs = append(errs, fmt.Errorf("eval.das_table1.test_fraction: must be in (0, 1], got %v", t.TestFraction))
			}
			return errs
		},
	})
	Register(Experiment{
		ID: DASLoad, Paper: PaperDAS, Reproduces: "DAS Fig. 7",
		Plot: plotOverRate,
		Defaults: `# DAS Fig. 7 on das-table1's clusters, trace and models: the evaluated
# jobs arrive at each of rates × the trace's rate (the paper: 0.5, 1, 2;
# workloads x0.5, x1, x2). The paper compares RIFLING (rifling-ppo, its
# PPO form) and das; quick uses two heuristics, nightly the paper's rows
# and the tabular rifling beside them.
schedulers: [fifo-firstfit, tetris]
rates: [0.5, 1, 2]
`,
		Summary: `DAS Fig. 7: das-table1's clusters and trace, the evaluated jobs arriving
at ×0.5, ×1 and ×2 the trace's rate; RIFLING (PPO, rifling-ppo) vs DAS
(needs --models).`,
		Section: ReportSection{"Mean JCT and fee as the arrival rate grows (DAS Fig. 7)",
			"das-table1's clusters, trace and models; the evaluated jobs arrive at ×0.5, ×1 and ×2 the trace's rate."},
		Spec: func() Spec {
			s := dasSpec(DASLoad)
			s.Schedulers = []string{DASRIFLING, "das"}
			s.Workloads = loadWorkloads(s.Workloads[0], []float64{0.5, 1, 2}) // low, normal, high
			return s
		},
		Configure: func(c *Config, s *Spec) bool {
			l := DASLoadSection.Get(c)
			s.Schedulers = l.Schedulers
			s.Workloads = loadWorkloads(s.Workloads[0], l.Rates)
			return configureDASTrace(c, s)
		},
		Settings: DASLoadSection,
		CheckConfig: func(c *Config, listed bool) []error {
			l := DASLoadSection.Get(c)
			errs := checkSchedulers("eval.das_load.schedulers", l.Schedulers)
			if listed && len(l.Rates) == 0 {
				errs = append(errs, errors.New("eval.das_load.rates: give at least one arrival-rate factor"))
			}
			for i, r := range l.Rates {
				if !(r > 0 && r <= MaxRateFactor) {
					errs = append(errs, fmt.Errorf("eval.das_load.rates[%d]: must be in (0, %d], got %v", i, MaxRateFactor, r))
				}
			}
			return errs
		},
	})
	Register(Experiment{
		ID: DASTuning, Paper: PaperDAS, Reproduces: "DAS Fig. 5",
		Plot: tuningPlot(DASRIFLING, "rifling"),
		Defaults: `# DAS Fig. 5 on das-table1's clusters and trace: DAS trained with h
# attention heads (das-h1, das-h2, das-h4, das-h8; τ = 8) and with τ
# placements of GP history (das-tau4 .. das-tau10; h = 4), each by its
# own stage (das-h4 and das-tau8 are the default model, das), beside
# RIFLING in the DAS paper's form (rifling-ppo) and its tabular form
# (rifling). Not in quick's experiments.
schedulers: [rifling-ppo, rifling, das-h1, das-h2, das-h4, das-h8, das-tau4, das-tau6, das-tau8, das-tau10]
`,
		Summary: `DAS Fig. 5: das-table1's clusters and trace; RIFLING (PPO and tabular) and DAS with h = 1,
2, 4, 8 heads (das-h1 ..) and τ = 4, 6, 8, 10 (das-tau4 ..) (needs --models).`,
		Section: ReportSection{"Mean JCT over DAS's attention heads h and GP history τ (DAS Fig. 5)",
			"One DAS model trained per h (τ = 8) and per τ (h = 4), beside RIFLING (PPO, the paper's, and tabular); the Average column is the paper's metric."},
		Spec: func() Spec {
			s := dasSpec(DASTuning)
			s.Schedulers = []string{DASRIFLING, "rifling", "das-h1", "das-h2", "das-h4", "das-h8", "das-tau4", "das-tau6", "das-tau8", "das-tau10"}
			return s
		},
		Configure: func(c *Config, s *Spec) bool {
			s.Schedulers = DASTuningSection.Get(c).Schedulers
			return configureDASTrace(c, s)
		},
		Settings: DASTuningSection,
		CheckConfig: func(c *Config, listed bool) []error {
			return checkSchedulers("eval.das_tuning.schedulers", DASTuningSection.Get(c).Schedulers)
		},
	})
	Register(Experiment{
		ID: DASWilcoxon, Paper: PaperDAS, Reproduces: "DAS Table 3",
		Summary: `DAS Table 3: Wilcoxon signed-rank p-values of DAS vs RIFLING (its PPO
form, rifling-ppo, as the paper ran it) on per-job JCT and fee, from
das-table1's results (when both are rows of it).`,
		Section: ReportSection{"Per-job Wilcoxon signed-rank tests against RIFLING (DAS Table 3)", "Per-job pairs from das-table1's results; RIFLING in the paper's PPO form."},
		Reference: &Reference{
			Traces: PaperTraces,
			Note:   "The paper's p-values (columns in Markdown, the row labelled (paper) in CSV and LaTeX) are DAS Table 3 (Xing et al., KDD 2023), not our measurement.",
			Groups: []string{"Small", "Medium", "Large"},
			// p-values of JCT and fee.
			Rows: map[string][]float64{"DAS vs RIFLING (PPO)": {0.0002, 0.0588, 0.0006, 0.0570, 0.04911, 0.0792}},
		},
		Derive: &Derivation{
			From: DASTable1, Reads: FromResults,
			Applies: func(p Spec) bool { return hasScheduler(p, "das") && hasScheduler(p, DASRIFLING) },
			Table: func(in DerivedData) (*Table, error) {
				return wilcoxonTable(in.Results, "das", DASRIFLING, MustLookup(DASWilcoxon).Reference, in.Trace)
			},
		},
	})
	Register(Experiment{
		ID: DASOverhead, Paper: PaperDAS, Reproduces: "DAS App. F", File: "das-overhead-timings",
		Summary: `DAS Appendix F: scheduling time per job placed of das-table1's learned
rows, from wall-clock timings (so it differs between runs).`,
		Section: ReportSection{"Scheduling overhead per job (DAS Appendix F)", "Wall-clock time, so it differs between runs."},
		Derive: &Derivation{
			From: DASTable1, Reads: FromTimings,
			Applies: func(p Spec) bool { return len(learnedOf(p)) > 0 },
			Table:   func(in DerivedData) (*Table, error) { return overheadTable(in.Timings), nil },
		},
	})
	Register(Experiment{
		ID: DASTraining, Paper: PaperDAS, Reproduces: "DAS Algorithm 1 (training of Table 1's models)",
		Summary: `how far das-table1's learned rows were trained, from their models'
learning curves: Adam steps per episode, and the share of validation
decisions that differ from FIFO-FirstFit's, flagging a model that is
FIFO-FirstFit under another name.`,
		Section: ReportSection{"Training of das-table1's learned schedulers", "Adam steps per training episode and, on the validation jobs, the share of decisions that differ from FIFO-FirstFit's and the mean JCT after training."},
		Derive: &Derivation{
			From: DASTable1, Reads: FromCurves,
			Applies: func(p Spec) bool { return len(learnedOf(p)) > 0 },
			Table:   func(in DerivedData) (*Table, error) { return dasTrainingTable(in), nil },
		},
	})
	Register(Experiment{
		ID: MARLArrivals, Paper: PaperMARL, Reproduces: "MARL Fig. 7",
		Defaults: `# Heuristics, and learned schedulers (marl-device, marl-server,
# marl-single, deepsys, atte), each trained by its own stage (train.*).
schedulers: [tetris-pack, load-balancing, lif, marl-device]
# Fat-tree of power8 servers, k pods of (k/2)² servers (the paper: 20).
k: 4
# Jobs per pod per 30-minute interval; 0 means the paper's 15 per 100
# servers, scaled to the pod size.
jobs_per_pod: 0
# Intervals that receive jobs (the google workload uses the first rows
# of the ingested arrivals table, and is skipped when there is none).
intervals: 10
# Job speeds from the fitted interference model, as in the MARL paper
# (its power8 servers are the profiled 2×8-core kind); every MARL
# experiment below and the training of the MARL models use the same.
fitted_interference: true
# Placement of the test jobs: batch (every 30-minute interval's arrivals
# at its end) or arrival (each job on arrival, or when resources free up:
# the paper's testing, §VI-A). Models train in batches either way.
placement: batch
`,
		Summary: `MARL Fig. 7: fat-tree of power8 servers (--fattree-k, eval.marl_arrivals.k; the
paper's is 20), 30-minute intervals, --jobs-per-pod per pod per interval
(default: the paper's 15 per pod of 100 servers scaled to the pod size,
15·(k/2)²/100, i.e. 2.4 at k=8 and 15 at k=20) for --intervals
intervals: uniform, Poisson and the Google 2011 pattern
(--arrivals FILE: interval,start_s,jobs as CSV or the arrivals.parquet of
"schedlab ingest --source google-2011"; without it that workload is
skipped and the table says so); Tetris (packing: tetris-pack, the MARL
paper's Tetris), Load Balancing, LIF; mean JCT in intervals.`,
		Section: ReportSection{"Mean JCT under uniform, Poisson and Google arrivals (MARL Fig. 7)", "A fat-tree of power8 servers; test jobs placed in 30-minute batches or on arrival (eval.marl_arrivals.placement; the simulator note names the trigger: interval or event)."},
		Spec: func() Spec {
			s := marlSpec(MARLArrivals)
			for _, k := range []string{KindPoisson, KindGoogle} {
				s.Workloads = append(s.Workloads, Workload{Name: k, Kind: k, Intervals: 20})
			}
			return s
		},
		Configure: func(c *Config, s *Spec) bool {
			e := MARLArrivalsSection.Get(c)
			s.Schedulers = e.Schedulers
			s.Clusters[0].Name = fmt.Sprintf("fattree-k%d", e.K)
			s.Clusters[0].Spec.K = e.K
			for i := range s.Workloads {
				s.Workloads[i].JobsPerPod = e.JobsPerPod
				s.Workloads[i].Intervals = e.Intervals
			}
			if e.Placement == PlacementArrival {
				// Each job when it arrives or when a completion frees
				// room for it; the intervals still pace the arrivals.
				s.Sim.Trigger = sim.TriggerEvent
			}
			return e.FittedInterference
		},
		Settings: MARLArrivalsSection,
		CheckConfig: func(c *Config, listed bool) []error {
			e := MARLArrivalsSection.Get(c)
			errs := checkSchedulers("eval.marl_arrivals.schedulers", e.Schedulers)
			if e.Placement != "" && e.Placement != PlacementBatch && e.Placement != PlacementArrival {
				errs = append(errs, fmt.Errorf("eval.marl_arrivals.placement: must be %s or %s, got %q", PlacementBatch, PlacementArrival, e.Placement))
			}
			if e.K < 2 || e.K%2 != 0 {
				errs = append(errs, fmt.Errorf("eval.marl_arrivals.k: must be even and >= 2, got %d", e.K))
			} else if err := (sim.ClusterSpec{Topology: "fattree", K: e.K, Servers: "power8"}).Validate(); err != nil {
				errs = append(errs, fmt.Errorf("eval.marl_arrivals.k: %w", err))
			}
			if !(e.JobsPerPod >= 0 && e.JobsPerPod <= MaxJobsPerPod) {
				errs = append(errs, fmt.Errorf("eval.marl_arrivals.jobs_per_pod: must be in [0, %d], got %v", MaxJobsPerPod, e.JobsPerPod))
			}
			if e.Intervals < 1 || e.Intervals > MaxIntervals {
				errs = append(errs, fmt.Errorf("eval.marl_arrivals.intervals: must be in [1, %d], got %d", MaxIntervals, e.Intervals))
			}
			return errs
		},
	})
	Register(Experiment{
		ID: MARLArrivalsConvergence, Paper: PaperMARL, Reproduces: "MARL §VI (training of Fig. 7's models)",
		Summary: `validation mean JCT of marl-arrivals' learned rows over their training
episodes, from their models' learning curves: how far the models whose
MARL Fig. 7 verdicts the scoreboard gives were trained.`,
		Section: ReportSection{"Training curves of marl-arrivals' learned schedulers", "Validation mean JCT of each learned scheduler of marl-arrivals over its training episodes: the models whose MARL Fig. 7 verdicts the scoreboard gives."},
		Derive: &Derivation{
			From: MARLArrivals, Reads: FromCurves,
			Applies: func(p Spec) bool { return len(learnedOf(p)) > 0 },
			Table: func(in DerivedData) (*Table, error) {
				return convergenceTable(MARLArrivalsConvergence, "marl-arrivals' learned schedulers", in), nil
			},
			Plot: plotConvergence("marl-arrivals: learned schedulers' convergence"),
		},
	})
	Register(Experiment{
		ID: MARLServers, Paper: PaperMARL, Reproduces: "MARL Fig. 8",
		Defaults: `# MARL Fig. 8: one fat-tree, four server configurations; uniform arrivals
# at the paper's load per pod, scaled to each cluster's pod size. A
# learned scheduler (marl-device, marl-server, marl-single, deepsys, atte)
# is trained once per cluster it is evaluated on.
schedulers: [tetris-pack, load-balancing, lif]
# Clusters compared, one column group each. A cluster: name (its column),
# spec: topology (fattree, vl2, bcube), k (fat-tree / VL2 parameter, BCube
# level), n (BCube ports), servers (power8, dgx1, hetero-cpu, mixed).
clusters:
  - {name: power8, spec: {topology: fattree, k: 4, servers: power8}}
  - {name: dgx1, spec: {topology: fattree, k: 4, servers: dgx1}}
  - {name: hetero-cpu, spec: {topology: fattree, k: 4, servers: hetero-cpu}}
  - {name: mixed, spec: {topology: fattree, k: 4, servers: mixed}}
# 30-minute intervals that receive jobs.
intervals: 10
`,
		Summary: `MARL Fig. 8: the fat-tree built of power8, dgx1, hetero-cpu and mixed
servers; uniform arrivals.`,
		Section: ReportSection{"Mean JCT on each server configuration (MARL Fig. 8)", "The fat-tree built of each server kind; learned models trained per configuration."},
		Spec: func() Spec {
			s := marlSpec(MARLServers)
			fattree := s.Clusters[0].Spec
			s.Clusters = nil
			for _, kind := range []string{"power8", "dgx1", "hetero-cpu", "mixed"} {
				c := fattree
				c.Servers = kind
				s.Clusters = append(s.Clusters, Cluster{Name: kind, Spec: c})
			}
			return s
		},
		Configure: func(c *Config, s *Spec) bool { return configureMARLGrid(c, MARLServersSection.Get(c), s) },
		Settings:  MARLServersSection,
		CheckConfig: func(c *Config, listed bool) []error {
			return checkMARLGrid("eval.marl_servers", MARLServersSection.Get(c), listed)
		},
	})
	Register(Experiment{
		ID: MARLTopologies, Paper: PaperMARL, Reproduces: "MARL Fig. 9",
		Defaults: `# MARL Fig. 9: fat-tree, VL2 (k pods of k/4 ToRs of 20 servers) and
# BCube(n, k) (pods of two BCube_1); uniform arrivals at the paper's load
# per pod, scaled to each cluster's pod size. A learned scheduler
# (marl-device, marl-server, marl-single, deepsys, atte) is trained once
# per cluster it is evaluated on.
schedulers: [tetris-pack, load-balancing, lif]
# Clusters compared, one column group each. A cluster: name (its column),
# spec: topology (fattree, vl2, bcube), k (fat-tree / VL2 parameter, BCube
# level), n (BCube ports), servers (power8, dgx1, hetero-cpu, mixed).
clusters:
  - {name: fattree-k4, spec: {topology: fattree, k: 4, servers: power8}}
  - {name: vl2-k4, spec: {topology: vl2, k: 4, servers: power8}}
  - {name: bcube-n3-k2, spec: {topology: bcube, n: 3, k: 2, servers: power8}}
# 30-minute intervals that receive jobs.
intervals: 10
`,
		Summary: `MARL Fig. 9: fat-tree k=8, VL2 k=4, BCube(4,2) of power8 servers.`,
		Section: ReportSection{"Mean JCT on fat-tree, VL2 and BCube topologies (MARL Fig. 9)", "Fat-tree, VL2 and BCube of power8 servers; learned models trained per topology."},
		Spec: func() Spec {
			s := marlSpec(MARLTopologies)
			s.Clusters = append(s.Clusters,
				Cluster{Name: "vl2-k4", Spec: sim.ClusterSpec{Topology: "vl2", K: 4, Servers: "power8"}},
				Cluster{Name: "bcube-n4-k2", Spec: sim.ClusterSpec{Topology: "bcube", N: 4, K: 2, Servers: "power8"}})
			return s
		},
		Configure: func(c *Config, s *Spec) bool { return configureMARLGrid(c, MARLTopologiesSection.Get(c), s) },
		Settings:  MARLTopologiesSection,
		CheckConfig: func(c *Config, listed bool) []error {
			return checkMARLGrid("eval.marl_topologies", MARLTopologiesSection.Get(c), listed)
		},
	})
	Register(Experiment{
		ID: MARLVsSingle, Paper: PaperMARL, Reproduces: "MARL Fig. 10",
		Defaults: `# MARL Fig. 10: multi-agent (marl-device) vs single-agent (marl-single)
# mean JCT beside Tetris, and their convergence
# (tables/ and plots/marl-vs-single-convergence.*); uniform and Google
# arrivals at the paper's load per pod, scaled to each cluster's pod size.
# A learned scheduler (marl-device, marl-server, marl-single, deepsys,
# atte) is trained once per cluster it is evaluated on.
schedulers: [tetris-pack, marl-device, marl-single]
# Clusters compared, one column group each. A cluster: name (its column),
# spec: topology (fattree, vl2, bcube), k (fat-tree / VL2 parameter, BCube
# level), n (BCube ports), servers (power8, dgx1, hetero-cpu, mixed).
clusters:
  - {name: fattree-k4, spec: {topology: fattree, k: 4, servers: power8}}
# 30-minute intervals that receive jobs.
intervals: 10
`,
		Summary: `MARL Fig. 10: the fat-tree, uniform and Google arrivals; Tetris (packing) (add
marl-device and marl-single with --schedulers and --models).`,
		Section: ReportSection{"Mean JCT of the multi-agent scheduler against a single agent (MARL Fig. 10)", "Mean JCT of the device-level multi-agent scheduler, the single-agent one and Tetris."},
		Spec: func() Spec {
			s := marlSpec(MARLVsSingle)
			s.Workloads = append(s.Workloads, Workload{Name: KindGoogle, Kind: KindGoogle, Intervals: 20})
			s.Schedulers = []string{"tetris-pack"}
			return s
		},
		Configure: func(c *Config, s *Spec) bool { return configureMARLGrid(c, MARLVsSingleSection.Get(c), s) },
		Settings:  MARLVsSingleSection,
		CheckConfig: func(c *Config, listed bool) []error {
			return checkMARLGrid("eval.marl_vs_single", MARLVsSingleSection.Get(c), listed)
		},
	})
	Register(Experiment{
		ID: MARLConvergence, Paper: PaperMARL, Reproduces: "MARL Fig. 10(a)",
		Summary: `MARL Fig. 10(a): validation mean JCT of marl-vs-single's learned rows
over their training episodes, from their models' learning curves.`,
		Section: ReportSection{"Training curves of the multi-agent and single-agent schedulers (MARL Fig. 10(a))", "Validation mean JCT of the two learned schedulers over their training episodes."},
		Derive: &Derivation{
			From: MARLVsSingle, Reads: FromCurves,
			Table: func(in DerivedData) (*Table, error) {
				return convergenceTable(MARLConvergence, "multi- vs single-agent", in), nil
			},
			Plot: plotConvergence("marl-vs-single: convergence, multi-agent vs single-agent"),
		},
	})
	Register(Experiment{
		ID: Sensitivity, Reproduces: "issue 15: where learned placement pays",
		Defaults: `# The learned scheduler's mean-JCT margin over the best heuristic,
# (best heuristic − learned)/best heuristic, on a grid around each
# part's calibrated environment (tables/ and plots/sensitivity.*).
# Parts: marl-device (fat-tree of power8, marl-arrivals' uniform
# workload, in marl-paper) and das (a DAS cluster, das-table1's trace,
# in the DAS paper's environment, or the neutral one while it has none).
parts: [marl-device]
# Multipliers of the environment's comm_scale (rows: comm_scales) and
# interference_scale (columns: interference_scales), each increasing, in [0.01, 100]; every
# grid point trains its own model. quick: the smallest grid that varies
# both, with tiny trainings, and marl-device only (a DAS training costs
# seconds even at quick's size; nightly and paper run both parts).
comm_scales: [0.5, 2]
interference_scales: [0.5, 2]
marl_device:
  # Heuristics the learned scheduler is compared with; the best of them
  # at each point is the margin's baseline.
  heuristics: [tetris-pack, load-balancing, lif]
  # Fat-tree k; intervals of uniform arrivals evaluated; training
  # episodes per grid point (0: the family's default) over
  # train_intervals intervals.
  k: 4
  intervals: 2
  episodes: 1
  train_intervals: 2
  # Operating points, one map per load and socket rule: loads multiply
  # the paper's jobs per pod; sockets are socket rules (most-free,
  # first-fit, random; [] keeps marl-arrivals' own, first-fit).
  loads: [1]
  sockets: []
das:
  # MALO and MOSA search for minutes per cell: left out of the grid.
  heuristics: [fifo-firstfit, fifo-loadbalance, drf-firstfit, drf-loadbalance, tetris]
  # Cluster trained and evaluated on (small, medium, large); training
  # episodes per learning rate per grid point (the rest of train.das
  # applies).
  cluster: small
  episodes: 1
`,
		Summary: `the mean-JCT margin of the learned scheduler over the best heuristic,
(best heuristic − learned)/best heuristic, on a grid of multipliers of
the calibrated environment's communication and interference scales, a
model trained per grid point: marl-device on a fat-tree of power8
servers (marl-arrivals' workload) and das on a DAS cluster (das-table1's
trace). Written by the sensitivity stage.`,
		Section: ReportSection{"Where learned placement pays: its margin as communication and interference grow (sensitivity)",
			"The learned scheduler's mean-JCT margin over the best heuristic as the calibrated environment's communication and interference scales are multiplied, at each operating point (load, socket rule) configured; each grid point trains its own model. Positive: learned placement pays; zero or negative: the named heuristic (packing, first-fit) is already as good. Beside each margin map, the headroom of the best heuristic over the floor (where any scheduler could gain) and the share of it the learned scheduler captured."},
		Stage:       Sensitivity,
		Settings:    SensitivitySection,
		CheckConfig: checkSensitivity,
	})
}

// DASTable1Section is eval.das_table1.
var DASTable1Section = NewSection[DASTable1Config](DASTable1)

// DASTable1Config parameterises das-table1 on the run's job trace. Its
// trace settings (max_jobs, test_fraction) serve das-load and das-tuning
// too, so that the three experiments evaluate the same jobs with the
// same models.
type DASTable1Config struct {
	Schedulers []string `mapstructure:"schedulers" yaml:"schedulers" json:"schedulers"`
	// MaxJobs keeps the first MaxJobs jobs by submission (20,000 in the
	// paper); TestFraction of them, the last, are evaluated.
	MaxJobs      int     `mapstructure:"max_jobs" yaml:"max_jobs" json:"max_jobs"`
	TestFraction float64 `mapstructure:"test_fraction" yaml:"test_fraction" json:"test_fraction"`
	// FittedInterference simulates job speeds with the fitted model
	// (fit/model.json) instead of the simulator's per-socket default.
	FittedInterference bool `mapstructure:"fitted_interference" yaml:"fitted_interference" json:"fitted_interference"`
}

// DASLoadSection is eval.das_load.
var DASLoadSection = NewSection[DASLoadConfig](DASLoad)

// DASLoadConfig parameterises das-load (DAS Fig. 7).
type DASLoadConfig struct {
	Schedulers []string `mapstructure:"schedulers" yaml:"schedulers" json:"schedulers"`
	// Rates multiply the trace's arrival rate (the paper: 0.5, 1, 2); each
	// is a workload named x<rate>.
	Rates []float64 `mapstructure:"rates" yaml:"rates" json:"rates"`
}

// DASTuningSection is eval.das_tuning.
var DASTuningSection = NewSection[DASTuningConfig](DASTuning)

// DASTuningConfig parameterises das-tuning (DAS Fig. 5).
type DASTuningConfig struct {
	// Schedulers: baselines (the paper: rifling-ppo) and DAS rows das-h<h>
	// (τ = 8) and das-tau<τ> (h = 4), each trained by its own stage.
	Schedulers []string `mapstructure:"schedulers" yaml:"schedulers" json:"schedulers"`
}

// MARLArrivalsSection is eval.marl_arrivals; its fitted_interference
// holds for every MARL experiment.
var MARLArrivalsSection = NewSection[MARLArrivalsConfig](MARLArrivals)

// MARLArrivalsConfig parameterises marl-arrivals.
type MARLArrivalsConfig struct {
	Schedulers []string `mapstructure:"schedulers" yaml:"schedulers" json:"schedulers"`
	// K of the fat-tree of power8 servers (the paper: 20).
	K int `mapstructure:"k" yaml:"k" json:"k"`
	// JobsPerPod per 30-minute interval; 0 means the paper's 15 per pod of
	// 100 servers scaled to the pod size (MARLPaperLoad).
	JobsPerPod float64 `mapstructure:"jobs_per_pod" yaml:"jobs_per_pod" json:"jobs_per_pod"`
	Intervals  int     `mapstructure:"intervals" yaml:"intervals" json:"intervals"`
	// FittedInterference: as for das-table1. It holds for every MARL
	// experiment and the training of their models.
	FittedInterference bool `mapstructure:"fitted_interference" yaml:"fitted_interference" json:"fitted_interference"`
	// Placement of the test jobs: PlacementBatch (each 30-minute
	// interval's arrivals together, at its end) or PlacementArrival
	// (each job when it arrives, or when resources free up for it: MARL
	// §VI-A's testing); "" means batch. Models train in batches either
	// way.
	Placement string `mapstructure:"placement" yaml:"placement" json:"placement"`
}

// Placements of marl-arrivals' test jobs (MARLArrivalsConfig.Placement).
const (
	PlacementBatch   = "batch"
	PlacementArrival = "arrival"
)

// MARLServersSection is eval.marl_servers.
var MARLServersSection = NewSection[MARLGridConfig](MARLServers)

// MARLTopologiesSection is eval.marl_topologies.
var MARLTopologiesSection = NewSection[MARLGridConfig](MARLTopologies)

// MARLVsSingleSection is eval.marl_vs_single.
var MARLVsSingleSection = NewSection[MARLGridConfig](MARLVsSingle)

// MARLGridConfig parameterises marl-servers, marl-topologies and
// marl-vs-single: their clusters (one column group each) at the paper's
// load per pod (MARLPaperLoad).
type MARLGridConfig struct {
	Schedulers []string  `mapstructure:"schedulers" yaml:"schedulers" json:"schedulers"`
	Clusters   []Cluster `mapstructure:"clusters" yaml:"clusters" json:"clusters"`
	Intervals  int       `mapstructure:"intervals" yaml:"intervals" json:"intervals"`
}

// SensitivitySection is eval.sensitivity.
var SensitivitySection = NewSection[SensitivityConfig](Sensitivity)

// SensitivityConfig parameterises the sensitivity experiment: a grid of
// multipliers on the communication and interference scales of each part's
// calibrated environment, a model trained per grid point.
type SensitivityConfig struct {
	// Parts to run: SensitivityMARLDevice, SensitivityDAS.
	Parts []string `mapstructure:"parts" yaml:"parts" json:"parts"`
	// CommScales and InterferenceScales multiply the environment's
	// comm_scale and interference_scale: the map's rows and columns, each
	// increasing.
	CommScales         []float64             `mapstructure:"comm_scales" yaml:"comm_scales" json:"comm_scales"`
	InterferenceScales []float64             `mapstructure:"interference_scales" yaml:"interference_scales" json:"interference_scales"`
	MARLDevice         SensitivityMARLConfig `mapstructure:"marl_device" yaml:"marl_device" json:"marl_device"`
	DAS                SensitivityDASConfig  `mapstructure:"das" yaml:"das" json:"das"`
}

// SensitivityMARLConfig sizes the marl-device part: marl-arrivals' uniform
// workload at the paper's load per pod on a fat-tree of power8 servers.
type SensitivityMARLConfig struct {
	// Heuristics the learned scheduler is compared with (MARLHeuristics).
	Heuristics []string `mapstructure:"heuristics" yaml:"heuristics" json:"heuristics"`
	// K of the fat-tree.
	K int `mapstructure:"k" yaml:"k" json:"k"`
	// Intervals of uniform arrivals evaluated.
	Intervals int `mapstructure:"intervals" yaml:"intervals" json:"intervals"`
	// Episodes of each grid point's training (0: the family's default),
	// over TrainIntervals intervals of uniform arrivals.
	Episodes       int `mapstructure:"episodes" yaml:"episodes" json:"episodes"`
	TrainIntervals int `mapstructure:"train_intervals" yaml:"train_intervals" json:"train_intervals"`
	// Loads multiply the paper's jobs per pod (MARLPaperLoad) and Sockets
	// are socket rules (sim.SocketRules): the map has one part per load
	// and rule, each its own grid. Loads [1] (or none) and Sockets [] (the
	// experiment's own rule) are one part, named as before. Left out of
	// the JSON when empty.
	Loads   []float64 `mapstructure:"loads" yaml:"loads" json:"loads,omitempty"`
	Sockets []string  `mapstructure:"sockets" yaml:"sockets" json:"sockets,omitempty"`
}

// SensitivityDASConfig sizes the das part: das-table1's trace (its
// max_jobs and test_fraction) on one cluster; the training reads
// train.das except for its episodes and cluster.
type SensitivityDASConfig struct {
	// Heuristics the learned scheduler is compared with (DASHeuristics).
	Heuristics []string `mapstructure:"heuristics" yaml:"heuristics" json:"heuristics"`
	// Cluster evaluated and trained on: small, medium or large.
	Cluster string `mapstructure:"cluster" yaml:"cluster" json:"cluster"`
	// Episodes per learning rate of each grid point's training.
	Episodes int `mapstructure:"episodes" yaml:"episodes" json:"episodes"`
}

// checkSensitivity validates eval.sensitivity; the grid and the listed
// parts' sections matter only when the experiment is listed.
func checkSensitivity(c *Config, listed bool) []error {
	const key = "eval.sensitivity"
	s := SensitivitySection.Get(c)
	var errs []error
	seen := map[string]bool{}
	for i, p := range s.Parts {
		if !slices.Contains(SensitivityParts(), p) {
			errs = append(errs, fmt.Errorf("%s.parts[%d]: unknown part %q (known: %v)", key, i, p, SensitivityParts()))
		} else if seen[p] {
			errs = append(errs, fmt.Errorf("%s.parts[%d]: %q listed twice", key, i, p))
		}
		seen[p] = true
	}
	if !listed {
		return errs
	}
	if len(s.Parts) == 0 {
		errs = append(errs, fmt.Errorf("%s.parts: give at least one of %v", key, SensitivityParts()))
	}
	for _, ax := range []struct {
		key string
		v   []float64
	}{{key + ".comm_scales", s.CommScales}, {key + ".interference_scales", s.InterferenceScales}} {
		if len(ax.v) == 0 {
			errs = append(errs, fmt.Errorf("%s: give at least one multiplier", ax.key))
		}
		for i, m := range ax.v {
			switch {
			case !(m >= SensitivityMinScale && m <= SensitivityMaxScale):
				errs = append(errs, fmt.Errorf("%s[%d]: must be in [%g, %g], got %v", ax.key, i, SensitivityMinScale, SensitivityMaxScale, m))
			case i > 0 && !(m > ax.v[i-1]):
				errs = append(errs, fmt.Errorf("%s[%d]: must be greater than the one before (%v), got %v", ax.key, i, ax.v[i-1], m))
			}
		}
	}
	if seen[SensitivityMARLDevice] {
		m := s.MARLDevice
		errs = append(errs, checkHeuristics(key+".marl_device.heuristics", m.Heuristics)...)
		if m.K < 2 || m.K%2 != 0 {
			errs = append(errs, fmt.Errorf("%s.marl_device.k: must be even and >= 2, got %d", key, m.K))
		} else if err := (sim.ClusterSpec{Topology: "fattree", K: m.K, Servers: "power8"}).Validate(); err != nil {
			errs = append(errs, fmt.Errorf("%s.marl_device.k: %w", key, err))
		}
		if m.Intervals < 1 || m.TrainIntervals < 1 || m.Intervals > MaxIntervals || m.TrainIntervals > MaxIntervals {
			errs = append(errs, fmt.Errorf("%s.marl_device.intervals, train_intervals: must be in [1, %d], got %d, %d", key, MaxIntervals, m.Intervals, m.TrainIntervals))
		}
		if m.Episodes < 0 {
			errs = append(errs, fmt.Errorf("%s.marl_device.episodes: must be >= 0, got %d", key, m.Episodes))
		}
		for i, l := range m.Loads {
			if !(l > 0 && l <= MaxLoadMultiplier) || slices.Index(m.Loads, l) < i {
				errs = append(errs, fmt.Errorf("%s.marl_device.loads[%d]: must be in (0, %d] and not given twice, got %v", key, i, MaxLoadMultiplier, l))
			}
		}
		for i, r := range m.Sockets {
			if !slices.Contains(sim.SocketRules, r) || slices.Index(m.Sockets, r) < i {
				errs = append(errs, fmt.Errorf("%s.marl_device.sockets[%d]: must be one of %v, each once, got %q", key, i, sim.SocketRules, r))
			}
		}
	}
	if seen[SensitivityDAS] {
		d := s.DAS
		errs = append(errs, checkHeuristics(key+".das.heuristics", d.Heuristics)...)
		if !slices.Contains([]string{"small", "medium", "large"}, d.Cluster) {
			errs = append(errs, fmt.Errorf("%s.das.cluster: must be small, medium or large, got %q", key, d.Cluster))
		}
		if d.Episodes < 1 {
			errs = append(errs, fmt.Errorf("%s.das.episodes: must be >= 1, got %d", key, d.Episodes))
		}
	}
	return errs
}

// MaxLoadMultiplier bounds eval.sensitivity.marl_device.loads: 20 times
// the paper's load fills a power8 fat-tree many times over.
const MaxLoadMultiplier = 20

// The sensitivity multipliers' range: with the environment's own ranges
// (sim.EnvironmentParams) it keeps a grid point a valid environment for
// any calibrated value not at the edge of its range.
const (
	SensitivityMinScale float64 = 0.01
	SensitivityMaxScale float64 = 100
)

// checkHeuristics checks a list of heuristics: at least one, each a
// registered scheduler that is not learned.
func checkHeuristics(key string, names []string) []error {
	if len(names) == 0 {
		return []error{fmt.Errorf("%s: give at least one heuristic", key)}
	}
	errs := checkSchedulers(key, names)
	for i, n := range names {
		if info, ok := schedulers.Lookup(n); ok && info.Learned() {
			errs = append(errs, fmt.Errorf("%s[%d]: %s is a learned scheduler, want a heuristic", key, i, n))
		}
	}
	return errs
}

// DASRIFLING is the RIFLING row DAS is compared against (Table 3, Figs. 5
// and 7): RIFLING as the DAS paper ran it, with PPO on DAS's features
// (App. D). The tabular form, rifling (its own paper's), is an extra row
// where it is cheap, never the one these comparisons read.
const DASRIFLING = "rifling-ppo"

// DASHeuristics are the heuristic and meta-heuristic rows of DAS Table 1, in
// the table's order.
var DASHeuristics = []string{"fifo-firstfit", "fifo-loadbalance", "drf-firstfit", "drf-loadbalance", "tetris", "malo", "mosa"}

// MARLHeuristics are the heuristic baselines of MARL Fig. 7. The MARL
// paper's Tetris packs a job's workers and PSs onto as few servers as
// possible (tetris-pack), unlike the DAS paper's (tetris: the server best
// aligned with the demand, which spreads a job over the emptiest servers).
var MARLHeuristics = []string{"tetris-pack", "load-balancing", "lif"}

// dasSpec is what the DAS-paper experiments share: Small, Medium, Large (8,
// 16, 32 pai-v100 servers); the PAI trace (first 20,000 jobs, 8:2 split;
// the PAI-like generator with 20,000 jobs when no file is given); the seven
// heuristic and meta-heuristic rows of DAS Table 1; event triggers; the
// full speed model (interference and communication, so that placement
// changes run time and hence fee).
func dasSpec(id string) Spec {
	s := Spec{
		Experiment: id,
		Workloads:  []Workload{{Name: "pai", Kind: KindTrace, SyntheticJobs: 20000, MaxJobs: 20000, TestFraction: 0.2}},
		Schedulers: append([]string(nil), DASHeuristics...),
		Seeds:      1,
		Sim:        sim.DefaultConfig(),
	}
	for _, name := range []string{"small", "medium", "large"} {
		cs, _ := sim.Preset(name)
		s.Clusters = append(s.Clusters, Cluster{Name: name, Spec: cs})
	}
	return s
}

// loadWorkloads is base arriving at each rate, named x<rate>.
func loadWorkloads(base Workload, rates []float64) []Workload {
	var out []Workload
	for _, rate := range rates {
		w := base
		w.Name, w.ArrivalRate = LoadWorkloadName(rate), rate
		out = append(out, w)
	}
	return out
}

// configureDASTrace applies das-table1's trace settings, which the three
// DAS experiments share so that they evaluate the same jobs with the same
// models.
func configureDASTrace(c *Config, s *Spec) (fitted bool) {
	t := DASTable1Section.Get(c)
	for i := range s.Workloads {
		s.Workloads[i].MaxJobs, s.Workloads[i].TestFraction = t.MaxJobs, t.TestFraction
	}
	return t.FittedInterference
}

// marlSpec is what the MARL-paper experiments share: a fat-tree k=8 of
// power8 servers (8 pods of 16; the paper's scale is k=20, see the sim
// "fattree" preset), the paper's load scaled to the pod size
// (MARLPaperLoad: 2.4 jobs per pod per 30-minute interval) for 20
// intervals of uniform arrivals; Tetris (packing), LB, LIF; interval
// triggers every 1800 s; instances homed on the first socket that fits;
// C_J from the models' profiles.
func marlSpec(id string) Spec {
	cfg := sim.DefaultConfig()
	cfg.Trigger = sim.TriggerInterval
	cfg.IntervalS = 1800
	// The paper's baselines place instances on servers; a socket is the
	// framework's: the lowest free GPU's (docs/marl-operating-point.md).
	cfg.Socket = sim.SocketFirstFit
	// C_J is the model's standalone profile (MARL §IV-B), not the
	// request: the model type changes CPU interference.
	cfg.CPULoad = sim.CPULoadProfile
	return Spec{
		Experiment: id,
		Clusters:   []Cluster{{Name: "fattree-k8", Spec: sim.ClusterSpec{Topology: "fattree", K: 8, Servers: "power8"}}},
		Schedulers: append([]string(nil), MARLHeuristics...),
		Workloads:  []Workload{{Name: KindUniform, Kind: KindUniform, Intervals: 20}},
		Seeds:      1,
		Sim:        cfg,
	}
}

// configureMARLGrid applies a MARLGridConfig section; speeds follow
// marl-arrivals' fitted_interference, which holds for every MARL
// experiment.
func configureMARLGrid(c *Config, g MARLGridConfig, s *Spec) (fitted bool) {
	s.Schedulers = g.Schedulers
	if len(g.Clusters) > 0 {
		s.Clusters = g.Clusters
	}
	for i := range s.Workloads {
		s.Workloads[i].Intervals = g.Intervals
	}
	return MARLArrivalsSection.Get(c).FittedInterference
}

// Bounds of the experiments' sections, so that a typo cannot ask for more
// jobs than memory holds: MaxJobs is datasets.MaxSyntheticJobs;
// MaxJobsPerPod is about the paper's load (15 per 100 servers) on the
// largest fat-tree pod the simulator builds (k = 160: 6,400 servers); MaxIntervals is 200 days of
// 30-minute intervals; MaxRateFactor compresses a month-long trace into
// under an hour.
const (
	MaxJobs       = datasets.MaxSyntheticJobs
	MaxJobsPerPod = 1000
	MaxIntervals  = 10_000
	MaxRateFactor = 1000
)

func checkMARLGrid(key string, g MARLGridConfig, listed bool) []error {
	errs := checkSchedulers(key+".schedulers", g.Schedulers)
	if listed && g.Intervals < 1 || g.Intervals > MaxIntervals {
		errs = append(errs, fmt.Errorf("%s.intervals: must be in [1, %d], got %d", key, MaxIntervals, g.Intervals))
	}
	for i, cl := range g.Clusters {
		if err := cl.Spec.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("%s.clusters[%d] (%s): %w", key, i, cl.Name, err))
		} else if cl.Spec.Topology == "flat" || cl.Spec.Servers == "pai-v100" {
			errs = append(errs, fmt.Errorf("%s.clusters[%d] (%s): want a fattree, vl2 or bcube of power8, dgx1, hetero-cpu or mixed servers", key, i, cl.Name))
		}
	}
	return errs
}

func hasScheduler(s Spec, canon schedulers.Name) bool { return slices.Contains(learnedOf(s), canon) }

// learnedOf lists the spec's learned schedulers, canonical, in spec order
// (a name that is not registered is no learned scheduler; Validate
// reports it).
func learnedOf(s Spec) []schedulers.Name {
	var out []schedulers.Name
	for _, n := range s.Schedulers {
		if info, ok := schedulers.Lookup(n); ok && info.Learned() {
			out = append(out, info.Name)
		}
	}
	return out
}

// MustLookup is Lookup for an id registered in this package (a constant
// such as Calibration); it panics on any other: a programmer's error.
func MustLookup(id string) Experiment {
	e, err := Lookup(id)
	if err != nil {
		panic(err)
	}
	return e
}
