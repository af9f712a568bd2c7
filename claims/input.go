package claims

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/internal/csvtable"
)

// CalibrationFile is the calibration experiment's table that the
// calibration claims read, relative to a run directory.
const CalibrationFile = "tables/" + evaluation.Calibration + ".csv"

// Cell is one evaluated cell's figures, as eval/metrics.parquet holds
// them (evaluation.MetricsRow). Replicate is the learned model's replicate
// (0 for heuristics, and for every row of a run from before replicates).
type Cell struct {
	Experiment string  `parquet:"experiment"`
	Cluster    string  `parquet:"cluster"`
	Workload   string  `parquet:"workload"`
	Scheduler  string  `parquet:"scheduler"`
	Seed       int32   `parquet:"seed"`
	Replicate  int32   `parquet:"replicate,optional"`
	Jobs       int32   `parquet:"jobs"`
	MeanJCTS   float64 `parquet:"mean_jct_s"`
	MeanFeeUSD float64 `parquet:"mean_fee_usd"`
	// FloorJCTS is the cell's floor (evaluation.MetricsRow.FloorJCTS); 0
	// in a run from before floors: unknown.
	FloorJCTS float64 `parquet:"floor_jct_s,optional"`
	// The cell's operating point (evaluation.MetricsRow): GPU and CPU
	// utilisation and mean queueing delay; 0 in a run from before them.
	GPUUtil    float64 `parquet:"gpu_util,optional"`
	CPUUtil    float64 `parquet:"cpu_util,optional"`
	MeanQueueS float64 `parquet:"mean_queue_s,optional"`
}

// Job is one evaluated job of one cell, as eval/results.parquet holds it
// (evaluation.ResultRow): what the paired tests read.
type Job struct {
	Experiment string  `parquet:"experiment"`
	Cluster    string  `parquet:"cluster"`
	Workload   string  `parquet:"workload"`
	Scheduler  string  `parquet:"scheduler"`
	Seed       int32   `parquet:"seed"`
	Replicate  int32   `parquet:"replicate,optional"`
	JobID      string  `parquet:"job_id"`
	JCTS       float64 `parquet:"jct_s"`
	FeeUSD     float64 `parquet:"fee_usd"`
}

// CalibrationRow is one row of tables/calibration.csv.
type CalibrationRow struct {
	Environment, Target, Paper, Before, Ours, Tolerance string
	Within                                              bool
}

// Input is what the claims are decided from: the run's configuration and
// seed, its per-cell metrics, its calibration table and, read when a
// paired test asks for them, its per-job results.
type Input struct {
	// Run is what the claims know of the run besides its files: its eval
	// section, seed, trace source and the learned rows' training episodes
	// (in.Config, in.Seed, in.Trace, in.Episodes).
	Run
	Cells       []Cell
	Calibration []CalibrationRow
	// Results returns the per-job results; nil when there are none.
	Results func() ([]Job, error)
	// Failed are the rows the run's experiments recorded as failed
	// (evaluation.FailedRowsFile: an external policy with on_error: row):
	// a claim that needs one is not run, and says which row failed.
	Failed []evaluation.FailedRowRecord

	jobs    []Job
	jobsErr error
	read    bool
}

// Listed reports whether the run's configuration lists the experiment.
func (in *Input) Listed(experiment string) bool {
	return slices.Contains(in.Config.Experiments, experiment)
}

// jobsOf is the per-job results of the run (read once).
func (in *Input) jobsOf() ([]Job, error) {
	if !in.read {
		in.read = true
		if in.Results == nil {
			in.jobsErr = errors.New("no per-job results")
		} else {
			in.jobs, in.jobsErr = in.Results()
		}
	}
	return in.jobs, in.jobsErr
}

// Run is what the claims know of a run besides its output files.
type Run struct {
	// Config is the run's eval section: which experiments ran and how.
	Config *evaluation.Config
	// Seed is the run seed: it seeds every bootstrap (one stream per claim).
	Seed uint64
	// Trace is the source of the run's job trace (datasets.source:
	// pai-sim, synthetic-pai, elasticflow, ...); a DAS claim is tested only
	// on the DAS paper's own (evaluation.PaperTraces). "" is not checked.
	Trace string
	// Episodes is, by learned scheduler, the episodes its models were
	// trained for (the MARL claims' "tested at" says it beside the paper's
	// training); a scheduler missing from it is not said.
	Episodes map[string]int
	// TrainArrivals is, by learned scheduler, the arrival pattern its
	// models' training jobs followed, in words (training.TrainingArrivals;
	// missing means uniform): the MARL claims' "tested at" says it beside
	// the paper's (the Google pattern).
	TrainArrivals map[string]string
	// NotLearned is, for the learned rows' models in a cluster of an
	// experiment, why they did not measurably learn (their family's
	// judgement on their learning curves, training.NotLearned; with
	// several models, which did not): a claim whose claimed row rests on
	// them is untestable here. Missing: they learned, or their family
	// cannot say.
	NotLearned map[Model]string
}

// Model names the models of a learned row in one cluster of an
// experiment: what Run.NotLearned judges.
type Model struct{ Experiment, Scheduler, Cluster string }

// notLearned is why row's models in the experiment's clusters did not
// measurably learn ("DAS did not learn: …"), naming the clusters when
// named (a claim that covers several), those with the same reason (one
// model serving them all) together; "" when all learned or their family
// cannot say.
func (in *Input) notLearned(experiment, row string, clusters []string, named bool) string {
	var whys []string
	on := map[string][]string{}
	for _, cl := range clusters {
		if why, ok := in.NotLearned[Model{experiment, row, cl}]; ok {
			if _, seen := on[why]; !seen {
				whys = append(whys, why)
			}
			on[why] = append(on[why], title(cl))
		}
	}
	parts := make([]string, len(whys))
	for i, why := range whys {
		where := ""
		if named {
			where = " on " + and(on[why])
		}
		parts[i] = fmt.Sprintf("%s did not learn%s: %s", display(row), where, why)
	}
	return strings.Join(parts, "; ")
}

// and lists words as people do: "Small, Medium and Large".
func and(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// Load reads a run directory's outputs for the claims: eval/metrics.parquet
// when the run evaluated a run experiment, each experiment's failed rows,
// tables/calibration.csv when it listed the calibration, and
// eval/results.parquet lazily.
func Load(dir string, run Run) (*Input, error) {
	in := &Input{Run: run}
	metrics := filepath.Join(dir, filepath.FromSlash(evaluation.MetricsFile))
	if _, err := os.Stat(metrics); err == nil {
		cells, err := datasets.ReadParquet[Cell](metrics)
		if err != nil {
			return nil, fmt.Errorf("claims: %w", err)
		}
		in.Cells = cells
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("claims: %w", err)
	}
	results := filepath.Join(dir, filepath.FromSlash(evaluation.ResultsFile))
	in.Results = func() ([]Job, error) {
		jobs, err := datasets.ReadParquet[Job](results)
		if err != nil {
			return nil, fmt.Errorf("claims: %w", err)
		}
		return jobs, nil
	}
	for _, id := range run.Config.Experiments {
		rows, err := evaluation.ReadFailedRows(filepath.Join(dir, "eval", id, evaluation.FailedRowsFile))
		if err != nil {
			return nil, fmt.Errorf("claims: %w", err)
		}
		in.Failed = append(in.Failed, rows...)
	}
	if in.Listed(evaluation.Calibration) {
		rows, err := ReadCalibration(filepath.Join(dir, filepath.FromSlash(CalibrationFile)))
		if err != nil {
			return nil, err
		}
		in.Calibration = rows
	}
	return in, nil
}

var calibrationHeader = []string{"environment", "target", "paper", "ours_before", "ours", "tolerance", "within"}

// ReadCalibration reads tables/calibration.csv (calibration.Report.CSV):
// a header, then one row per target whose within column is yes or no.
// Errors name the file and line.
func ReadCalibration(path string) ([]CalibrationRow, error) {
	var rows []CalibrationRow
	err := csvtable.Read(path, calibrationHeader, func(rec []string, pos func(int) (int, int)) error {
		row := CalibrationRow{Environment: rec[0], Target: rec[1], Paper: rec[2], Before: rec[3], Ours: rec[4], Tolerance: rec[5]}
		switch rec[6] {
		case "yes":
			row.Within = true
		case "no":
		default:
			line, _ := pos(6)
			return fmt.Errorf("%s: line %d: field within: want yes or no, got %q", path, line, rec[6])
		}
		rows = append(rows, row)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("claims: %w", err)
	}
	return rows, nil
}

func nanValue() float64 { return math.NaN() }

// absent is the note of a claim that cannot run because names are not
// rows of experiment: the rows among them that failed say so, with their
// cell and error; otherwise usual (they were not run in this preset).
func (in *Input) absent(experiment string, names []string, usual string) string {
	var parts []string
	for _, f := range in.Failed {
		if f.Experiment == experiment && slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, f.Scheduler) }) {
			msg := f.Err
			if n := 200; len(msg) > n {
				for n > 0 && !utf8.RuneStart(msg[n]) {
					n--
				}
				msg = msg[:n] + "…"
			}
			parts = append(parts, fmt.Sprintf("not run: row %s failed at cell %s (%s)", display(f.Scheduler), f.Cell, msg))
		}
	}
	if parts == nil {
		return usual
	}
	return strings.Join(parts, "; ")
}
