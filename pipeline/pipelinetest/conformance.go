// Package pipelinetest holds the conformance test that every
// pipeline.Stage implementation must pass.
package pipelinetest

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/schedlab/schedlab/pipeline"
)

// CancelTimeout is how soon a stage must return once its context is
// cancelled.
const CancelTimeout = 10 * time.Second

// Conformance checks that stage s, run after the stages upstream that
// produce its inputs:
//   - produces exactly its declared outputs (the Runner enforces this);
//   - is deterministic: two runs of it with the same seed, each in a
//     directory where it never ran (the first fresh, the second holding
//     the first's upstream outputs), give byte-identical outputs, except
//     outputs with "timings" in their
//     file name, which hold wall-clock measurements by design (DESIGN.md
//     §2) and are only checked to exist;
//   - honours cancellation: with its context cancelled as it starts, it
//     returns within CancelTimeout and leaves none of its outputs in place.
func Conformance(t *testing.T, seed uint64, s pipeline.Stage, upstream ...pipeline.Stage) {
	t.Helper()
	ConformanceIn(t, t.TempDir(), seed, s, upstream...)
}

// ConformanceIn is Conformance with its first run in dir, a run directory
// where s never ran but stages upstream of it may have, with the same
// seed: the runner finds their outputs there intact (by their hashes) and
// does not compute them again, and s's outputs and records stay in dir.
// A test of several stages that depend on one another passes one
// directory to each stage's ConformanceIn in dependency order, so that a
// stage is computed for its own checks, not again for the checks of
// every stage downstream of it (a training upstream of an evaluation and
// of a table derived from that ran four times, not twice). What dir holds
// is trusted: the upstream stages' determinism is their own checks'.
func ConformanceIn(t *testing.T, dir string, seed uint64, s pipeline.Stage, upstream ...pipeline.Stage) {
	t.Helper()
	for _, o := range append(s.Outputs(), pipeline.RecordFiles(s.Name())...) {
		if _, err := os.Lstat(filepath.Join(dir, o)); err == nil {
			t.Fatalf("stage %s: %s is in %s already: its first run must be one where it never ran", s.Name(), o, dir)
		}
	}
	all := append(append([]pipeline.Stage{}, upstream...), s)
	run := func(d string) {
		t.Helper()
		r := &pipeline.Runner{Log: quiet, Dir: d, Seed: seed, ConfigHash: "conformance", Workers: 2}
		if _, err := r.Run(context.Background(), all); err != nil {
			t.Fatalf("stage %s: %v", s.Name(), err)
		}
	}
	// Run b starts from a copy of run a with neither s's outputs nor its
	// records: a directory where the upstream stages ran (their outputs
	// are found intact and reused) and s never did. The upstream stages'
	// own determinism is their own Conformance's to check; running them
	// again here was, for a stage downstream of trainings, most of this
	// test's time.
	a, b := dir, t.TempDir()
	run(a)
	if err := CopyRun(a, b, append(s.Outputs(), pipeline.RecordFiles(s.Name())...)); err != nil {
		t.Fatalf("stage %s: %v", s.Name(), err)
	}
	run(b)
	for _, o := range s.Outputs() {
		x, err := os.ReadFile(filepath.Join(a, o))
		if err != nil {
			t.Fatalf("stage %s: declared output %s: %v", s.Name(), o, err)
		}
		y, err := os.ReadFile(filepath.Join(b, o))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x, y) && !pipeline.WallClock(o) {
			t.Errorf("stage %s: output %s differs between two runs with seed %d", s.Name(), o, seed)
		}
	}

	// The cancelled run starts from such a copy too: the upstream stages
	// find their outputs there intact (the runner's cache is checked by
	// the outputs' hashes) and are not computed again; s runs and is
	// cancelled.
	c := t.TempDir()
	if err := CopyRun(a, c, append(s.Outputs(), pipeline.RecordFiles(s.Name())...)); err != nil {
		t.Fatalf("stage %s: %v", s.Name(), err)
	}
	r := &pipeline.Runner{Log: quiet, Dir: c, Seed: seed, ConfigHash: "conformance", Workers: 2}
	if len(upstream) > 0 {
		if _, err := r.Run(context.Background(), upstream); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := r.Run(ctx, append(append([]pipeline.Stage{}, upstream...), &cancelAtStart{Stage: s, cancel: cancel}))
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("stage %s: cancelled run returned %v, want context.Canceled", s.Name(), err)
		}
	case <-time.After(CancelTimeout):
		t.Fatalf("stage %s: still running %v after cancellation", s.Name(), CancelTimeout)
	}
	for _, o := range s.Outputs() {
		if _, err := os.Stat(filepath.Join(c, o)); err == nil {
			t.Errorf("stage %s: cancelled run left output %s in place", s.Name(), o)
		}
	}
}

// CopyRun copies every file of the run directory src into dst, writable,
// but the files named in skip (slash-separated, relative to src).
func CopyRun(src, dst string, skip []string) error {
	leave := map[string]bool{}
	for _, o := range skip {
		leave[filepath.FromSlash(o)] = true
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if leave[rel] {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
}

// cancelAtStart cancels the run as the wrapped stage starts.
type cancelAtStart struct {
	pipeline.Stage
	cancel context.CancelFunc
}

func (c *cancelAtStart) Run(ctx context.Context, env *pipeline.Env) error {
	c.cancel()
	return c.Stage.Run(ctx, env)
}

var quiet = slog.New(slog.DiscardHandler)
