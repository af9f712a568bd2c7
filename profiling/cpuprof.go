package profiling

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/sourcegraph/conc/pool"
)

// CPUProfileConfig configures the local CPU-interference profiler.
type CPUProfileConfig struct {
	// DutyCycles are the fractions of one core each hog keeps busy.
	DutyCycles []float64 `mapstructure:"duty_cycles" yaml:"duty_cycles" json:"duty_cycles"`
	// HogCounts are the numbers of hogs run at once.
	HogCounts []int `mapstructure:"hog_counts" yaml:"hog_counts" json:"hog_counts"`
	// Placements: SameSocket puts the hogs on the reference task's CPU,
	// OtherSocket on another CPU (skipped when only one CPU is allowed).
	Placements  []string `mapstructure:"placements" yaml:"placements" json:"placements"`
	Repetitions int      `mapstructure:"repetitions" yaml:"repetitions" json:"repetitions"`
	// TaskSteps is the work of one run of the reference task, in loop
	// steps (each a multiply-add on a 4 MiB buffer at a strided index).
	TaskSteps int `mapstructure:"task_steps" yaml:"task_steps" json:"task_steps"`
	// PeriodMS is the hogs' duty-cycle period.
	PeriodMS float64 `mapstructure:"period_ms" yaml:"period_ms" json:"period_ms"`
}

// DefaultCPUProfileConfig: 4 duty cycles × 1–2 hogs × 2 placements × 3
// repetitions, a reference run of ≈0.1 s: about 15 s in all.
func DefaultCPUProfileConfig() CPUProfileConfig {
	return CPUProfileConfig{
		DutyCycles: []float64{0.25, 0.5, 0.75, 1}, HogCounts: []int{1, 2},
		Placements: []string{SameSocket, OtherSocket}, Repetitions: 3, TaskSteps: 20_000_000, PeriodMS: 10,
	}
}

// Validate reports the first bad field, named by its config key.
func (c CPUProfileConfig) Validate() error {
	if len(c.DutyCycles) == 0 {
		return fmt.Errorf("profile.cpu.duty_cycles: must not be empty")
	}
	for i, d := range c.DutyCycles {
		if !(d > 0 && d <= 1) {
			return fmt.Errorf("profile.cpu.duty_cycles[%d]: must be in (0, 1], got %g", i, d)
		}
	}
	if len(c.HogCounts) == 0 {
		return fmt.Errorf("profile.cpu.hog_counts: must not be empty")
	}
	for i, h := range c.HogCounts {
		if h < 1 || h > 64 {
			return fmt.Errorf("profile.cpu.hog_counts[%d]: must be in [1, 64], got %d", i, h)
		}
	}
	if len(c.Placements) == 0 {
		return fmt.Errorf("profile.cpu.placements: must not be empty")
	}
	for i, p := range c.Placements {
		if p != SameSocket && p != OtherSocket {
			return fmt.Errorf("profile.cpu.placements[%d]: %q is neither %q nor %q", i, p, SameSocket, OtherSocket)
		}
	}
	switch {
	case c.Repetitions < 1:
		return fmt.Errorf("profile.cpu.repetitions: must be ≥ 1, got %d", c.Repetitions)
	case c.TaskSteps < 1000:
		return fmt.Errorf("profile.cpu.task_steps: must be ≥ 1000, got %d", c.TaskSteps)
	case !(c.PeriodMS >= 1 && c.PeriodMS <= 1000):
		return fmt.Errorf("profile.cpu.period_ms: must be in [1, 1000], got %g", c.PeriodMS)
	}
	return nil
}

// ErrNoProc: the profiler reads each thread's CPU time from the kernel's
// per-thread clock and pins threads with sched_setaffinity, both Linux's.
var ErrNoProc = errors.New("profiling: per-thread CPU clock unavailable (Linux needed)")

// ProfileCPU measures, on this machine, the slowdown of a reference
// CPU-bound task (a fixed multiply-add loop over a 4 MiB buffer, standing
// in for a training job's CPU phase) beside duty-cycled CPU hogs: OS
// threads, each pinned with sched_setaffinity to the task's CPU ("same")
// or to another CPU ("other"), busy for a duty-cycle share of every
// period and asleep for the rest. Every configuration is run
// cfg.Repetitions times, each loaded run paired with a fresh run alone so
// that drift (other load on the machine, frequency scaling) cancels in the
// ratio. CPU use of the task and of each hog is its thread's CPU time
// (the kernel's per-thread clock, user and system) over the run's wall
// time.
//
// Samples map the machine onto the profile_samples schema with each CPU
// as a "socket" of one core (cores_per_socket = 1): the reference task's
// C is its measured use alone, co-runners carry their measured use. These
// are real measurements; the slowdown includes whatever else the machine
// was doing, which is why runs are paired and repeated.
//
// progress, if not nil, is called after each run with (done, total).
func ProfileCPU(ctx context.Context, cfg CPUProfileConfig, progress func(done, total int)) ([]Sample, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if _, err := threadCPU(); err != nil {
		return nil, err
	}
	cpus := allowedCPUs()
	pin := len(cpus) > 0
	places := slices.Clone(cfg.Placements)
	if len(cpus) < 2 {
		places = slices.DeleteFunc(places, func(p string) bool { return p == OtherSocket })
		if len(places) == 0 {
			return nil, fmt.Errorf("profile.cpu.placements: only %q requested but this process may use %d CPU", OtherSocket, len(cpus))
		}
	}
	taskCPU, otherCPU := -1, -1
	if pin {
		taskCPU = cpus[0]
		if len(cpus) > 1 {
			otherCPU = cpus[1]
		}
	}
	buf := make([]float64, 1<<19) // 4 MiB
	// Warm up: fault the buffer's pages in and let the CPU clock settle, so
	// that the first "alone" run does not pay for it.
	if _, err := runTask(ctx, buf, cfg.TaskSteps, taskCPU, nil); err != nil {
		return nil, err
	}
	total := len(places) * len(cfg.HogCounts) * len(cfg.DutyCycles) * cfg.Repetitions
	done := 0
	var out []Sample
	for _, place := range places {
		hogCPU := taskCPU
		if place == OtherSocket {
			hogCPU = otherCPU
		}
		for _, nh := range cfg.HogCounts {
			for _, duty := range cfg.DutyCycles {
				var alone, loaded, aloneCores float64
				hogCores := make([]float64, nh)
				for rep := 0; rep < cfg.Repetitions; rep++ {
					a, err := runTask(ctx, buf, cfg.TaskSteps, taskCPU, nil)
					if err != nil {
						return nil, err
					}
					l, err := runTask(ctx, buf, cfg.TaskSteps, taskCPU, &hogSpec{n: nh, cpu: hogCPU, duty: duty, period: time.Duration(cfg.PeriodMS * float64(time.Millisecond))})
					if err != nil {
						return nil, err
					}
					alone += a.wall.Seconds()
					loaded += l.wall.Seconds()
					aloneCores += a.cores
					for i, c := range l.hogCores {
						hogCores[i] += c / float64(cfg.Repetitions)
					}
					done++
					if progress != nil {
						progress(done, total)
					}
				}
				s := Sample{
					SampleID:       fmt.Sprintf("cpu-%s-%dhog-duty%03.0f", place, nh, 100*duty),
					Source:         "cpu-profiler",
					Model:          "cpu-reference",
					CPUCores:       round4(aloneCores / float64(cfg.Repetitions)),
					CoresPerSocket: 1,
					Slowdown:       loaded/alone - 1,
					Repetitions:    int32(cfg.Repetitions),
				}
				for _, c := range hogCores {
					s.CoRunners = append(s.CoRunners, CoRunner{Socket: place, Model: hogModel, CPUCores: round4(c)})
				}
				out = append(out, s)
			}
		}
	}
	return out, nil
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

type hogSpec struct {
	n, cpu int
	duty   float64
	period time.Duration
}

type taskRun struct {
	wall     time.Duration
	cores    float64 // the task's CPU use
	hogCores []float64
}

// runTask runs the reference task once on taskCPU, beside hogs if h is
// not nil. Every goroutine it starts locks its OS thread and never
// unlocks it, so the pinned thread exits with the goroutine instead of
// returning to Go's pool with a narrowed affinity.
func runTask(ctx context.Context, buf []float64, steps, taskCPU int, h *hogSpec) (taskRun, error) {
	var res taskRun
	hogCtx, stopHogs := context.WithCancel(ctx)
	defer stopHogs()
	p := pool.New().WithContext(hogCtx).WithCancelOnError()
	if h != nil {
		res.hogCores = make([]float64, h.n)
		started := make(chan struct{}, h.n)
		for i := 0; i < h.n; i++ {
			p.Go(func(ctx context.Context) error {
				c, err := hog(ctx, h, started)
				res.hogCores[i] = c
				return err
			})
		}
		for i := 0; i < h.n; i++ {
			select {
			case <-started:
			case <-ctx.Done():
				stopHogs()
				p.Wait()
				return res, ctx.Err()
			}
		}
	}
	// The task itself also runs on its own locked thread.
	tp := pool.New().WithErrors()
	tp.Go(func() error {
		runtime.LockOSThread()
		if taskCPU >= 0 {
			if err := pinThread(taskCPU); err != nil {
				return err
			}
		}
		before, err := threadCPU()
		if err != nil {
			return err
		}
		t0 := time.Now()
		referenceTask(buf, steps)
		res.wall = time.Since(t0)
		after, err := threadCPU()
		if err != nil {
			return err
		}
		res.cores = (after - before).Seconds() / res.wall.Seconds()
		return nil
	})
	taskErr := tp.Wait()
	stopHogs()
	hogErr := p.Wait()
	if err := ctx.Err(); err != nil {
		return res, err
	}
	if taskErr != nil {
		return res, fmt.Errorf("reference task: %w", taskErr)
	}
	if hogErr != nil && !errors.Is(hogErr, context.Canceled) {
		return res, fmt.Errorf("cpu hog: %w", hogErr)
	}
	return res, nil
}

// hog keeps one pinned thread busy for duty·period of every period until
// ctx ends and returns its measured CPU use in cores.
func hog(ctx context.Context, h *hogSpec, started chan<- struct{}) (float64, error) {
	runtime.LockOSThread()
	if h.cpu >= 0 {
		if err := pinThread(h.cpu); err != nil {
			started <- struct{}{}
			return 0, err
		}
	}
	before, err := threadCPU()
	started <- struct{}{}
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	busy := time.Duration(h.duty * float64(h.period))
	x := 1.0
	for ctx.Err() == nil {
		start := time.Now()
		for time.Since(start) < busy {
			for k := 0; k < 1000; k++ {
				x = x*1.0000001 + 1e-9
			}
		}
		if rest := h.period - time.Since(start); rest > 0 {
			time.Sleep(rest)
		}
	}
	after, err := threadCPU()
	if err != nil {
		return 0, err
	}
	sink = x
	return (after - before).Seconds() / time.Since(t0).Seconds(), nil
}

var sink float64

// referenceTask is the fixed CPU-bound work: multiply-adds over a buffer
// larger than L2, at a stride that defeats the prefetcher, so that both
// the core and the cache hierarchy are exercised.
func referenceTask(buf []float64, steps int) {
	mask := len(buf) - 1
	x, j := 1.0, 0
	for i := 0; i < steps; i++ {
		x = x*0.9999999 + buf[j] + 1e-7
		buf[j] = x
		j = (j + 4099) & mask
	}
	sink = x
}
