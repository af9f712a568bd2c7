package pipeline

import (
	"context"
	"sync"
	"time"
)

// cpuMeter apportions the process's CPU time among the stages of a run.
// The process's CPU time (user and system, all threads) is read whenever a
// stage starts or ends or borrows or returns a worker, and what was spent
// since the last reading is shared among the stages then running in
// proportion to the workers each holds (its own and those it borrowed).
// Go gives no CPU clock per goroutine, so a stage's figure is an estimate
// where stages overlap (the runtime's garbage collection and another
// stage's burst are shared out too), and exact where a stage runs alone.
type cpuMeter struct {
	read    func() (time.Duration, bool) // the process's CPU time so far
	mu      sync.Mutex
	last    time.Duration
	ok      bool
	running map[*cpuShare]struct{}
}

// cpuShare is one stage's account with a cpuMeter.
type cpuShare struct {
	m       *cpuMeter
	workers int
	cpu     time.Duration
}

type shareKey struct{}

func newCPUMeter(read func() (time.Duration, bool)) *cpuMeter {
	m := &cpuMeter{read: read, running: map[*cpuShare]struct{}{}}
	m.last, m.ok = read()
	return m
}

// settle shares the CPU time spent since the last reading among the
// running stages. The caller holds m.mu.
func (m *cpuMeter) settle() {
	now, ok := m.read()
	if !ok || !m.ok {
		return
	}
	spent := now - m.last
	m.last = now
	total := 0
	for s := range m.running {
		total += s.workers
	}
	if total == 0 || spent <= 0 {
		return
	}
	for s := range m.running {
		s.cpu += spent * time.Duration(s.workers) / time.Duration(total)
	}
}

// start opens a stage's account, holding one worker, and returns ctx
// carrying it for BorrowWorker.
func (m *cpuMeter) start(ctx context.Context) (context.Context, *cpuShare) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.settle()
	s := &cpuShare{m: m, workers: 1}
	m.running[s] = struct{}{}
	return context.WithValue(ctx, shareKey{}, s), s
}

// stop closes s and returns its CPU time in seconds; 0 where the
// process's CPU time cannot be read.
func (m *cpuMeter) stop(s *cpuShare) float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.settle()
	delete(m.running, s)
	return s.cpu.Seconds()
}

// lend changes the workers s holds by d (a borrowed worker: +1, returned:
// -1), for a ctx that carries a share; a no-op otherwise.
func lend(ctx context.Context, d int) {
	s, _ := ctx.Value(shareKey{}).(*cpuShare)
	if s == nil {
		return
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	s.m.settle()
	s.workers += d
}
