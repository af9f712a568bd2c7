package marl_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/marl"
	"github.com/schedlab/schedlab/training/trainingtest"
)

// rolloutRun is what TestRolloutsSameBytes compares: the checkpoint, the
// curves, and how many workers the training borrowed.
type rolloutRun struct {
	ckpt, curves []byte
	rows         []training.Curve
	lent         int64
}

// trainedBytes saves pol into a fresh directory and returns its
// checkpoint file's bytes and the curves as JSON: what the tests that
// require byte-identical trainings compare.
func trainedBytes(t *testing.T, pol *marl.Policy, curves []training.Curve) (ckpt, cj []byte) {
	t.Helper()
	dir := t.TempDir()
	if err := pol.Save(dir, nil); err != nil {
		t.Fatal(err)
	}
	ckpt, err := os.ReadFile(filepath.Join(dir, marl.CheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	cj, err = json.Marshal(curves)
	if err != nil {
		t.Fatal(err)
	}
	return ckpt, cj
}

// trainRollouts trains cfg on c with at most lend workers lent beside the
// trainer's goroutine (TrainOptions.Borrow, as a run's idle executor
// workers lend them).
func trainRollouts(t *testing.T, cfg marl.Config, c *sim.Cluster, train, val []datasets.Job, lend int) rolloutRun {
	t.Helper()
	var out, total atomic.Int64
	borrow := func() (func(), bool) {
		if out.Load() >= int64(lend) {
			return nil, false
		}
		out.Add(1)
		total.Add(1)
		return func() { out.Add(-1) }, true
	}
	pol, cv, err := marl.Train(context.Background(), cfg, marl.TrainOptions{Cluster: c, ClusterName: "fattree-k4",
		Train: train, Validation: val, Sim: intervalConfig(), Seed: 5, Borrow: borrow})
	if err != nil {
		t.Fatal(err)
	}
	ckpt, curves := trainedBytes(t, pol, cv)
	return rolloutRun{ckpt: ckpt, curves: curves, rows: cv, lent: total.Load()}
}

// TestRolloutsSameBytes trains the device level with three rollouts per
// update (five episodes: an iteration of three, then one of two) on the
// trainer's goroutine alone and with up to three borrowed workers, and
// requires byte-identical checkpoints and curves: the rollouts of an
// iteration, and the segments of an update, may run anywhere and finish in
// any order, and their gradients are still summed in rollout order.
func TestRolloutsSameBytes(t *testing.T) {
	c, train, val := fatTreeSplit(t, 0.6, 6, 3)
	cfg := marl.VariantConfig(marl.VariantDevice)
	cfg.Episodes, cfg.ValidateEvery, cfg.Rollouts = 5, 2, 3
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	one := trainRollouts(t, cfg, c, train, val, 0)
	four := trainRollouts(t, cfg, c, train, val, 3)
	if one.lent != 0 || four.lent == 0 {
		t.Fatalf("workers lent: %d with none to lend, %d with three", one.lent, four.lent)
	}
	if !bytes.Equal(one.ckpt, four.ckpt) {
		t.Errorf("checkpoints differ between one worker and %d borrowed", four.lent)
	}
	if !bytes.Equal(one.curves, four.curves) {
		t.Errorf("curves differ between one worker and %d borrowed:\n%s\n%s", four.lent, one.curves, four.curves)
	}
	// One training row per episode, in order; validation after each
	// iteration holding an episode with (ep+1) % 2 == 0 or the last
	// (episodes 1 and 3 in the first, 4 in the second), labelled with the
	// iteration's last episode.
	type row struct {
		ep    int32
		split string
	}
	want := []row{{0, "train"}, {1, "train"}, {2, "train"}, {2, "validation"}, {3, "train"}, {4, "train"}, {4, "validation"}}
	if len(one.rows) != len(want) {
		t.Fatalf("%d curve rows, want %d: %+v", len(one.rows), len(want), one.rows)
	}
	for i, w := range want {
		if got := (row{one.rows[i].Episode, one.rows[i].Split}); got != w {
			t.Errorf("curve row %d: %+v, want %+v", i, got, w)
		}
		if one.rows[i].MeanJCT <= 0 {
			t.Errorf("curve row %d: mean JCT %v", i, one.rows[i].MeanJCT)
		}
	}
	// With one rollout per update the same episodes train another model:
	// the key changes what is learnt, not only where.
	cfg.Rollouts = 1
	if seq := trainRollouts(t, cfg, c, train, val, 0); bytes.Equal(seq.ckpt, one.ckpt) {
		t.Error("three rollouts per update trained the checkpoint of one")
	}
}

// TestRolloutsEpisodeStreams: an episode's stream is named by its index,
// not by the size of the iteration holding it, so an iteration cut short
// by Episodes is a training of that many rollouts: one episode with
// Rollouts = 4 is the training of one episode with Rollouts = 1.
func TestRolloutsEpisodeStreams(t *testing.T) {
	c, train, _ := fatTreeSplit(t, 0.6, 4, 3)
	cfg := marl.VariantConfig(marl.VariantDevice)
	cfg.Episodes, cfg.ValidateEvery = 1, 0
	a := trainRollouts(t, cfg, c, train, nil, 0)
	cfg.Rollouts = 4
	b := trainRollouts(t, cfg, c, train, nil, 0)
	if !bytes.Equal(a.ckpt, b.ckpt) || !bytes.Equal(a.curves, b.curves) {
		t.Error("one episode trained differently with Rollouts = 4 than with 1")
	}
}

// TestRolloutsThroughFamily trains with train.marl.rollouts = 2 through
// the family registry (as the train stage does): the sidecar records the
// rollouts, a training of one rollout per update records none (its files
// are those of before the key), and a training killed after its first
// iteration's resume checkpoint and resumed writes the uninterrupted
// training's files byte for byte.
func TestRolloutsThroughFamily(t *testing.T) {
	f := marlFamily(t)
	c, train, val := fatTreeSplit(t, 0.5, 6, 3)
	spec := func(rollouts int, res *training.Resume) training.TrainSpec {
		fc := f.Configure(marl.Section.With(training.Sections{}, marl.Settings{Episodes: 4, Rollouts: rollouts})).(*marl.FamilyConfig)
		if err := fc.Validate(); err != nil {
			t.Fatal(err)
		}
		return training.TrainSpec{Variant: "marl-device", Dir: t.TempDir(), Cluster: c, ClusterName: "fattree-k4",
			Data: training.Data{Train: train, Val: val}, Sim: intervalConfig(), Seed: 1, Config: fc, Resume: res}
	}
	sidecar := func(dir string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, marl.SidecarFile))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	ctx := context.Background()
	one := spec(1, nil)
	if err := f.Train(ctx, one); err != nil {
		t.Fatal(err)
	}
	if b := sidecar(one.Dir); bytes.Contains(b, []byte("rollouts")) {
		t.Errorf("one rollout per update: the sidecar names rollouts:\n%s", b)
	}
	whole := spec(2, nil)
	if err := f.Train(ctx, whole); err != nil {
		t.Fatal(err)
	}
	var sc marl.Sidecar
	if err := json.Unmarshal(sidecar(whole.Dir), &sc); err != nil {
		t.Fatal(err)
	}
	if sc.Config.Rollouts != 2 {
		t.Errorf("sidecar's rollouts %d, want 2", sc.Config.Rollouts)
	}
	var saved []byte
	var saves []int
	killed := errors.New("killed after the checkpoint")
	cut := spec(2, &training.Resume{Load: func() ([]byte, error) { return nil, nil },
		Save: func(done, total int, state []byte) error {
			saves, saved = append(saves, done), state
			if done == 2 {
				return killed
			}
			return nil
		}})
	if err := f.Train(ctx, cut); !errors.Is(err, killed) {
		t.Fatalf("interrupted training: %v, want the kill", err)
	}
	first := -1
	res := spec(2, &training.Resume{Load: func() ([]byte, error) { return saved, nil },
		Save: func(done, total int, state []byte) error { saves = append(saves, done); return nil }})
	res.Progress = func(done, total int) {
		if first < 0 {
			first = done
		}
	}
	if err := f.Train(ctx, res); err != nil {
		t.Fatal(err)
	}
	if first != 3 || !slices.Equal(saves, []int{2, 4}) {
		t.Errorf("resumed at episode %d, checkpoints after %v; want 3 and [2 4]", first, saves)
	}
	trainingtest.SameFiles(t, f.Files("marl-device"), whole.Dir, res.Dir)
}
