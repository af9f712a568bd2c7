package stages

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/training"
)

// replicatedConfig is quickConfig with two learned rows, RIFLING in
// das-table1 and the device-level MARL policy in marl-arrivals, each with
// two independently trained models (train.seeds 2), and heuristics that
// stay single.
func replicatedConfig() *Config {
	cfg := dasAndMARLConfig([]string{"fifo-ff", "rifling"}, []string{"lb", "marl-device"})
	cfg.Train.Seeds = 2
	cfg.Train.Replicated = []string{"rifling", "marl-device@fattree-k4-power8"}
	return cfg
}

func trainStageNames(t *testing.T, cfg *Config) []string { return stageNames(t, cfg, "train-") }

// stageNames are the names of the stages of cfg's DAG that start with
// prefix, in DAG order.
func stageNames(t *testing.T, cfg *Config, prefix string) []string {
	t.Helper()
	dag, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range dag {
		if strings.HasPrefix(s.Name(), prefix) {
			names = append(names, s.Name())
		}
	}
	return names
}

// TestTrainSeedsStages: train.seeds adds a stage per further replicate of
// the selected models only; train.seeds 1 (and a list naming nothing the
// run trains) keeps the DAG of a single model.
func TestTrainSeedsStages(t *testing.T) {
	cfg := replicatedConfig()
	want := []string{"train-rifling", "train-rifling-replicate-1", "train-marl-device-fattree-k4-power8", "train-marl-device-fattree-k4-power8-replicate-1"}
	if got := trainStageNames(t, cfg); !slices.Equal(got, want) {
		t.Errorf("training stages %v, want %v", got, want)
	}
	cfg.Train.Replicated = []string{"marl-device@vl2-k4-power8", "das"} // not trained here
	if got := trainStageNames(t, cfg); !slices.Equal(got, []string{"train-rifling", "train-marl-device-fattree-k4-power8"}) {
		t.Errorf("selection of untrained models: training stages %v", got)
	}
	cfg.Train.Replicated, cfg.Train.Seeds = nil, 3 // every learned model
	if got := trainStageNames(t, cfg); len(got) != 6 {
		t.Errorf("train.seeds 3 for all: training stages %v, want 6", got)
	}
}

// TestTrainSeedsRun runs the replicated DAG with one worker and with two
// through the local executor (the trainings as tasks, as on Temporal):
// the replicates are different models (different weights, different
// metrics), the tables show intervals for the learned rows, and every
// output but the wall-clock ones is the same bytes in both runs (the task
// path once gave a replicate replicate 0's seeds). Under the race detector
// both runs are of the trainings and what they need, so that the models
// are compared but not their metrics and tables (calibration, evaluations
// and tables are 60 % of a run's CPU there); make test-norace runs them
// whole.
func TestTrainSeedsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("trains four models")
	}
	run := func(workers int, ex pipeline.Executor) string {
		cfg := replicatedConfig()
		cfg.Out, cfg.Workers = t.TempDir(), workers
		withUpstream(t, cfg.Out, 1)
		if err := runStages(t, cfg, 1, workers, ex, raceEnabled); err != nil {
			t.Fatal(err)
		}
		return cfg.Out
	}
	d1, d2 := run(1, nil), run(2, pipeline.Local{Workers: 2})

	if n := sameRun(t, d1, d2, "between 1 worker and 2 through the executor"); n < map[bool]int{false: 20, true: 11}[raceEnabled] {
		t.Errorf("compared %d files", n)
	}

	// The first of a family's files is its model (weights).
	for name, dir := range map[schedulers.Name]string{"rifling": "models/rifling", "marl-device": "models/marl-device/fattree-k4-power8"} {
		f, v, _ := training.VariantOf(name)
		weights := f.Files(v.ModelName())[0]
		a, err := os.ReadFile(filepath.Join(d1, dir, weights))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(d1, dir, "replicate-1", weights))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(a, b) {
			t.Errorf("%s: replicate 1 has replicate 0's weights", filepath.Join(dir, weights))
		}
	}
	if raceEnabled {
		return
	}

	rows, err := datasets.ReadParquet[evaluation.MetricsRow](filepath.Join(d1, EvalMetrics))
	if err != nil {
		t.Fatal(err)
	}
	byRep := map[string]map[int32]float64{}
	for _, r := range rows {
		if byRep[r.Scheduler+"@"+r.Cluster] == nil {
			byRep[r.Scheduler+"@"+r.Cluster] = map[int32]float64{}
		}
		byRep[r.Scheduler+"@"+r.Cluster][r.Replicate] = r.MeanJCTS
	}
	for key, reps := range byRep {
		learned := strings.HasPrefix(key, "rifling") || strings.HasPrefix(key, "marl-device")
		switch {
		case learned && len(reps) != 2:
			t.Errorf("%s: replicates %v, want 0 and 1", key, reps)
		case !learned && len(reps) != 1:
			t.Errorf("%s: heuristic with replicates %v", key, reps)
		}
	}
	if m := byRep["marl-device@fattree-k4"]; m[0] == m[1] {
		t.Errorf("marl-device's two models give the same mean JCT %v", m)
	}
	for file, row := range map[string]string{"tables/marl-arrivals.md": "| MARL (device-level) |", "tables/das-table1.md": "| RIFLING |"} {
		md, err := os.ReadFile(filepath.Join(d1, file))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(md), "\n") {
			if strings.HasPrefix(line, row) && !strings.Contains(line, " ± ") && file == "tables/marl-arrivals.md" {
				t.Errorf("%s: learned row without an interval: %s", file, line)
			}
		}
		if !strings.Contains(string(md), "percentile-bootstrap") {
			t.Errorf("%s: no note on intervals:\n%s", file, md)
		}
	}
}

// TestTrainingStageVersion: a training stage's version is the stages'
// and, for a family that names its revision (training.Versioned: MARL),
// the family's, so that a change of a family's code re-trains its cached
// models and no other stage's.
func TestTrainingStageVersion(t *testing.T) {
	dag, err := Build(replicatedConfig())
	if err != nil {
		t.Fatal(err)
	}
	marl, ok := training.Lookup("marl")
	if !ok {
		t.Fatal("no marl family")
	}
	mv := stageVersion + "/marl-" + training.Version(marl)
	seen := map[string]string{}
	for _, s := range dag {
		if strings.HasPrefix(s.Name(), "train-") {
			seen[s.Name()] = s.Version()
		}
	}
	want := map[string]string{
		"train-rifling":                                   stageVersion,
		"train-rifling-replicate-1":                       stageVersion,
		"train-marl-device-fattree-k4-power8":             mv,
		"train-marl-device-fattree-k4-power8-replicate-1": mv,
	}
	if !maps.Equal(seen, want) {
		t.Errorf("training stages' versions %v, want %v", seen, want)
	}
	if training.Version(marl) == "" {
		t.Error("the marl family names no revision")
	}
}

// TestPerClusterVariants: a variant built for one machine count
// (rifling-ppo, dl2-das) trains once per cluster it is evaluated on, while
// the others train once on train.das.cluster.
func TestPerClusterVariants(t *testing.T) {
	cfg := quickConfig()
	cfg.Eval.Experiments = []string{evaluation.DASTable1}
	evaluation.DASTable1Section.Edit(&cfg.Eval, func(s *evaluation.DASTable1Config) {
		s.Schedulers = []string{"fifo-ff", "rifling", "rifling-ppo", "dl2-das"}
	})
	got := trainStageNames(t, cfg)
	var want []string
	want = append(want, "train-rifling")
	for _, v := range []string{"rifling-ppo", "dl2-das"} {
		for _, cl := range []string{"flat-n8-pai-v100", "flat-n16-pai-v100", "flat-n32-pai-v100"} {
			want = append(want, "train-"+v+"-"+cl)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("training stages %v, want %v", got, want)
	}
}
