package stages

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path"
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
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/marl"
)

// paperProtocolConfig is quickConfig's marl-arrivals with marl-device,
// the Google 2011 trace ingested (a file Build only stats), trained on
// its arrival pattern and tested on arrival (MARL §VI-A).
func paperProtocolConfig(t *testing.T) *Config {
	t.Helper()
	cfg := quickConfig()
	cfg.DataDir = t.TempDir()
	if err := os.WriteFile(filepath.Join(cfg.DataDir, "google.csv"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.Datasets.Ingest = []IngestSpec{{Source: datasets.SourceGoogle2011, Inputs: []string{"google.csv"}}}
	cfg.Eval.Experiments = []string{evaluation.MARLArrivals, evaluation.MARLServers}
	evaluation.MARLArrivalsSection.Edit(&cfg.Eval, func(s *evaluation.MARLArrivalsConfig) { s.Schedulers = []string{"lb", "marl-device"} })
	evaluation.MARLServersSection.Edit(&cfg.Eval, func(s *evaluation.MARLGridConfig) { s.Schedulers = []string{"lb", "marl-device"} })
	evaluation.MARLArrivalsSection.Edit(&cfg.Eval, func(s *evaluation.MARLArrivalsConfig) { s.Placement = evaluation.PlacementArrival })
	marl.Section.Edit(&cfg.Train.Sections, func(m *marl.Settings) { m.Arrivals = marl.ArrivalsGoogle })
	return cfg
}

// TestMARLPaperProtocol: under train.marl.arrivals google the MARL
// trainings read the run's arrivals table (a stage input, and in the
// cache key), still in 30-minute batches, and marl-arrivals' placement
// arrival makes its cells decide on every arrival, while an experiment
// that batches shares the model; without an ingested table the plan
// refuses, naming the key. The uniform training's cache key has no
// pattern in it (unchanged).
func TestMARLPaperProtocol(t *testing.T) {
	cfg := paperProtocolConfig(t)
	dag, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	table := path.Join(IngestDir(datasets.SourceGoogle2011), datasets.ArrivalsFile)
	var trains int
	for _, st := range dag {
		if !strings.HasPrefix(st.Name(), "train-marl-device") {
			continue
		}
		trains++
		if !slices.Contains(st.Inputs(), table) {
			t.Errorf("%s: inputs %v lack the arrivals table %s", st.Name(), st.Inputs(), table)
		}
		mt := st.Config().(*plan.Training)
		if mt.Data.Pattern != marl.ArrivalsGoogle || mt.Data.ArrivalsFile != table || mt.Sim.Trigger != sim.TriggerInterval {
			t.Errorf("%s: data %+v, trigger %s: want the google pattern of %s, interval triggers", st.Name(), mt.Data, mt.Sim.Trigger, table)
		}
		raw, _ := json.Marshal(mt)
		if !strings.Contains(string(raw), `"pattern":"google"`) {
			t.Errorf("%s: cache key %s lacks the pattern", st.Name(), raw)
		}
	}
	if trains == 0 {
		t.Fatal("no marl-device training stage")
	}
	p, err := plan.New(cfg.Plan(), table)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := p.Experiment(evaluation.MARLArrivals)
	if x.Spec.Sim.Trigger != sim.TriggerEvent {
		t.Errorf("marl-arrivals under placement arrival: trigger %s, want %s", x.Spec.Sim.Trigger, sim.TriggerEvent)
	}
	if y, _ := p.Experiment(evaluation.MARLServers); y.Spec.Sim.Trigger != sim.TriggerInterval {
		t.Errorf("marl-servers: trigger %s, want %s", y.Spec.Sim.Trigger, sim.TriggerInterval)
	}

	cfg.Datasets.Ingest = nil
	if _, err := Build(cfg); err == nil || !strings.Contains(err.Error(), "train.marl.arrivals") {
		t.Errorf("google pattern without an arrivals table: err %v, want one naming train.marl.arrivals", err)
	}

	cfg = paperProtocolConfig(t)
	marl.Section.Edit(&cfg.Train.Sections, func(m *marl.Settings) { m.Arrivals = marl.ArrivalsUniform })
	mt, err := cfg.Plan().Training("marl-device", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if raw, _ := json.Marshal(mt.Data); strings.Contains(string(raw), "pattern") || strings.Contains(string(raw), "arrivals") {
		t.Errorf("uniform training's data %s names a pattern: its cache key changed", raw)
	}
}

// TestMARLTrainingGooglePattern: a google-pattern training workload
// follows the table (no job in an interval with no arrivals, about three
// times as many in one with three times the arrivals), and is a function of the seed: the same at seeds 1 and 7
// drawn twice, different between them.
func TestMARLTrainingGooglePattern(t *testing.T) {
	cfg := paperProtocolConfig(t)
	p, err := plan.New(cfg.Plan(), "datasets/google-2011/arrivals.parquet")
	if err != nil {
		t.Fatal(err)
	}
	x, _ := p.Experiment(evaluation.MARLArrivals)
	mt, err := p.Config.TrainingOf("marl-device", plan.WithoutArrivals(x.Spec), false, x.Spec.Clusters[0])
	if err != nil {
		t.Fatal(err)
	}
	mt.Data.Intervals, mt.Data.JobsPerPod = 4, 5
	arrivals := []datasets.Arrival{{Interval: 0, Jobs: 30}, {Interval: 1, StartS: 1800, Jobs: 0}, {Interval: 2, StartS: 3600, Jobs: 90}, {Interval: 3, StartS: 5400, Jobs: 40}}
	cluster, err := mt.ClusterSpec.Build()
	if err != nil {
		t.Fatal(err)
	}
	draw := func(seed uint64) []datasets.Job {
		in := mt.Inputs(seed)
		data, err := plan.TrainingData(mt.Data, cluster, mt.Sim, nil, arrivals, in.Workload)
		if err != nil {
			t.Fatal(err)
		}
		// The training jobs keep their times (the held-out ones are
		// shifted back to start near 0).
		return data.Train
	}
	for _, seed := range []uint64{1, 7} {
		jobs := draw(seed)
		per := make([]int, 4)
		for _, j := range jobs {
			per[int(math.Floor(j.SubmitS/1800))]++
		}
		if per[1] != 0 || per[2] <= 2*per[0] {
			t.Errorf("seed %d: training jobs per interval %v do not follow the table's 30, 0, 90, 40", seed, per)
		}
		if again := draw(seed); !reflect.DeepEqual(jobs, again) {
			t.Errorf("seed %d: two draws differ", seed)
		}
	}
	if reflect.DeepEqual(draw(1), draw(7)) {
		t.Error("seeds 1 and 7 draw the same training jobs")
	}
	if _, err := plan.TrainingData(mt.Data, cluster, mt.Sim, nil, nil, pipeline.Rand(1, "x")); err == nil {
		t.Error("google pattern without rows: no error")
	}
}

// TestPlacementOnArrival: under placement arrival a job is placed when it
// arrives (here every job of an idle cluster starts at its submission),
// under batch at the next interval boundary.
func TestPlacementOnArrival(t *testing.T) {
	cfg := quickConfig()
	for _, placement := range []string{evaluation.PlacementBatch, evaluation.PlacementArrival} {
		evaluation.MARLArrivalsSection.Edit(&cfg.Eval, func(s *evaluation.MARLArrivalsConfig) { s.Placement = placement })
		x, err := cfg.Plan().Experiment(evaluation.MARLArrivals, "")
		if err != nil {
			t.Fatal(err)
		}
		cluster, err := x.Spec.Clusters[0].Spec.Build()
		if err != nil {
			t.Fatal(err)
		}
		jobs := []datasets.Job{{JobID: "a", SubmitS: 100, DurationS: 600, Model: "resnet-50",
			Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: 1, GPU: 1, CPU: 6, MemGiB: 8}, {Role: datasets.RolePS, Instances: 1, CPU: 1, MemGiB: 8}}}}
		s, err := schedulers.New("lb", schedulers.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := sim.Run(context.Background(), cluster, jobs, s, x.Spec.Sim, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := 1800.0
		if placement == evaluation.PlacementArrival {
			want = 100
		}
		if got := res.Jobs[0].StartS; got != want {
			t.Errorf("placement %s: started at %g, want %g", placement, got, want)
		}
	}
}
