package stages

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/pipeline/pipelinetest"
	"github.com/schedlab/schedlab/training/daspaper"
)

// stageKind names what a stage of the DAG is: its name up to the first
// variable part (train-das-h2 and train-das are one kind per family, every
// eval-<experiment> one kind, ...).
func stageKind(s pipeline.Stage) string {
	name := s.Name()
	switch {
	case strings.HasPrefix(name, "train-"):
		return "train:" + strings.Split(s.Outputs()[0], "/")[1] // models/<scheduler>/...
	case strings.HasPrefix(name, "ingest-"):
		return "ingest"
	}
	return name
}

// upstreamOf returns, in DAG order, the stages whose outputs s needs,
// transitively.
func upstreamOf(dag []pipeline.Stage, s pipeline.Stage) []pipeline.Stage {
	need := map[string]bool{}
	for _, in := range s.Inputs() {
		need[in] = true
	}
	var up []pipeline.Stage
	for i := slices.Index(dag, s) - 1; i >= 0; i-- {
		p := dag[i]
		if slices.ContainsFunc(p.Outputs(), func(o string) bool { return need[o] }) {
			up = append(up, p)
			for _, in := range p.Inputs() {
				need[in] = true
			}
		}
	}
	slices.Reverse(up)
	return up
}

// trainingsOf is dag cut to its training stages and the stages they need,
// in DAG order.
func trainingsOf(dag []pipeline.Stage) []pipeline.Stage {
	keep := map[pipeline.Stage]bool{}
	for _, s := range dag {
		if strings.HasPrefix(s.Name(), "train-") {
			keep[s] = true
			for _, u := range upstreamOf(dag, s) {
				keep[u] = true
			}
		}
	}
	return slices.DeleteFunc(slices.Clone(dag), func(s pipeline.Stage) bool { return !keep[s] })
}

// runStages builds cfg's stages (with trainsOnly, trainingsOf them) and
// runs them into cfg.Out at seed on workers, through ex (nil: in
// process), logs discarded. It returns the run's error; a DAG that does
// not build fails t.
func runStages(t *testing.T, cfg *Config, seed uint64, workers int, ex pipeline.Executor, trainsOnly bool) error {
	t.Helper()
	dag, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if trainsOnly {
		dag = trainingsOf(dag)
	}
	r := &pipeline.Runner{Dir: cfg.Out, Seed: seed, ConfigHash: mustHash(t, cfg), Workers: workers, Log: slog.New(slog.DiscardHandler), Executor: ex}
	_, err = r.Run(context.Background(), dag)
	return err
}

// TestEveryStageKindConforms: a stage of every kind the standard DAG
// builds that TestStagesConformance and TestCalibrateStage do not cover —
// the training of every learned family's schedulers, experiments that
// evaluate learned schedulers, and the derived tables — passes the
// pipeline's Stage conformance test (declared outputs only,
// byte-identical reruns, prompt cancellation leaving nothing), run after
// exactly the stages it depends on.
//
// The kinds share one run directory, in DAG order (ConformanceIn): a
// stage's upstream, found there already made by the checks of its own
// kind or as another kind's upstream, is not computed again. Without it
// every training ran again as the upstream of each evaluation reading it,
// and again under the table derived from that evaluation. The directory
// starts from the shared upstream (withUpstream).
func TestEveryStageKindConforms(t *testing.T) {
	cfg := quickConfig()
	cfg.Eval.Experiments = []string{"das-table1", "marl-arrivals"}
	evaluation.DASTable1Section.Edit(&cfg.Eval, func(s *evaluation.DASTable1Config) { s.Schedulers = []string{"fifo-ff", "das", "rifling-ppo", "dl2"} })
	evaluation.MARLArrivalsSection.Edit(&cfg.Eval, func(s *evaluation.MARLArrivalsConfig) {
		s.Schedulers = []string{"lb", "marl-device", "deepsys", "atte"}
		s.Intervals = 3
	})
	// A DAS-paper training on 10 jobs a segment runs the same code as on
	// quickConfig's 50, in a fraction of the time (3 s here under the race
	// detector, 10 s on 30).
	daspaper.Section.Edit(&cfg.Train.Sections, func(d *daspaper.Settings) { d.SegmentJobs, d.ValJobs = 10, 5 })
	dag, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Covered by TestStagesConformance, and calibrate (with the DAS fit
	// this DAG leaves out) by TestCalibrateStage.
	covered := []string{"synthetic-jobs", "jobs-summary", "profile-synth", "fit", "eval-collect", "calibrate"}
	shared := t.TempDir()
	withUpstream(t, shared, 1)
	seen := map[string]bool{}
	for _, s := range dag {
		kind := stageKind(s)
		if seen[kind] || slices.Contains(covered, kind) {
			continue
		}
		seen[kind] = true
		t.Run(kind, func(t *testing.T) { pipelinetest.ConformanceIn(t, shared, 1, s, upstreamOf(dag, s)...) })
	}
	for _, want := range []string{"train:das", "train:dl2", "train:rifling-ppo", "train:marl-device", "train:deepsys", "train:atte",
		"eval-das-table1", "eval-marl-arrivals", "eval-das-wilcoxon", "eval-das-overhead"} {
		if !seen[want] {
			t.Errorf("the DAG has no stage of kind %s (kinds: %v)", want, seen)
		}
	}
}
