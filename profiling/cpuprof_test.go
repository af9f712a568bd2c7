package profiling

import (
	"context"
	"errors"
	"testing"
)

// TestProfileCPUShort runs the profiler on this machine with one hog at
// full duty on the task's own CPU, once, on a ≈20 ms task. The machine is
// shared, so only coarse facts are checked: the hog's measured use is
// positive, and a full-duty hog on the same CPU slows the task (the CFS
// share alone predicts S ≈ 1; other load can only blur, not invert, that).
func TestProfileCPUShort(t *testing.T) {
	cfg := CPUProfileConfig{DutyCycles: []float64{1}, HogCounts: []int{1}, Placements: []string{SameSocket},
		Repetitions: 1, TaskSteps: 2_000_000, PeriodMS: 5}
	calls := 0
	s, err := ProfileCPU(context.Background(), cfg, func(done, total int) { calls++ })
	if errors.Is(err, ErrNoProc) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 1 || calls != 1 || len(s[0].CoRunners) != 1 {
		t.Fatalf("samples %+v, progress calls %d", s, calls)
	}
	t.Logf("sample: %+v", s[0])
	if s[0].CoRunners[0].CPUCores <= 0 || s[0].Slowdown < 0.2 {
		t.Errorf("full hog on the same CPU: hog %.2f cores, slowdown %.2f", s[0].CoRunners[0].CPUCores, s[0].Slowdown)
	}
}

func TestProfileCPUCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cfg := DefaultCPUProfileConfig()
	if _, err := ProfileCPU(ctx, cfg, nil); !errors.Is(err, context.Canceled) && !errors.Is(err, ErrNoProc) {
		t.Errorf("cancelled: got %v", err)
	}
}

func TestCPUProfileConfigValidate(t *testing.T) {
	c := DefaultCPUProfileConfig()
	c.DutyCycles = []float64{0.5, 1.5}
	if err := c.Validate(); err == nil || err.Error() != "profile.cpu.duty_cycles[1]: must be in (0, 1], got 1.5" {
		t.Errorf("got %v", err)
	}
}
