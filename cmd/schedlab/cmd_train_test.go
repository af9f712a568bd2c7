package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/plan"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/stages"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/trainingtest"
)

// learnedEnv names every learned family in the quick preset's
// experiments (das-table1: das, dl2, rifling; marl-arrivals: the MARL
// variants, DeepSys, Atte) with the simulator's default interference, so
// that `schedlab run` has a training stage for each.
func learnedEnv(t *testing.T) {
	t.Setenv("SCHEDLAB_EVAL_DAS_TABLE1_SCHEDULERS", "fifo-ff,das,dl2,dl2-das,rifling,rifling-ppo")
	t.Setenv("SCHEDLAB_EVAL_MARL_ARRIVALS_SCHEDULERS", "lb,marl-device,marl-server,marl-single,deepsys,atte")
	t.Setenv("SCHEDLAB_EVAL_MARL_ARRIVALS_FITTED_INTERFERENCE", "false")
}

// evaluatedIDs are the ids of the jobs das-table1 of cfg evaluates on
// trace (any cluster), found by running its FIFO row.
func evaluatedIDs(t *testing.T, cfg *stages.Config, trace []datasets.Job) map[string]bool {
	t.Helper()
	file := filepath.Join(t.TempDir(), "jobs.parquet")
	if err := datasets.WriteParquet(file, datasets.FileMeta{Source: "test"}, trace); err != nil {
		t.Fatal(err)
	}
	spec, err := evaluation.DefaultSpec(evaluation.DASTable1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range spec.Workloads {
		w := &spec.Workloads[i]
		t1 := evaluation.DASTable1Section.Get(&cfg.Eval)
		w.JobsFile, w.MaxJobs, w.TestFraction = file, t1.MaxJobs, t1.TestFraction
	}
	return trainingtest.EvaluatedJobIDs(t, spec, cfg.Seed)
}

func jobIDs(jobs []datasets.Job) []string {
	var out []string
	for _, j := range jobs {
		out = append(out, j.JobID)
	}
	return out
}

// TestTrainMatchesRun: for every training stage of schedlab run (every
// learned family), schedlab train --family F --variant V without other
// flags builds the same training: the same configuration, simulator
// settings, cluster, seed and training and validation jobs (one source
// for every default: the run's configuration); and none of those jobs is
// one that das-table1 evaluates, nor both trains and validates.
func TestTrainMatchesRun(t *testing.T) {
	learnedEnv(t)
	cfg, err := loadConfig(configSource{})
	if err != nil {
		t.Fatal(err)
	}
	dag, err := stages.Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	trace, err := cfg.Trace(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	evaluated := evaluatedIDs(t, cfg, trace)
	got := map[schedulers.Name]training.TrainSpec{}
	trainSpecHook = func(s training.TrainSpec) error { got[s.Variant] = s; return nil }
	defer func() { trainSpecHook = nil }()
	families := map[string]bool{}
	for _, st := range dag {
		mt, ok := st.Config().(*plan.Training)
		if !ok {
			continue
		}
		f := mt.Family()
		families[f.Name()] = true
		args := []string{"train", "--family", f.Name(), "--variant", string(mt.Scheduler), "--out", t.TempDir()}
		if _, v, _ := training.VariantOf(mt.Scheduler); v.PerCluster {
			// One model per evaluated cluster: the run trains each.
			args = append(args, "--cluster", mt.Cluster)
		}
		if code := execute(args); code != 0 {
			t.Fatalf("train %s: exit %d", mt.Scheduler, code)
		}
		cli, ok := got[mt.Scheduler]
		if !ok {
			t.Fatalf("train %s built no spec", mt.Scheduler)
		}
		run, err := mt.Spec("", plan.TrainInputs{Trace: trace, Workload: pipeline.Rand(cfg.Seed, pipeline.StageStream(st.Name()), "workload")})
		if err != nil {
			t.Fatal(err)
		}
		seed, _ := pipeline.Seed(cfg.Seed, pipeline.StageStream(st.Name()), "model")
		cc, _ := json.Marshal(cli.Config)
		rc, _ := json.Marshal(run.Config)
		if cli.Seed != seed || cli.ClusterName != run.ClusterName || !reflect.DeepEqual(cli.Sim, run.Sim) || string(cc) != string(rc) ||
			cli.Interference != nil || len(cli.Cluster.Servers) != len(run.Cluster.Servers) {
			t.Errorf("%s: schedlab train builds seed %d, cluster %s, sim %+v, config %s; schedlab run: %d, %s, %+v, %s",
				mt.Scheduler, cli.Seed, cli.ClusterName, cli.Sim, cc, seed, run.ClusterName, run.Sim, rc)
		}
		if !slices.Equal(jobIDs(cli.Data.Train), jobIDs(run.Data.Train)) || !slices.Equal(jobIDs(cli.Data.Val), jobIDs(run.Data.Val)) {
			t.Errorf("%s: schedlab train and schedlab run train or validate on different jobs", mt.Scheduler)
		}
		trainingtest.CheckNoLeak(t, string(mt.Scheduler), cli, evaluated)
	}
	if len(families) != len(training.Families()) {
		t.Errorf("families checked %v, want all of %v", families, training.Families())
	}
}

// TestTrainCommand trains one variant of every family into a model
// directory that schedulers.New opens. Under the race detector it trains
// three, a family training on the trace (DL²) and the two training on
// MARL workloads: DAS and RIFLING take 10 of the 15 s of CPU the five
// take there (2.4 s without), and their trainers are their own packages'
// tests' under the detector; make test-norace trains all five.
func TestTrainCommand(t *testing.T) {
	for _, tc := range []struct{ family, variant string }{
		{"das", "da+mc"}, {"dl2", ""}, {"rifling", ""}, {"marl", "marl-server"}, {"deepsys", "atte"},
	} {
		if raceEnabled && (tc.family == "das" || tc.family == "rifling") {
			continue
		}
		out := filepath.Join(t.TempDir(), "m")
		args := []string{"train", "--family", tc.family, "--out", out, "--set", "train.das.segment_jobs=40", "--set", "train.marl.episodes=1",
			"--set", "train.marl.atte_episodes=1", "--set", "datasets.synthetic.jobs=400"}
		if tc.variant != "" {
			args = append(args, "--variant", tc.variant)
		}
		stdout, stderr, code := schedlab(t, nil, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		v := tc.variant
		if v == "" {
			v = tc.family
		}
		if !strings.Contains(stdout, v+" on ") || !strings.Contains(stdout, "curves.svg") {
			t.Errorf("%s: stdout %q", v, stdout)
		}
		f, _ := training.Lookup(tc.family)
		for _, file := range append(f.Files(schedulers.Name(v)), "curves.png") {
			if st, err := os.Stat(filepath.Join(out, file)); err != nil || st.Size() == 0 {
				t.Errorf("%s: %s: %v", v, file, err)
			}
		}
		if _, err := schedulers.New(schedulers.Name(v), schedulers.Options{Model: out}); err != nil {
			t.Errorf("%s: %v", v, err)
		}
	}
}

func TestTrainUsage(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--family", "nope"}, `--family "nope"`},
		{[]string{"--family", "marl", "--variant", "pod"}, `--variant "pod" is not one of marl's (marl-device, marl-server, marl-device-paper, marl-single)`},
		{[]string{"--family", "das", "--cluster", "huge"}, "train.das.cluster"},
		{[]string{"--family", "marl", "--cluster", "torus"}, `no cluster "torus"`},
		{[]string{"--family", "das", "--jobs", filepath.Join(out, "none.parquet")}, "none.parquet"},
		{[]string{"--family", "marl", "--interference", "/nonexistent/model.json"}, "--interference"},
		{[]string{"--family", "das", "--set", "train.das.episodes"}, "KEY=VALUE"},
		{[]string{"--family", "das", "--set", "train.das.episodes=-1"}, "train.das.episodes"},
		// marl-arrivals runs in marl-paper: its file is needed, and only there.
		{[]string{"--family", "marl", "--set", "sim.environment=paper", "--set", "eval.calibration.das=true"}, "runs in the calibrated environment marl-paper: give its file with --environment"},
		{[]string{"--family", "das", "--environment", filepath.Join(out, "env.json")}, "runs in no calibrated environment"},
		{[]string{"--family", "marl", "--set", "sim.environment=paper", "--set", "eval.calibration.das=true", "--environment", filepath.Join(out, "env.json")}, "--environment"},
	} {
		_, stderr, code := schedlab(t, nil, append([]string{"train", "--out", out}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestTrainHelpAligned: the families' variants start in one column of
// train --help, whatever the length of a family's name (rifling-ppo's
// used to push its list out of line).
func TestTrainHelpAligned(t *testing.T) {
	stdout, _, code := schedlab(t, nil, "train", "--help")
	if code != 0 {
		t.Fatalf("train --help: exit %d", code)
	}
	_, list, ok := strings.Cut(stdout, "Families and their variants (the first is the default):\n")
	if !ok {
		t.Fatalf("train --help lists no families:\n%s", stdout)
	}
	list, _, _ = strings.Cut(list, "\n\n")
	col := -1
	for _, line := range strings.Split(list, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			t.Fatalf("line %q: want a family and its variants", line)
		}
		rest := line[strings.Index(line, f[0])+len(f[0]):]
		at := len(line) - len(strings.TrimLeft(rest, " "))
		if col >= 0 && at != col {
			t.Errorf("line %q: variants start at column %d, the first line's at %d", line, at, col)
		}
		col = at
	}
}

// TestTrainResumes: a DAS training interrupted after its first of two
// episodes leaves its state in --out and exits non-zero; the same command
// then continues from it and writes the same files, byte for byte, as a
// training that ran through, and removes the state. Under the race
// detector it is skipped (DAS's trainer and its resume are its
// package's tests there); make test-norace runs it.
func TestTrainResumes(t *testing.T) {
	if raceEnabled {
		t.Skip("three DAS trainings: make test-norace runs it")
	}
	args := func(out string) []string {
		return []string{"train", "--family", "das", "--out", out, "--set", "train.das.episodes=2", "--set", "train.das.segment_jobs=40",
			"--set", "datasets.synthetic.jobs=400", "--log-level", "error"}
	}
	through, cut := filepath.Join(t.TempDir(), "m"), filepath.Join(t.TempDir(), "m")
	if code := execute(args(through)); code != 0 {
		t.Fatalf("uninterrupted training: exit %d", code)
	}
	trainProgressHook = func(done int) bool { return done == 1 }
	code := execute(args(cut))
	trainProgressHook = nil
	states, _ := filepath.Glob(filepath.Join(cut, "resume-*.state"))
	if code == 0 || len(states) != 1 {
		t.Fatalf("interrupted after episode 1: exit %d, state files %v; want an error and one state", code, states)
	}
	var episodes []int
	trainProgressHook = func(done int) bool { episodes = append(episodes, done); return false }
	defer func() { trainProgressHook = nil }()
	if code := execute(args(cut)); code != 0 {
		t.Fatalf("resumed training: exit %d", code)
	}
	if !slices.Equal(episodes, []int{2}) {
		t.Errorf("the resumed training reported episodes %v, want [2]", episodes)
	}
	want, err := os.ReadDir(through)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range want {
		names = append(names, e.Name())
		a, _ := os.ReadFile(filepath.Join(through, e.Name()))
		b, err := os.ReadFile(filepath.Join(cut, e.Name()))
		if err != nil || string(a) != string(b) {
			t.Errorf("%s differs between the resumed and the uninterrupted training (%v)", e.Name(), err)
		}
	}
	got, _ := os.ReadDir(cut)
	if len(got) != len(want) {
		t.Errorf("resumed training left %d files, the uninterrupted one %d (%v)", len(got), len(want), names)
	}
}

// TestTrainReplicate: --replicate R trains schedlab run's replicate R of
// the model, from the same streams.
func TestTrainReplicate(t *testing.T) {
	cfg, err := loadConfig(configSource{})
	if err != nil {
		t.Fatal(err)
	}
	mt, err := cfg.Plan().Training("dl2", "", "")
	if err != nil {
		t.Fatal(err)
	}
	var got []training.TrainSpec
	trainSpecHook = func(s training.TrainSpec) error { got = append(got, s); return nil }
	defer func() { trainSpecHook = nil }()
	for _, r := range []string{"0", "2"} {
		if code := execute([]string{"train", "--family", "dl2", "--replicate", r, "--out", t.TempDir()}); code != 0 {
			t.Fatalf("--replicate %s: exit %d", r, code)
		}
	}
	if code := execute([]string{"train", "--family", "dl2", "--replicate", "-1", "--out", t.TempDir()}); code == 0 {
		t.Error("--replicate -1 accepted")
	}
	if len(got) != 2 {
		t.Fatalf("%d specs built, want 2", len(got))
	}
	for i, m := range []*plan.Training{mt, mt.Replica(2)} {
		if want := m.Inputs(cfg.Seed).Seed; got[i].Seed != want {
			t.Errorf("replicate %d: model seed %d, schedlab run's %d", m.Replicate, got[i].Seed, want)
		}
	}
	if got[0].Seed == got[1].Seed {
		t.Error("replicates 0 and 2 train from the same seed")
	}
}
