package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/pipeline"
)

func TestLockDirRefusesSecondHolder(t *testing.T) {
	dir := t.TempDir()
	l, err := pipeline.LockDir(dir, "run")
	if err != nil {
		t.Fatal(err)
	}
	_, err = pipeline.LockDir(dir, "eval")
	if !errors.Is(err, pipeline.ErrLocked) {
		t.Fatalf("second lock: %v, want ErrLocked", err)
	}
	if want := fmt.Sprintf("schedlab run (pid %d", os.Getpid()); !strings.Contains(err.Error(), want) {
		t.Errorf("refusal %q does not name the holder %q", err, want)
	}
	l.Unlock()
	l.Unlock() // twice is fine
	if _, err := os.Stat(filepath.Join(dir, pipeline.LockFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file left after Unlock: %v", err)
	}
	l2, err := pipeline.LockDir(dir, "eval")
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	l2.Unlock()
}

// A lock file left by a process that died (its PID is gone) is taken over.
func TestLockDirTakesOverStaleLock(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("without flock a stale lock is removed by hand")
	}
	dir := t.TempDir()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	dead := cmd.Process.Pid // exited and reaped: no such process now
	os.WriteFile(filepath.Join(dir, pipeline.LockFile), fmt.Appendf(nil, "pid %d\ncommand run\n", dead), 0o644)
	l, err := pipeline.LockDir(dir, "run")
	if err != nil {
		t.Fatalf("stale lock of dead pid %d not taken over: %v", dead, err)
	}
	defer l.Unlock()
	b, _ := os.ReadFile(filepath.Join(dir, pipeline.LockFile))
	if !strings.Contains(string(b), fmt.Sprintf("pid %d\n", os.Getpid())) {
		t.Errorf("lock file after takeover: %q", b)
	}
}

// Two runs into one directory at once: the second is refused at once,
// naming the first's PID, and the first completes untouched.
func TestConcurrentRunsRefused(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{})
	first := make(chan error, 1)
	blocker := &gateStage{name: "slow", out: "slow.txt", started: started, release: ctx.Done()}
	go func() { // owned: the test waits on first below
		_, err := (&pipeline.Runner{Dir: dir}).Run(context.Background(), []pipeline.Stage{blocker})
		first <- err
	}()
	<-started
	_, err := (&pipeline.Runner{Dir: dir}).Run(context.Background(), chain(nil, nil))
	if !errors.Is(err, pipeline.ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Errorf("second run: %v, want a refusal naming pid %d", err, os.Getpid())
	}
	cancel()
	if err := <-first; err != nil {
		t.Fatalf("first run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "art")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused run wrote outputs: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "slow.txt")); err != nil {
		t.Errorf("first run's output: %v", err)
	}
}

// gateStage signals that it runs, waits for release, then writes its output.
type gateStage struct {
	name, out string
	started   chan struct{}
	release   <-chan struct{}
}

func (s *gateStage) Name() string      { return s.name }
func (s *gateStage) Version() string   { return "1" }
func (s *gateStage) Inputs() []string  { return nil }
func (s *gateStage) Outputs() []string { return []string{s.out} }
func (s *gateStage) Config() any       { return nil }
func (s *gateStage) Run(ctx context.Context, env *pipeline.Env) error {
	close(s.started)
	<-s.release
	return os.WriteFile(env.Output(s.out), []byte("done\n"), 0o644)
}

// A killed run's temporaries (CreateAtomic's and a stage's staging area)
// are removed by the next run; files that merely look alike are kept.
func TestRunRemovesKilledRunsTemporaries(t *testing.T) {
	dir := t.TempDir()
	left := []string{
		filepath.Join(dir, ".manifest.json.tmp-123456"),
		filepath.Join(dir, "art", ".a.txt.tmp-42"),
		filepath.Join(dir, ".schedlab", "staging", "gone", "x.txt"),
	}
	kept := []string{filepath.Join(dir, "notes.tmp-1"), filepath.Join(dir, ".keep.tmp-x")}
	for _, p := range append(left, kept...) {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("x"), 0o644)
	}
	if _, err := (&pipeline.Runner{Dir: dir}).Run(context.Background(), chain(nil, nil)); err != nil {
		t.Fatal(err)
	}
	for _, p := range left {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind (%v)", p, err)
		}
	}
	for _, p := range kept {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
}

func TestIsScratch(t *testing.T) {
	f, err := pipeline.CreateAtomic(filepath.Join(t.TempDir(), "jobs.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	d, err := pipeline.MkdirScratch(t.TempDir(), "ingest")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{filepath.Base(f.Name()), filepath.Base(d)} {
		if !pipeline.IsScratch(name) {
			t.Errorf("IsScratch(%q) = false for our own temporary", name)
		}
	}
	for _, name := range []string{"jobs.parquet", ".schedlab", pipeline.LockFile, "a.tmp-1", ".a.tmp-", ".a.tmp-1x"} {
		if pipeline.IsScratch(name) {
			t.Errorf("IsScratch(%q) = true", name)
		}
	}
}

// CommitStaged moves every staged file in, the record last, and checks
// every destination before moving any.
func TestCommitStaged(t *testing.T) {
	dir := t.TempDir()
	write := func(p, s string) {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(s), 0o644)
	}
	write(filepath.Join(dir, "manifest.json"), "old record")
	write(filepath.Join(dir, "a", "x.txt"), "old x")
	stage := func() string {
		s, err := pipeline.MkdirScratch(dir, "test")
		if err != nil {
			t.Fatal(err)
		}
		write(filepath.Join(s, "a", "x.txt"), "new x")
		write(filepath.Join(s, "b.txt"), "new b")
		write(filepath.Join(s, "manifest.json"), "new record")
		return s
	}
	// A directory where b.txt goes: nothing moves.
	os.Mkdir(filepath.Join(dir, "b.txt"), 0o755)
	s := stage()
	if err := pipeline.CommitStaged(s, dir, []string{"a/x.txt", "b.txt"}, "manifest.json"); err == nil {
		t.Fatal("commit over a directory succeeded")
	}
	for p, want := range map[string]string{"manifest.json": "old record", "a/x.txt": "old x"} {
		if b, _ := os.ReadFile(filepath.Join(dir, p)); string(b) != want {
			t.Errorf("after a refused commit %s = %q, want %q", p, b, want)
		}
	}
	os.RemoveAll(s)
	os.Remove(filepath.Join(dir, "b.txt"))
	s = stage()
	if err := pipeline.CommitStaged(s, dir, []string{"a/x.txt", "b.txt"}, "manifest.json"); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{"manifest.json": "new record", "a/x.txt": "new x", "b.txt": "new b"} {
		if b, _ := os.ReadFile(filepath.Join(dir, p)); string(b) != want {
			t.Errorf("%s = %q, want %q", p, b, want)
		}
	}
	if err := pipeline.CommitStaged(s, dir, []string{"../escape"}, ""); err == nil {
		t.Error("a name outside dir was accepted")
	}
}
