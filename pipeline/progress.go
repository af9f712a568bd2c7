package pipeline

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// Progress reports long work. On a terminal it redraws one status line (the
// bar that moved last); elsewhere it logs a line per bar every Interval, so
// that CI logs show that work goes on without filling up. A nil *Progress
// reports nothing.
type Progress struct {
	w        io.Writer // the terminal, or nil to log instead
	log      *slog.Logger
	interval time.Duration

	mu       sync.Mutex
	lastDraw time.Time
	lineLen  int
}

// NewProgress returns a Progress drawing on term when it is non-nil, logging
// to log every interval otherwise (interval ≤ 0 means 5 s).
func NewProgress(term io.Writer, log *slog.Logger, interval time.Duration) *Progress {
	if interval <= 0 {
		interval = 5 * time.Second
	}
	return &Progress{w: term, log: log, interval: interval}
}

// Bar is one piece of long work. Its methods are safe for concurrent use.
type Bar struct {
	p     *Progress
	label string
	total int64
	start time.Time

	mu       sync.Mutex
	n        int64
	lastLog  time.Time
	finished bool
}

// Start begins a bar; total ≤ 0 means unknown.
func (p *Progress) Start(label string, total int64) *Bar {
	now := time.Now()
	return &Bar{p: p, label: label, total: total, start: now, lastLog: now}
}

// Add advances the bar by n units.
func (b *Bar) Add(n int64) { b.update(func() { b.n += n }) }

// Set moves the bar to done units, for work that reports its position
// rather than increments.
func (b *Bar) Set(done int64) { b.update(func() { b.n = done }) }

func (b *Bar) update(change func()) {
	if b == nil || b.p == nil {
		return
	}
	b.mu.Lock()
	change()
	done, now := b.n, time.Now()
	logIt := b.p.w == nil && now.Sub(b.lastLog) >= b.p.interval
	if logIt {
		b.lastLog = now
	}
	b.mu.Unlock()
	if b.p.w != nil {
		b.p.draw(b, done, now, false)
	} else if logIt && b.p.log != nil {
		b.p.log.Info("progress", b.attrs(done, now)...)
	}
}

// Done finishes the bar.
func (b *Bar) Done() {
	if b == nil || b.p == nil {
		return
	}
	b.mu.Lock()
	if b.finished {
		b.mu.Unlock()
		return
	}
	b.finished = true
	done, now := b.n, time.Now()
	b.mu.Unlock()
	if b.p.w != nil {
		b.p.draw(b, done, now, true)
	} else if b.p.log != nil && now.Sub(b.start) >= b.p.interval {
		b.p.log.Info("done", b.attrs(done, now)...)
	}
}

func (b *Bar) attrs(done int64, now time.Time) []any {
	a := []any{"task", b.label, "done", done}
	if b.total > 0 {
		a = append(a, "total", b.total, "percent", fmt.Sprintf("%.0f", 100*float64(done)/float64(b.total)))
	}
	return append(a, "elapsed", now.Sub(b.start).Round(time.Second).String())
}

func (p *Progress) draw(b *Bar, done int64, now time.Time, final bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !final && now.Sub(p.lastDraw) < 100*time.Millisecond {
		return
	}
	p.lastDraw = now
	line := b.label + " " + bar(done, b.total, 24) + " " + rate(done, b.total, now.Sub(b.start))
	pad := ""
	if n := p.lineLen - len(line); n > 0 {
		pad = strings.Repeat(" ", n)
	}
	p.lineLen = len(line)
	end := ""
	if final {
		end, p.lineLen = "\n", 0
	}
	fmt.Fprintf(p.w, "\r%s%s%s", line, pad, end)
}

func bar(done, total int64, width int) string {
	if total <= 0 {
		return fmt.Sprintf("[%d]", done)
	}
	f := min(float64(done)/float64(total), 1)
	full := int(f * float64(width))
	return fmt.Sprintf("[%s%s] %3.0f%%", strings.Repeat("=", full), strings.Repeat(" ", width-full), 100*f)
}

func rate(done, total int64, el time.Duration) string {
	s := fmt.Sprintf("%d", done)
	if total > 0 {
		s += fmt.Sprintf("/%d", total)
	}
	s += " " + el.Round(time.Second).String()
	if total > 0 && done > 0 && done < total {
		eta := time.Duration(float64(el) * float64(total-done) / float64(done))
		s += " eta " + eta.Round(time.Second).String()
	}
	return s
}
