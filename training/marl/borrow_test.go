package marl_test

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/schedlab/schedlab/training/marl"
)

// TestBorrowedWorkersSameBytes trains the device level with the agents'
// segments learned on the trainer's goroutine alone (every TrainOptions.Borrow
// refused) and on up to three more borrowed workers (as a run's idle
// executor workers lend them), and requires byte-identical checkpoints
// and curves: how many workers learn an interval's segments, and which
// takes which, must not change a bit.
func TestBorrowedWorkersSameBytes(t *testing.T) {
	c, train, val := fatTreeSplit(t, 0.6, 6, 3)
	cfg := marl.VariantConfig(marl.VariantDevice)
	cfg.Episodes, cfg.ValidateEvery = 2, 1
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	r1, r4 := trainRollouts(t, cfg, c, train, val, 0), trainRollouts(t, cfg, c, train, val, 3)
	ck1, cv1, lent1 := r1.ckpt, r1.curves, r1.lent
	ck4, cv4, lent4 := r4.ckpt, r4.curves, r4.lent
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
