package pipeline

import (
	"context"
	"log/slog"
	"math"
	"testing"
	"time"
)

// TestCPUMeterShares: the CPU time spent between readings goes to the
// stages then running, in proportion to the workers each holds.
func TestCPUMeterShares(t *testing.T) {
	var now time.Duration
	m := newCPUMeter(func() (time.Duration, bool) { return now, true })
	now = 5 * time.Second // before any stage: nobody's
	ctxA, a := m.start(context.Background())
	now += 2 * time.Second // a alone: 2 s to a
	_, b := m.start(context.Background())
	now += 2 * time.Second // a and b, a worker each: 1 s each
	lend(ctxA, +1)
	now += 3 * time.Second // a holds two workers, b one: 2 s and 1 s
	lend(ctxA, -1)
	lend(context.Background(), +1) // no share in ctx: nothing changes
	now += 4 * time.Second         // a worker each again: 2 s each
	gotA := m.stop(a)
	now += 1 * time.Second // b alone
	gotB := m.stop(b)
	now += 7 * time.Second // after every stage: nobody's
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"a", gotA, 2 + 1 + 2 + 2}, {"b", gotB, 1 + 1 + 2 + 1}} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("stage %s: %g s of CPU, want %g", c.name, c.got, c.want)
		}
	}
	if len(m.running) != 0 {
		t.Errorf("%d accounts left open", len(m.running))
	}
}

// TestCPUMeterUnreadable: where the process's CPU time cannot be read,
// every stage gets 0.
func TestCPUMeterUnreadable(t *testing.T) {
	m := newCPUMeter(func() (time.Duration, bool) { return 0, false })
	_, a := m.start(context.Background())
	if got := m.stop(a); got != 0 {
		t.Errorf("got %g s, want 0", got)
	}
}

// TestRunnerRecordsCPU: a stage that burns CPU alone is credited with at
// least what it burned, and its manifest entry carries it; later runs that
// find it cached carry that cost, and Plan reports it.
func TestRunnerRecordsCPU(t *testing.T) {
	if _, ok := processCPU(); !ok {
		t.Skip("no process CPU clock here")
	}
	burn := &Func{StageName: "burn", StageVersion: "1", Out: []string{"burn.txt"}, Fn: func(ctx context.Context, env *Env) error {
		t0, _ := processCPU()
		x := 1.0
		for now := t0; now-t0 < 100*time.Millisecond; now, _ = processCPU() {
			for i := 0; i < 10000; i++ {
				x = math.Sqrt(x + float64(i))
			}
		}
		return WriteFileAtomic(env.Output("burn.txt"), []byte{byte(x)})
	}}
	r := &Runner{Dir: t.TempDir(), Log: slog.New(slog.DiscardHandler)}
	m, err := r.Run(context.Background(), []Stage{burn})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Stages[0].CPUS; got < 0.1 {
		t.Errorf("burn: %g s of CPU recorded, want at least the 0.1 s it burned", got)
	}
	back, err := ReadManifest(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if back.Stages[0].CPUS != m.Stages[0].CPUS {
		t.Errorf("manifest.json has cpu_s %g, the run returned %g", back.Stages[0].CPUS, m.Stages[0].CPUS)
	}
	// Runs that find the stage cached carry the cost of the run that made
	// it, and Plan reports that cost.
	ran := m.Stages[0]
	for run := 2; run <= 3; run++ {
		m, err := r.Run(context.Background(), []Stage{burn})
		if err != nil {
			t.Fatal(err)
		}
		if s := m.Stages[0]; !s.Cached || s.RanWallS != ran.WallS || s.RanCPUS != ran.CPUS {
			t.Errorf("run %d: cached %v, ran_wall_s %g ran_cpu_s %g; want the first run's %g and %g", run, s.Cached, s.RanWallS, s.RanCPUS, ran.WallS, ran.CPUS)
		}
	}
	p, err := r.Plan([]Stage{burn})
	if err != nil {
		t.Fatal(err)
	}
	if p[0].LastWallS != ran.WallS || p[0].LastCPUS != ran.CPUS {
		t.Errorf("plan: last %g s wall, %g s CPU; want the run that made it, %g and %g", p[0].LastWallS, p[0].LastCPUS, ran.WallS, ran.CPUS)
	}
}
