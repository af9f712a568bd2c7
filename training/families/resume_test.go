package families_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/das"
	"github.com/schedlab/schedlab/training/das/dastest"
	"github.com/schedlab/schedlab/training/daspaper"
	_ "github.com/schedlab/schedlab/training/deepsys"
	"github.com/schedlab/schedlab/training/marl"
	"github.com/schedlab/schedlab/training/trainingtest"
)

var errKilled = errors.New("killed after the checkpoint")

// resumeCase is one variant of a family that trains in episodes, with a
// small config of total episodes in all, interrupted after episode k.
type resumeCase struct {
	variant  schedulers.Name
	spec     func(t *testing.T) training.TrainSpec
	total, k int
}

// TestResumeIsByteIdentical trains each variant that trains in episodes
// three ways: uninterrupted without checkpoints; with checkpoints, killed
// (the checkpoint's Save fails) right after episode k; and resumed from
// that checkpoint. The resumed model directory must equal the
// uninterrupted one byte for byte, and the resumed attempt must run only
// the episodes after k (else identical bytes would prove nothing: a
// restart from episode 1 gives them too).
func TestResumeIsByteIdentical(t *testing.T) {
	small, split := dastest.SmallSplit(t, dastest.ContendedJobs(200, 1, 400), 200)
	trace := func(v schedulers.Name, episodes int, lrs []float64) func(t *testing.T) training.TrainSpec {
		return func(t *testing.T) training.TrainSpec {
			f, _, _ := training.VariantOf(v)
			if lrs == nil {
				lrs = das.DefaultConfig().LearningRates
			}
			cfg := f.Configure(daspaper.Section.With(training.Sections{}, daspaper.Settings{Episodes: episodes, SegmentJobs: 20, ValJobs: 20, LearningRates: lrs}))
			return training.TrainSpec{Variant: v, Cluster: small, ClusterName: "small", Data: training.Data{Train: split.Train, Val: split.Val},
				Sim: sim.DefaultConfig(), Seed: 7, Config: cfg, Meta: datasets.FileMeta{Source: "test"}}
		}
	}
	ft := simtest.FatTree(t, 4, "power8")
	jobs, err := datasets.GenerateMARL(datasets.MARLWorkload{Kind: datasets.MARLUniform, Pods: ft.Pods, JobsPerPod: 0.5, Intervals: 8, IntervalS: 1800},
		pipeline.Rand(3, "test", "workload"))
	if err != nil {
		t.Fatal(err)
	}
	interval := sim.DefaultConfig()
	interval.Trigger = sim.TriggerInterval
	fattree := func(v schedulers.Name, parts, episodes int) func(t *testing.T) training.TrainSpec {
		return func(t *testing.T) training.TrainSpec {
			f, _, _ := training.VariantOf(v)
			train, val := datasets.SplitMARL(jobs, max(parts, 1), 0.1, 1800)
			if parts == 0 {
				train, val = datasets.SplitMARL(jobs, ft.Pods, 0.1, 1800)
			}
			cfg := f.Configure(marl.Section.With(training.Sections{}, marl.Settings{Episodes: episodes, AtteEpisodes: episodes}))
			return training.TrainSpec{Variant: v, Cluster: ft, ClusterName: "fattree-k4", Data: training.Data{Train: train, Val: val},
				Sim: interval, Seed: 7, Config: cfg, Meta: datasets.FileMeta{Source: "test"}}
		}
	}
	cases := []resumeCase{
		// Three learning rates of one episode, killed after the second:
		// the first run's result comes from the checkpoint too.
		{"das", trace("das", 1, []float64{1e-4, 3e-4, 1e-3}), 3, 2},
		{"da", trace("da", 2, []float64{1e-4}), 2, 1},
		{"da+mc", trace("da+mc", 2, []float64{1e-4}), 2, 1},
		{"da+rwgp", trace("da+rwgp", 2, []float64{1e-4}), 2, 1},
		{"dl2", trace("dl2", 3, nil), 3, 1},
		{"dl2-das", trace("dl2-das", 3, nil), 3, 2},
		{"rifling", trace("rifling", 3, nil), 3, 2},
		{"rifling-ppo", trace("rifling-ppo", 3, nil), 3, 1},
		{"marl-device", fattree("marl-device", 0, 3), 3, 1},
		{"marl-server", fattree("marl-server", 0, 3), 3, 2},
		{"marl-single", fattree("marl-single", 1, 3), 3, 1},
		{"atte", fattree("atte", 0, 3), 3, 2},
	}
	if raceEnabled {
		// Two learning rates, killed after the first: the first run's
		// result still comes from the checkpoint, at two thirds of the
		// trainings.
		cases[0] = resumeCase{"das", trace("das", 1, []float64{1e-4, 3e-4}), 2, 1}
	}
	for _, c := range cases {
		t.Run(string(c.variant), func(t *testing.T) {
			if raceEnabled && strings.HasPrefix(string(c.variant), "da") && c.variant != "das" {
				t.Skip("DAS trains many times slower under the race detector; das covers the trainer")
			}
			f, _, ok := training.VariantOf(c.variant)
			if !ok {
				t.Fatalf("%s is not registered", c.variant)
			}
			ctx := context.Background()
			// Uninterrupted, no checkpoints.
			whole := c.spec(t)
			whole.Dir = t.TempDir()
			if err := f.Train(ctx, whole); err != nil {
				t.Fatal(err)
			}
			// Killed right after episode k's checkpoint.
			var saved []byte
			var saves []int
			cut := c.spec(t)
			cut.Dir = t.TempDir()
			cut.Resume = &training.Resume{
				Load: func() ([]byte, error) { return nil, nil },
				Save: func(done, total int, state []byte) error {
					if total != c.total {
						t.Errorf("checkpoint of %d/%d episodes, want a total of %d", done, total, c.total)
					}
					saves = append(saves, done)
					saved = state
					if done == c.k {
						return errKilled
					}
					return nil
				}}
			if err := f.Train(ctx, cut); !errors.Is(err, errKilled) {
				t.Fatalf("interrupted training: %v, want the kill", err)
			}
			// Resumed from that checkpoint.
			res := c.spec(t)
			res.Dir = t.TempDir()
			var rows []training.Curve
			res.Curve = func(r training.Curve) { rows = append(rows, r) }
			var first = -1
			res.Progress = func(done, total int) {
				if first < 0 {
					first = done
				}
			}
			res.Resume = &training.Resume{
				Load: func() ([]byte, error) { return saved, nil },
				Save: func(done, total int, state []byte) error { saves = append(saves, done); return nil }}
			if err := f.Train(ctx, res); err != nil {
				t.Fatalf("resumed training: %v", err)
			}
			if first != c.k+1 {
				t.Errorf("the resumed training's first episode was %d of %d, want %d (checkpoints after %v)", first, c.total, c.k+1, saves)
			}
			trainingtest.SameFiles(t, f.Files(c.variant), whole.Dir, res.Dir)
			if len(rows) == 0 {
				t.Errorf("the resumed training emitted no curve row")
			}
			t.Logf("checkpoint after episode %d of %d: %d bytes", c.k, c.total, len(saved))
		})
	}
}
