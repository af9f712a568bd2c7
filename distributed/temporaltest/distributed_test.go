package temporaltest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/schedlab/schedlab/distributed/temporalexec"
	"github.com/schedlab/schedlab/pipeline"
	_ "github.com/schedlab/schedlab/stages" // registers eval.cell, as the binary does
	"github.com/sourcegraph/conc"
	"go.temporal.io/server/temporaltest"
)

// revision is stamped into the binary the tests build and set in this
// process, so that the in-process worker and the binary's driver and
// workers are one schedlab version.
const revision = "distributed-test"

var bin string // the schedlab binary

func TestMain(m *testing.M) {
	pipeline.Revision = revision
	dir, err := os.MkdirTemp("", "schedlab-distributed-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "schedlab")
	// -tags temporal: the default build leaves the Temporal executor out.
	build := exec.Command("go", "build", "-buildvcs=false", "-tags", "temporal", "-ldflags", "-X github.com/schedlab/schedlab/pipeline.Revision="+revision, "-o", bin, "./cmd/schedlab")
	build.Dir = filepath.Join("..", "..")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build schedlab:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// calls counts the runs of the test.upper task in this process.
var calls atomic.Int64

func init() {
	pipeline.RegisterTask("temporaltest.upper", func(ctx context.Context, t pipeline.Task, env pipeline.TaskEnv) ([]byte, error) {
		calls.Add(1)
		b, err := os.ReadFile(t.Inputs[0].Path)
		if err != nil {
			return nil, err
		}
		return []byte(strings.ToUpper(string(b))), nil
	})
	// A long training: it runs until it is cancelled, and says so.
	pipeline.RegisterTask("temporaltest.wait", func(ctx context.Context, t pipeline.Task, env pipeline.TaskEnv) ([]byte, error) {
		<-ctx.Done()
		time.Sleep(100 * time.Millisecond) // its last checkpoint
		waitStopped.Store(true)
		return nil, ctx.Err()
	})
}

// waitStopped says a temporaltest.wait task has stopped.
var waitStopped atomic.Bool

func server(t *testing.T) (hostPort, namespace string) {
	ts := temporaltest.NewServer(temporaltest.WithT(t))
	return ts.GetFrontendHostPort(), ts.GetDefaultNamespace()
}

// worker runs an in-process worker until the test ends.
func worker(t *testing.T, opt temporalexec.WorkerOptions) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg conc.WaitGroup
	wg.Go(func() {
		if err := temporalexec.RunWorker(ctx, opt); err != nil {
			t.Errorf("worker: %v", err)
		}
	})
	t.Cleanup(func() { cancel(); wg.Wait() })
	time.Sleep(time.Second) // its pollers reach the server
}

// executor starts a server and an in-process worker of two slots on it,
// and dials an executor to it, closed when the test ends.
func executor(t *testing.T) (hostPort, namespace string, ex *temporalexec.Executor) {
	hostPort, namespace = server(t)
	worker(t, temporalexec.WorkerOptions{Slots: 2, Options: temporalexec.Options{HostPort: hostPort, Namespace: namespace}})
	ex, err := temporalexec.Dial(context.Background(), temporalexec.Options{HostPort: hostPort, Namespace: namespace})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ex.Close)
	return hostPort, namespace, ex
}

// schedlab runs the binary and fails the test if it fails.
// workerProcess starts `schedlab worker` with one slot on the server as
// a process of its own, its output (stdout and stderr) read through the
// returned scanner; the caller kills or waits for it and closes the pipe.
func workerProcess(t *testing.T, hostPort, namespace string, args ...string) (*exec.Cmd, *bufio.Scanner, *os.File) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"worker", "--temporal", hostPort, "--namespace", namespace, "--slots", "1"}, args...)...)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr, cmd.Stdout = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	return cmd, bufio.NewScanner(r), r
}

func schedlab(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("schedlab %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// sameOutputs compares two run directories as /work/notes/cmp.sh does:
// every file but the state directory, manifest, report and timings
// (wall-clock figures).
func sameOutputs(t *testing.T, a, b string, skip ...string) {
	t.Helper()
	files := func(root string) map[string][]byte {
		m := map[string][]byte{}
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			if strings.HasPrefix(rel, ".schedlab") || rel == "manifest.json" || strings.HasPrefix(rel, "report.") || strings.Contains(rel, "timings") {
				return nil
			}
			m[rel], _ = os.ReadFile(p)
			return nil
		})
		return m
	}
	fa, fb := files(a), files(b)
	if len(fa) == 0 || len(fa) != len(fb) {
		t.Fatalf("%s has %d files, %s has %d", a, len(fa), b, len(fb))
	}
	for name, da := range fa {
		if slices.ContainsFunc(skip, func(suffix string) bool { return strings.HasSuffix(name, suffix) }) {
			t.Logf("not compared: %s", name)
			continue
		}
		if db, ok := fb[name]; !ok || !bytes.Equal(da, db) {
			t.Errorf("%s differs between %s and %s", name, a, b)
		}
	}
}

// The quick preset through the local executor, through Temporal with one
// in-process worker, and with two worker processes of which one is killed
// mid-run: byte-identical.
func TestQuickPreset(t *testing.T) {
	hp, ns := server(t)
	endpoint := "temporal://" + hp + "/" + ns
	dir := t.TempDir()
	base, local, one, two := filepath.Join(dir, "base"), filepath.Join(dir, "local"), filepath.Join(dir, "one"), filepath.Join(dir, "two")

	t0 := time.Now()
	schedlab(t, "run", "--preset", "quick", "--out", base)
	t.Logf("in process: %v", time.Since(t0).Round(time.Millisecond))
	t0 = time.Now()
	schedlab(t, "run", "--preset", "quick", "--executor", "local", "--out", local)
	t.Logf("--executor local: %v", time.Since(t0).Round(time.Millisecond))
	sameOutputs(t, base, local)

	t.Run("one in-process worker", func(t *testing.T) {
		before := time.Now()
		ctx, cancel := context.WithCancel(context.Background())
		var wg conc.WaitGroup
		wg.Go(func() {
			if err := temporalexec.RunWorker(ctx, temporalexec.WorkerOptions{Slots: 2, Options: temporalexec.Options{HostPort: hp, Namespace: ns}}); err != nil {
				t.Errorf("worker: %v", err)
			}
		})
		defer func() { cancel(); wg.Wait() }()
		time.Sleep(time.Second)
		out := schedlab(t, "run", "--preset", "quick", "--executor", endpoint, "--out", one)
		t.Logf("temporal, 1 in-process worker: %v", time.Since(before).Round(time.Millisecond))
		if !strings.Contains(out, "stage on temporal") {
			t.Fatalf("no stage ran on temporal:\n%s", out)
		}
		// A trained model's curves.parquet is written by this test binary
		// (the in-process worker): it once differed from the schedlab
		// binary's in parquet-go's created_by, which parquet-go took from
		// build information that a test binary lacks (datasets/parquet.go).
		sameOutputs(t, base, one)
	})

	t.Run("two worker processes, one killed", func(t *testing.T) {
		w1, out1, r1 := workerProcess(t, hp, ns)
		defer r1.Close()
		w2, out2, r2 := workerProcess(t, hp, ns)
		defer func() { w2.Process.Signal(syscall.SIGTERM); w2.Wait(); r2.Close() }()
		// w2's log, read to the end once it exits: the retries it ran.
		var w2log bytes.Buffer
		var readers conc.WaitGroup
		readers.Go(func() {
			for out2.Scan() {
				w2log.WriteString(out2.Text() + "\n")
			}
		})
		time.Sleep(2 * time.Second)

		before := time.Now()
		// A killed worker's task is retried after 3 s without heartbeats.
		driver := exec.Command(bin, "run", "--preset", "quick", "--executor", endpoint+"?heartbeat_timeout=3s", "--out", two)
		var dlog bytes.Buffer
		driver.Stdout, driver.Stderr = &dlog, &dlog
		if err := driver.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill w1 (SIGKILL: no goodbye) as soon as it starts a task.
		killed := ""
		for out1.Scan() {
			if line := out1.Text(); strings.Contains(line, "task started") {
				killed = line
				w1.Process.Kill()
				break
			}
		}
		w1.Wait()
		if killed == "" {
			t.Fatal("worker 1 never started a task")
		}
		t.Logf("killed worker 1 in: %s", killed)
		if err := driver.Wait(); err != nil {
			t.Fatalf("driver: %v\n%s", err, dlog.String())
		}
		t.Logf("temporal, 2 worker processes, one killed: %v", time.Since(before).Round(time.Millisecond))
		sameOutputs(t, base, two)
		w2.Process.Signal(syscall.SIGTERM)
		w2.Wait()
		r2.Close()
		readers.Wait()
		retried := strings.Count(w2log.String(), "attempt=2")
		t.Logf("worker 2 ran %d tasks, %d of them retries of worker 1's", strings.Count(w2log.String(), "task started"), retried)
	})
}

// resumeConfig layers 150 MARL training episodes (about 0.075 s each here)
// over the quick preset's marl-arrivals: long enough to kill a worker in
// the middle of a training.
const resumeConfig = `eval:
  experiments: [marl-arrivals]
train:
  marl:
    episodes: 150
`

// A training whose worker is killed resumes on another worker from the
// checkpoint its last heartbeat names, not from episode 1, and the run is
// byte-identical to one without executor. Worker 1 runs alone until it
// has checkpointed episode 30 and a heartbeat timeout (3 s) has passed
// since its first checkpoint: Temporal's SDK sends a task's heartbeats
// at most every 0.8 × the timeout, so a checkpoint has reached the server
// by then, however fast the episodes run (at 75 ms an episode, 30
// episodes came before any heartbeat had named one, and worker 2 rightly
// trained from the first episode). Then it is killed, and worker 2 takes
// the retry. The training's 150 episodes leave room for both conditions.
func TestKilledTrainingResumes(t *testing.T) {
	hp, ns := server(t)
	endpoint := "temporal://" + hp + "/" + ns
	dir := t.TempDir()
	cfg := filepath.Join(dir, "resume.yaml")
	if err := os.WriteFile(cfg, []byte(resumeConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	base, two := filepath.Join(dir, "base"), filepath.Join(dir, "two")
	schedlab(t, "run", "--preset", "quick", "--config", cfg, "--out", base)

	w1, out1, r1 := workerProcess(t, hp, ns, "--log-level", "debug")
	defer r1.Close()
	time.Sleep(2 * time.Second)
	driver := exec.Command(bin, "run", "--preset", "quick", "--config", cfg, "--executor", endpoint+"?heartbeat_timeout=3s", "--out", two)
	var dlog bytes.Buffer
	driver.Stdout, driver.Stderr = &dlog, &dlog
	if err := driver.Start(); err != nil {
		t.Fatal(err)
	}
	killed := ""
	var first time.Time // worker 1's first checkpoint
	for out1.Scan() {
		line := out1.Text()
		var done int
		if i := strings.Index(line, "episodes_done="); strings.Contains(line, "training checkpoint saved") && i >= 0 {
			fmt.Sscanf(line[i+len("episodes_done="):], "%d", &done)
			if first.IsZero() {
				first = time.Now()
			}
		}
		if done >= 30 && time.Since(first) >= 3*time.Second {
			killed = line
			w1.Process.Kill()
			break
		}
	}
	w1.Wait()
	if killed == "" {
		driver.Process.Kill()
		driver.Wait()
		t.Fatalf("worker 1 never checkpointed episode 30 of a training 3 s after its first checkpoint:\n%s", dlog.String())
	}
	t.Logf("killed worker 1 after: %s", killed)

	w2, out2, r2 := workerProcess(t, hp, ns, "--log-level", "debug")
	var w2log bytes.Buffer
	var readers conc.WaitGroup
	readers.Go(func() {
		for out2.Scan() {
			w2log.WriteString(out2.Text() + "\n")
		}
	})
	if err := driver.Wait(); err != nil {
		t.Fatalf("driver: %v\n%s", err, dlog.String())
	}
	w2.Process.Signal(syscall.SIGTERM)
	w2.Wait()
	r2.Close()
	readers.Wait()
	sameOutputs(t, base, two)
	var resumed string
	for _, line := range strings.Split(w2log.String(), "\n") {
		if strings.Contains(line, "training resumed from its checkpoint") {
			resumed = line
		}
		if strings.Contains(line, "training from the first episode") {
			t.Errorf("worker 2 restarted a training: %s", line)
		}
	}
	if resumed == "" {
		t.Fatalf("worker 2 resumed no training; its log:\n%s", w2log.String())
	}
	t.Logf("worker 2: %s", resumed)
}

// batch writes n temporaltest.upper tasks' inputs into dir.
func batch(t *testing.T, dir string, n int) pipeline.Batch {
	t.Helper()
	b := pipeline.Batch{Stage: "test", Key: fmt.Sprintf("%x", time.Now().UnixNano()), Dir: dir}
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("in-%d", i))
		if err := os.WriteFile(p, []byte(fmt.Sprintf("cell %d", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		sum, _, _ := pipeline.HashFile(p)
		b.Tasks = append(b.Tasks, pipeline.Task{Kind: "temporaltest.upper", Name: fmt.Sprintf("cell-%d", i), Inputs: []pipeline.InputRef{{Path: p, SHA256: sum}}})
	}
	return b
}

// A driver that runs a stage again (after a crash) attaches to its
// workflow: the finished tasks are not run again.
func TestReattach(t *testing.T) {
	_, _, ex := executor(t)
	b := batch(t, t.TempDir(), 4)
	calls.Store(0)
	for round := range 2 {
		out, err := ex.Run(context.Background(), b)
		if err != nil {
			t.Fatal(err)
		}
		for i, o := range out {
			if want := fmt.Sprintf("CELL %d", i); string(o) != want {
				t.Errorf("round %d: task %d = %q, want %q", round, i, o, want)
			}
		}
	}
	if n := calls.Load(); n != 4 {
		t.Errorf("4 tasks ran %d times over two runs of the stage, want 4", n)
	}
}

// Bad input: each a clear error naming the task, never a silent rerun.
func TestBadInput(t *testing.T) {
	hp, ns, ex := executor(t)
	ctx := context.Background()

	t.Run("input hash no longer matches", func(t *testing.T) {
		b := batch(t, t.TempDir(), 3)
		os.WriteFile(b.Tasks[1].Inputs[0].Path, []byte("edited"), 0o644)
		t0 := time.Now()
		_, err := ex.Run(ctx, b)
		if err == nil || !strings.Contains(err.Error(), "task cell-1 (temporaltest.upper)") || !strings.Contains(err.Error(), "input changed since the driver hashed it") {
			t.Fatalf("got %v", err)
		}
		// Not retried: retries back off from 1 s.
		if el := time.Since(t0); el > 10*time.Second {
			t.Errorf("took %v: retried?", el)
		}
	})
	t.Run("a failing task stops the others first", func(t *testing.T) {
		fast, err := temporalexec.Dial(ctx, temporalexec.Options{HostPort: hp, Namespace: ns, HeartbeatTimeout: 3 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer fast.Close()
		b := batch(t, t.TempDir(), 2)
		b.Tasks[0].Kind = "temporaltest.wait"
		os.WriteFile(b.Tasks[1].Inputs[0].Path, []byte("edited"), 0o644)
		waitStopped.Store(false)
		_, err = fast.Run(ctx, b)
		if err == nil || !strings.Contains(err.Error(), "task cell-1 (temporaltest.upper)") {
			t.Fatalf("got %v", err)
		}
		if !waitStopped.Load() {
			t.Error("the driver had the stage's failure while task cell-0 still ran")
		}
	})
	t.Run("run directory not visible to the worker", func(t *testing.T) {
		b := batch(t, t.TempDir(), 2)
		b.Tasks[0].Inputs[0].Path = "/nonexistent/run/in-0"
		_, err := ex.Run(ctx, b)
		if err == nil || !strings.Contains(err.Error(), "task cell-0") || !strings.Contains(err.Error(), "not visible to this worker") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("no worker of this version", func(t *testing.T) {
		other, err := temporalexec.Dial(ctx, temporalexec.Options{HostPort: hp, Namespace: ns, Version: "another-build"})
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		_, err = other.Run(ctx, batch(t, t.TempDir(), 1))
		if err == nil || !strings.Contains(err.Error(), "no schedlab worker of version another-build") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("endpoint that does not answer", func(t *testing.T) {
		t0 := time.Now()
		_, err := temporalexec.Dial(ctx, temporalexec.Options{HostPort: "127.0.0.1:1", Namespace: ns, DialTimeout: 2 * time.Second})
		if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
			t.Fatalf("got %v", err)
		}
		if el := time.Since(t0); el > 6*time.Second {
			t.Errorf("gave up after %v, want about 2 s", el)
		}
	})
}

// A partitioned ingest whose files are read as tasks by a Temporal
// worker writes the dataset the ingest in one process writes, byte for
// byte; a file repeating an earlier one's job (b, c) is read again by
// the driver with the earlier keys.
func TestIngestShards(t *testing.T) {
	hp, ns := server(t)
	worker(t, temporalexec.WorkerOptions{Slots: 2, Options: temporalexec.Options{HostPort: hp, Namespace: ns}})
	head, err := os.ReadFile(filepath.Join("..", "..", "datasets", "testdata", "pai-sim", "simulator_jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(head)), "\n")
	src := t.TempDir()
	for name, rows := range map[string][]string{"a.csv": lines[:3], "b.csv": {lines[0], lines[2], lines[3]}, "c.csv": {lines[0], lines[3], lines[1]}} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	local, sharded := filepath.Join(t.TempDir(), "local"), filepath.Join(t.TempDir(), "sharded")
	schedlab(t, "ingest", "--source", "pai-sim", "--partitioned", "--input", src, "--out", local)
	out := schedlab(t, "ingest", "--source", "pai-sim", "--partitioned", "--executor", "temporal://"+hp+"/"+ns, "--input", src, "--out", sharded)
	t.Logf("ingest through temporal:\n%s", out)
	files := func(root string) map[string]string {
		m := map[string]string{}
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() == pipeline.LockFile {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			b, _ := os.ReadFile(p)
			m[rel] = string(b)
			return nil
		})
		return m
	}
	a, b := files(local), files(sharded)
	if len(a) < 7 || len(a) != len(b) {
		t.Fatalf("%d files in one process, %d through temporal", len(a), len(b))
	}
	for name, da := range a {
		if b[name] != da {
			t.Errorf("%s differs between the ingest in one process and through temporal", name)
		}
	}
}
