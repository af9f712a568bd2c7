package evaluation

import (
	"context"
	"fmt"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
)

// Calibration is the experiment comparing the calibrated environments
// with the papers' measurements of their own testbeds (DESIGN.md §4): a
// staged experiment, written by the calibrate stage.
const Calibration = "calibration"

// CalibrationSection is eval.calibration.
var CalibrationSection = NewSection[CalibrationConfig](Calibration)

// CalibrationConfig says which calibrated environments the calibrate stage
// fits besides marl-paper, which it always fits (a few dozen tiny
// scenarios, well under a second).
type CalibrationConfig struct {
	// DAS fits das-paper: some forty evaluations of five heuristic rows on
	// das-table1's three clusters and evaluated jobs, tens of seconds on
	// the nightly trace. Experiments run in das-paper (sim.environment)
	// need it.
	DAS bool `mapstructure:"das" yaml:"das" json:"das"`
}

// Registered before the run experiments (this file sorts first), so that
// it lists first: the report shows it before the tables that depend on the
// environment.
func init() {
	Register(Experiment{
		ID: Calibration, Reproduces: "MARL §II, Figs 1(a), 1(b), 2(b), 3(a), Table III; DAS Table 1 (heuristic rows)",
		Defaults: `# The calibrate stage always fits marl-paper (under a second); das: true
# also fits das-paper to DAS Table 1's heuristic spreads (some forty
# evaluations of five heuristics on das-table1's clusters and jobs: tens
# of seconds on the nightly trace). Experiments run in das-paper
# (sim.environment) need it.
das: true
`,
		Summary: `the calibrated environments against the papers' measurements:
marl-paper against MARL §II (mean slowdown of the eight Table I jobs
bin-packed, 30 %, and load-balanced, 37 %, on four 16-core 2-GPU
servers; the orderings of Figs 1(b) and 2(b); Table III's ranking of the
five interference models by cross-validated error) and das-paper against
DAS Table 1's heuristic rows on the PAI trace (best-to-worst mean-JCT
spread per cluster within 4–22 %, fee within 6 %). Written by the
calibrate stage.`,
		Section: ReportSection{"The speed model against the papers' own measurements (calibration)",
			"Each environment's free parameters (interference scale, communication scale, parameter-server share) fitted by least squares to its paper's measurements: marl-paper to the MARL paper's §II, das-paper to the spreads of DAS Table 1's heuristic rows; ours before and after calibration, with the paper's figures."},
		Stage:    "calibrate",
		Settings: CalibrationSection,
	})
}

// DASWorkload is what das-table1 simulates, as it builds it: its clusters
// (Small, Medium, Large, named), its simulator configuration (before the
// run's sim section), its heuristic rows (DASHeuristics) and its evaluated
// jobs, from the trace file jobsFile with c's trace settings (das_table1's
// max_jobs and test_fraction; configureDASTrace). The das-paper calibration
// (package calibration) simulates it.
type DASWorkload struct {
	Clusters   []*sim.Cluster
	Sim        sim.Config
	Heuristics []string
	Jobs       []datasets.Job
	// Fitted: das-table1's speeds come from the fitted interference model
	// (das_table1.fitted_interference), which the environment then scales.
	Fitted bool
	// Info accounts for the trace as das-table1's notes do.
	Info WorkloadInfo
}

// DASTable1Workload builds das-table1's DASWorkload from c and the trace
// file jobsFile (a canonical jobs Parquet file; required, as in the DAG).
func DASTable1Workload(ctx context.Context, c *Config, jobsFile string) (*DASWorkload, error) {
	spec := dasSpec(DASTable1)
	fitted := configureDASTrace(c, &spec)
	if len(spec.Workloads) != 1 || spec.Workloads[0].Kind != KindTrace {
		return nil, fmt.Errorf("evaluation: %s: want one trace workload, got %d", DASTable1, len(spec.Workloads))
	}
	if jobsFile == "" {
		// The generator's seed is the run's and the experiment's: a
		// workload built here would not be das-table1's.
		return nil, fmt.Errorf("evaluation: %s workload: no jobs file given", DASTable1)
	}
	w := spec.Workloads[0]
	w.JobsFile = jobsFile
	clusters := make([]*sim.Cluster, len(spec.Clusters))
	for i, cl := range spec.Clusters {
		built, err := cl.Spec.Build()
		if err != nil {
			return nil, fmt.Errorf("evaluation: %s: cluster %s: %w", DASTable1, cl.Name, err)
		}
		built.Name = cl.Name
		clusters[i] = built
	}
	// With a file the seed and replicate are not used.
	raw, src, err := loadTrace(ctx, w, 0, DASTable1, 0)
	if err != nil {
		return nil, fmt.Errorf("evaluation: %s: %w", DASTable1, err)
	}
	test, info, err := splitTrace(raw, clusters, spec.Sim, w)
	if err != nil {
		return nil, fmt.Errorf("evaluation: %s: %w", DASTable1, err)
	}
	info.Source = src
	return &DASWorkload{Clusters: clusters, Sim: spec.Sim, Heuristics: append([]string(nil), DASHeuristics...), Jobs: test, Fitted: fitted, Info: info}, nil
}
