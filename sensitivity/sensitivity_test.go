package sensitivity

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/schedlab/schedlab/sim"
)

func TestMargin(t *testing.T) {
	for _, tc := range []struct{ best, learned, want float64 }{
		{10, 8, 0.2},   // learned faster: positive
		{10, 12, -0.2}, // the heuristic faster: negative
		{10, 10, 0},
	} {
		if got := Margin(tc.best, tc.learned); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Margin(%v, %v) = %v, want %v", tc.best, tc.learned, got, tc.want)
		}
	}
	if !math.IsNaN(Margin(0, 1)) {
		t.Error("Margin(0, 1): want NaN")
	}
}

// fake is an evaluator whose outcome is a function of the point only, that
// finishes in an order unrelated to the grid's (later points first), so
// that a result that depended on completion order would show it.
func fake(ctx context.Context, part Part, pt Point) (Outcome, error) {
	time.Sleep(time.Duration(10/(pt.Comm*pt.Interference)) * time.Millisecond)
	// Heuristic 0 (packing) pays communication, heuristic 1 (spreading)
	// interference; learned sits in between.
	pack := 1 + pt.Env.CommScale
	spread := 1 + pt.Env.InterferenceScale
	return Outcome{Heuristics: []float64{pack, spread}, Learned: 1 + math.Sqrt(pt.Env.CommScale*pt.Env.InterferenceScale)}, nil
}

func parts() []Part {
	return []Part{
		{Name: "a", Title: "part a", Learned: "learned-a", Heuristics: []string{"pack", "spread"}, Base: sim.NeutralEnvironment(), Unit: "min"},
		{Name: "b", Title: "part b", Learned: "learned-b", Heuristics: []string{"pack", "spread"}, Base: sim.Environment{Name: "e", InterferenceScale: 2, CommScale: 0.5, PSShare: 1}, Unit: "intervals"},
	}
}

// TestRunWorkers: the result, and every file made from it, is the same
// with one worker and with several; cells sit at their grid position with
// the best heuristic and margin of their outcome.
func TestRunWorkers(t *testing.T) {
	g := Grid{Comm: []float64{0.25, 1, 4}, Interference: []float64{0.5, 2}}
	var files [][][]byte
	for _, w := range []int{1, 4} {
		r, err := Run(context.Background(), parts(), g, 7, Workers{Max: w}, fake, nil)
		if err != nil {
			t.Fatal(err)
		}
		svg, png, err := r.Plot()
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, [][]byte{r.Markdown(), r.CSV(), r.LaTeX(), svg, png})
		c := r.Parts[1].Cells[2][0] // comm ×4, interference ×0.5 of e: comm 2, interference 1
		if c.Comm != 4 || c.Interference != 0.5 || c.Env.CommScale != 2 || c.Env.InterferenceScale != 1 {
			t.Fatalf("cell [2][0] of b: %+v", c.Point)
		}
		if c.Best != 1 || math.Abs(c.Margin-(2-(1+math.Sqrt(2)))/2) > 1e-12 {
			t.Errorf("cell [2][0] of b: best %d, margin %v", c.Best, c.Margin)
		}
	}
	for i := range files[0] {
		if !bytes.Equal(files[0][i], files[1][i]) {
			t.Errorf("file %d differs between 1 and 4 workers", i)
		}
	}
	md := string(files[0][0])
	for _, want := range []string{"| a | 0.25 | 0.5 |", "around environment e", "a: learned placement pays (margin > 0) at "} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}

// TestRunBorrows: beyond the first point at a time, a point runs only on
// a lent worker, and every lent worker is given back; the result is the
// one without lending.
func TestRunBorrows(t *testing.T) {
	g := Grid{Comm: []float64{0.25, 1, 4}, Interference: []float64{0.5, 2}}
	want, err := Run(context.Background(), parts(), g, 7, Workers{Max: 1}, fake, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, lend := range []int{0, 1, 3} {
		var mu sync.Mutex
		free, running, most := lend, 0, 0
		borrow := func() (func(), bool) {
			mu.Lock()
			defer mu.Unlock()
			if free == 0 {
				return nil, false
			}
			free--
			return func() {
				mu.Lock()
				defer mu.Unlock()
				free++
			}, true
		}
		eval := func(ctx context.Context, part Part, pt Point) (Outcome, error) {
			mu.Lock()
			running++
			most = max(most, running)
			mu.Unlock()
			// The first point waits (5 s at most) for a second to start
			// beside it when a worker can be lent.
			for first, t0 := part.Name == "a" && pt.Comm == 0.25 && pt.Interference == 0.5, time.Now(); first && lend > 0 && time.Since(t0) < 5*time.Second; {
				mu.Lock()
				n := running
				mu.Unlock()
				if n > 1 {
					break
				}
				time.Sleep(time.Millisecond)
			}
			mu.Lock()
			running--
			mu.Unlock()
			return fake(ctx, part, pt)
		}
		got, err := Run(context.Background(), parts(), g, 7, Workers{Max: 8, Borrow: borrow}, eval, nil)
		if err != nil {
			t.Fatal(err)
		}
		if most > 1+lend {
			t.Errorf("%d workers to lend: %d points at once", lend, most)
		}
		if lend > 0 && most < 2 {
			t.Errorf("%d workers to lend: never more than one point at once", lend)
		}
		if free != lend {
			t.Errorf("%d workers to lend: %d given back", lend, free)
		}
		if !bytes.Equal(got.CSV(), want.CSV()) {
			t.Errorf("%d workers to lend: the table differs from one worker's", lend)
		}
	}
}

// TestRunErrors: a failing point names itself and its part; a grid point
// outside the environment's ranges and a bad grid are rejected before any
// work.
func TestRunErrors(t *testing.T) {
	boom := errors.New("boom")
	failAt := func(ctx context.Context, part Part, pt Point) (Outcome, error) {
		if part.Name == "b" && pt.Comm == 1 {
			return Outcome{}, boom
		}
		return fake(ctx, part, pt)
	}
	_, err := Run(context.Background(), parts(), Grid{Comm: []float64{1}, Interference: []float64{1}}, 1, Workers{Max: 2}, failAt, nil)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "part b, point comm=1,interference=1") {
		t.Errorf("failing point: %v", err)
	}
	short := func(ctx context.Context, part Part, pt Point) (Outcome, error) {
		return Outcome{Heuristics: []float64{1}}, nil
	}
	if _, err := Run(context.Background(), parts(), Grid{Comm: []float64{1}, Interference: []float64{1}}, 1, Workers{Max: 1}, short, nil); err == nil {
		t.Error("an outcome short of heuristics accepted")
	}
	// Neutral comm_scale 1 × 1000 is beyond sim's range (100): clamped
	// (TestPointAtClamps), not refused.
	for _, g := range []Grid{{Comm: nil, Interference: []float64{1}}, {Comm: []float64{1, 1}, Interference: []float64{1}}, {Comm: []float64{1}, Interference: []float64{math.Inf(1)}}} {
		if _, err := Run(context.Background(), parts(), g, 1, Workers{Max: 1}, fake, nil); err == nil {
			t.Errorf("grid %+v accepted", g)
		}
	}
}

// TestPointAtClamps: an environment at a bound of its range (das-paper's
// interference_scale fitted to 0.01) scaled beyond it is clamped to the
// range, not refused (the nightly's 0.5× column failed before).
func TestPointAtClamps(t *testing.T) {
	_, lo, hi := sim.EnvironmentParams()
	base := sim.NeutralEnvironment()
	base.Name = "at-bound"
	base.InterferenceScale, base.CommScale = lo[0], hi[1]
	pt, err := PointAt(base, 2, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if pt.Env.InterferenceScale != lo[0] || pt.Env.CommScale != hi[1] {
		t.Errorf("scaled beyond the range: interference %g (lo %g), comm %g (hi %g)", pt.Env.InterferenceScale, lo[0], pt.Env.CommScale, hi[1])
	}
	if _, err := PointAt(base, math.NaN(), 1); err == nil {
		t.Error("a NaN multiplier was accepted")
	}
}

// TestRunLeftOut: a point whose learned scheduler was left out (its model
// had nothing to train on) keeps its heuristics' results, has no learned
// result or margin, and the notes say where and why; the table, CSV and
// heat map are still written.
func TestRunLeftOut(t *testing.T) {
	g := Grid{Comm: []float64{0.5, 2}, Interference: []float64{0.5, 2}}
	eval := func(ctx context.Context, part Part, pt Point) (Outcome, error) {
		out, err := fake(ctx, part, pt)
		if part.Name == "a" && pt.Comm == 0.5 && pt.Interference == 2 {
			out.Learned, out.LeftOut = 1, "no jobs to train on"
		}
		return out, err
	}
	r, err := Run(context.Background(), parts(), g, 7, Workers{Max: 2}, eval, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := r.Parts[0].Cells[0][1]
	if !math.IsNaN(c.Learned) || !math.IsNaN(c.Margin) || c.Heuristics[c.Best] != 1+c.Env.CommScale {
		t.Errorf("left-out cell: learned %v, margin %v, heuristics %v", c.Learned, c.Margin, c.Heuristics)
	}
	if _, _, err := r.Plot(); err != nil {
		t.Fatal(err)
	}
	md := string(r.Markdown())
	for _, want := range []string{
		"| a | 0.5 | 2 | pack | 1.500 min | — | — |",
		"learned-a: left out at 1 of 4 points, which have the heuristics' results only (—): comm ×0.5, interference ×2 (no jobs to train on).",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Count(md, "left out") != 1 {
		t.Errorf("part b, which trained everywhere, has a left-out note:\n%s", md)
	}
}

// TestPointAtScalesGPUSharing: the interference multiplier scales the
// environment's GPU-sharing term too, on a copy (the base is untouched).
func TestPointAtScalesGPUSharing(t *testing.T) {
	base := sim.NeutralEnvironment()
	g := sim.DefaultGPUShare()
	base.GPUShare = &g
	pt, err := PointAt(base, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	if pt.Env.GPUShare.Scale != 3 || base.GPUShare.Scale != 1 {
		t.Errorf("GPU-sharing scale %g at ×3 (base now %g), want 3 (base 1)", pt.Env.GPUShare.Scale, base.GPUShare.Scale)
	}
	base.GPUShare = nil
	if pt, err := PointAt(base, 1, 3); err != nil || pt.Env.GPUShare != nil {
		t.Errorf("no term: %v %+v", err, pt.Env.GPUShare)
	}
}
