package marl_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim/simtest"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/marl"
)

// spreadInProcess is a training.Spread that runs every piece with run
// in this process, side by side, as an executor's workers would; forget
// drops the kept rollouts before every step, as when each step lands on a
// worker that did not run the last.
func spreadInProcess(t testing.TB, forget bool, calls *int, run func(ctx context.Context, read func(string) ([]byte, error), piece []byte) ([]byte, error)) training.Spread {
	blobs := map[string][]byte{}
	var mu sync.Mutex
	return func(ctx context.Context, blob training.Blob, pieces []training.Piece) ([][]byte, error) {
		*calls++
		mu.Lock()
		blobs[blob.Name] = bytes.Clone(blob.Data)
		mu.Unlock()
		if forget {
			marl.ForgetRollouts()
		}
		read := func(name string) ([]byte, error) {
			mu.Lock()
			defer mu.Unlock()
			b, ok := blobs[name]
			if !ok {
				t.Errorf("a piece read blob %s, never shared", name)
			}
			return b, nil
		}
		out := make([][]byte, len(pieces))
		errs := make([]error, len(pieces))
		var wg sync.WaitGroup
		for i, p := range pieces {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out[i], errs[i] = run(ctx, read, p.Spec)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return nil, err
			}
		}
		return out, nil
	}
}

// TestSpreadSameBytes trains with three rollouts per update (seven
// episodes: iterations of three, three and one) in lock step in one process,
// and with each rollout's steps as pieces of a Spread: kept between
// steps, and rebuilt at every step by replaying the episode. Every file
// is byte-identical: for the device level, whose update runs one
// interval behind the decisions (Config.Lag 1), and for the single
// agent, whose update does not (Lag 0).
func TestSpreadSameBytes(t *testing.T) {
	for _, v := range []string{"marl-device", "marl-single"} {
		t.Run(v, func(t *testing.T) { testSpreadSameBytes(t, v) })
	}
}

func testSpreadSameBytes(t *testing.T, variant string) {
	f0, _ := training.Lookup("marl")
	f, ok := f0.(training.Spreader)
	if !ok {
		t.Fatal("the marl family is not a training.Spreader")
	}
	c := simtest.FatTree(t, 4, "power8")
	parts := c.Pods
	if variant == "marl-single" {
		parts = 1
	}
	train, val := datasets.SplitMARL(workload(t, c, 0.6, 6, 3), parts, 0.1, 1800)
	// Under the race detector four episodes (3 + 1, still a short last
	// iteration; 22 → 8 s there); make test-norace runs the seven.
	episodes := 7
	if raceEnabled {
		episodes = 4
	}
	spec := func() training.TrainSpec {
		fc := f.Configure(marl.Section.With(training.Sections{}, marl.Settings{Episodes: episodes, Rollouts: 3}))
		if !f.Spreads(fc) {
			t.Fatal("three rollouts per update do not spread")
		}
		return training.TrainSpec{Variant: schedulers.Name(variant), Dir: t.TempDir(), Cluster: c, ClusterName: "fattree-k4",
			Data: training.Data{Train: train, Val: val}, Sim: intervalConfig(), Seed: 3, Config: fc}
	}
	files := func(s training.TrainSpec) map[string][]byte {
		if err := f.Train(context.Background(), s); err != nil {
			t.Fatal(err)
		}
		m := map[string][]byte{}
		for _, name := range f.Files(schedulers.Name(variant)) {
			b, err := os.ReadFile(filepath.Join(s.Dir, name))
			if err != nil {
				t.Fatal(err)
			}
			m[name] = b
		}
		return m
	}
	var rebuilt atomic.Int64 // the pieces step side by side
	marl.OnRebuild(func(ep, step int) { rebuilt.Add(1) })
	defer marl.OnRebuild(nil)
	lock := files(spec())
	if rebuilt.Load() != 0 {
		t.Fatalf("the lock-step training rebuilt %d rollouts", rebuilt.Load())
	}
	for _, forget := range []bool{false, true} {
		rebuilt.Store(0)
		var calls int
		s := spec()
		build := func() (training.TrainSpec, error) { b := s; b.Spread = nil; return b, nil }
		s.Spread = spreadInProcess(t, forget, &calls, func(ctx context.Context, read func(string) ([]byte, error), piece []byte) ([]byte, error) {
			return f.RunPiece(ctx, "test-"+t.Name(), build, read, piece)
		})
		got := files(s)
		for name, b := range lock {
			if !bytes.Equal(got[name], b) {
				t.Errorf("forget %v: %s differs from the lock-step training's", forget, name)
			}
		}
		// Each step of the episodes is a call: the rollouts were
		// spread, and (forgetting) rebuilt at every step.
		rebuilt := int(rebuilt.Load())
		t.Logf("forget %v: %d steps, %d rebuilt", forget, calls, rebuilt)
		switch {
		case calls < 10:
			t.Errorf("forget %v: %d steps: the training did not spread", forget, calls)
		case !forget && rebuilt != episodes:
			t.Errorf("rebuilt %d rollouts, want the %d episodes' first steps only", rebuilt, episodes)
		case forget && rebuilt < calls:
			t.Errorf("forgetting: rebuilt %d rollouts in %d steps", rebuilt, calls)
		}
	}
}
