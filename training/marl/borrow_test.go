package marl_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/marl"
)

// TestBorrowedWorkersSameBytes trains the device level with the agents'
// segments learned on the trainer's goroutine alone (every TrainOptions.Borrow
// refused) and on up to three more borrowed workers (as a run's idle
// executor workers lend them), and requires byte-identical checkpoints
// and curves: how many workers learn an interval's segments, and which
// takes which, must not change a bit.
func TestBorrowedWorkersSameBytes(t *testing.T) {
	c, err := sim.FatTree(4, "power8")
	if err != nil {
		t.Fatal(err)
	}
	train, val := datasets.SplitMARL(workload(t, c, 0.6, 6, 3), c.Pods, 0.1, 1800)
	cfg := marl.VariantConfig(marl.VariantDevice)
	cfg.Episodes, cfg.ValidateEvery = 2, 1
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	run := func(lend int) (ckpt, curves []byte, lent int64) {
		// out: workers lent now; total: ever lent.
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
		dir := t.TempDir()
		if err := pol.Save(dir, nil); err != nil {
			t.Fatal(err)
		}
		ckpt, err = os.ReadFile(filepath.Join(dir, marl.CheckpointFile))
		if err != nil {
			t.Fatal(err)
		}
		curves, err = json.Marshal(cv)
		if err != nil {
			t.Fatal(err)
		}
		return ckpt, curves, total.Load()
	}
	ck1, cv1, lent1 := run(0)
	ck4, cv4, lent4 := run(3)
	if lent1 != 0 || lent4 == 0 {
		t.Fatalf("workers lent: %d with none to lend, %d with three", lent1, lent4)
	}
	if !bytes.Equal(ck1, ck4) {
		t.Errorf("checkpoints differ between one learner and %d borrowed workers", lent4)
	}
	if !bytes.Equal(cv1, cv4) {
		t.Errorf("curves differ between one learner and %d borrowed workers:\n%s\n%s", lent4, cv1, cv4)
	}
}
