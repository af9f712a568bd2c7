package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/schedlab/schedlab/internal/parquettest"
	"github.com/schedlab/schedlab/internal/pythontest"
	"github.com/schedlab/schedlab/internal/shareddata"
)

const replayTrace = "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n" +
	"0,4,0,1,vgg19,100,0\n1,8,10,1,vgg11,20,0\n2,16,20,1,vgg16,50,0\n3,1,30,1,vgg16,40,0\n"

const replaySpec = "num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\n1,2,4,40,256\n"

// replayInputs writes replayTrace (t.csv) and replaySpec (n2g4.csv) into
// a new directory.
func replayInputs(t *testing.T) (dir, trace, cluster string) {
	dir = t.TempDir()
	trace, cluster = filepath.Join(dir, "t.csv"), filepath.Join(dir, "n2g4.csv")
	if err := os.WriteFile(trace, []byte(replayTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cluster, []byte(replaySpec), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, trace, cluster
}

// TestReplay: a Tiresias trace on a Tiresias cluster under 2D-LAS, to CSV
// and to Parquet (read back with Arrow's reader); the 16-GPU job can never
// fit the 8-GPU cluster and is reported, not looped on.
func TestReplay(t *testing.T) {
	t.Parallel()
	dir, trace, cluster := replayInputs(t)
	out := filepath.Join(dir, "jobs.csv")
	_, stderr, code := schedlab(t, nil, "replay", "--trace", trace, "--format", "tiresias", "--cluster", cluster, "--policy", "dlas-gpu", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, `job "t/2" can never fit`) {
		t.Errorf("the oversized job is not reported:\n%s", stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// Job 1 (8 GPUs) waits for job 0 (its service is far below the first
	// queue's limit, so it is not demoted); job 3 (1 GPU) starts on
	// arrival.
	want := "job_id,submit_time,start_time,end_time,preempt,resume,num_gpu,duration,jct,status\n" +
		"t/0,0,0,100,0,0,4,100,100,finished\n" +
		"t/1,10,100,120,0,0,8,20,110,finished\n" +
		"t/2,20,,,0,0,16,50,,never fits\n" +
		"t/3,30,30,70,0,0,1,40,40,finished\n"
	if string(got) != want {
		t.Errorf("csv\n got %s\nwant %s", got, want)
	}

	pq := filepath.Join(dir, "jobs.parquet")
	if _, stderr, code := schedlab(t, nil, "replay", "--trace", trace, "--format", "tiresias", "--cluster", cluster, "--policy", "tiresias-las", "--out", pq); code != 0 {
		t.Fatalf("parquet: exit %d: %s", code, stderr)
	}
	tbl := parquettest.ReadTable(t, pq)
	if tbl.NumRows() != 4 {
		t.Errorf("parquet: %d rows, want 4", tbl.NumRows())
	}
	for _, c := range []string{"job_id", "submit_time", "start_time", "end_time", "preempt"} {
		if len(tbl.Schema().FieldIndices(c)) != 1 {
			t.Errorf("parquet: no column %q", c)
		}
	}
}

// TestReplayBadInput: a bad row names file, line and field; a bad cluster
// name or policy is a usage error.
func TestReplayBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.csv")
	os.WriteFile(trace, []byte(replayTrace+"4,two,40,1,vgg16,10,0\n"), 0o644)
	args := func(extra ...string) []string {
		return append([]string{"replay", "--trace", trace, "--format", "tiresias", "--out", filepath.Join(dir, "o.csv")}, extra...)
	}
	_, stderr, code := schedlab(t, nil, args("--cluster", "small", "--policy", "srtf")...)
	if code != 1 || !strings.Contains(stderr, "t.csv:6: num_gpu") {
		t.Errorf("bad row: exit %d, want 1 naming t.csv:6: num_gpu:\n%s", code, stderr)
	}
	if _, stderr, code := schedlab(t, nil, args("--cluster", "small", "--policy", "srtf", "--skip-bad")...); code != 0 || !strings.Contains(stderr, "1 of 5 rows rejected") {
		t.Errorf("--skip-bad: exit %d:\n%s", code, stderr)
	}
	if _, stderr, code := schedlab(t, nil, args("--cluster", "tiny", "--policy", "srtf")...); code != 2 || !strings.Contains(stderr, "large") {
		t.Errorf("unknown cluster: exit %d, want 2 listing the names:\n%s", code, stderr)
	}
	if _, stderr, code := schedlab(t, nil, args("--cluster", "small", "--policy", "hrrn")...); code != 2 {
		t.Errorf("unknown policy: exit %d, want 2:\n%s", code, stderr)
	}
	good := func(extra ...string) []string {
		os.WriteFile(trace, []byte(replayTrace), 0o644)
		return args(append([]string{"--cluster", "small"}, extra...)...)
	}
	// The restart cost per model: a table is accepted, a bad entry named.
	if _, stderr, code := schedlab(t, nil, good("--policy", "gandiva", "--restart-s", "default=30,vgg16=5")...); code != 0 {
		t.Errorf("--restart-s table: exit %d:\n%s", code, stderr)
	}
	if _, stderr, code := schedlab(t, nil, good("--policy", "gandiva", "--restart-s", "default=30,vgg16=-5")...); code != 2 || !strings.Contains(stderr, "sim.restart_s.vgg16") {
		t.Errorf("--restart-s vgg16=-5: exit %d, want 2 naming sim.restart_s.vgg16:\n%s", code, stderr)
	}
	if _, stderr, code := schedlab(t, nil, good("--policy", "gavel-las", "--round-s", "-1")...); code != 2 || !strings.Contains(stderr, "--round-s") {
		t.Errorf("--round-s -1: exit %d, want 2 naming --round-s:\n%s", code, stderr)
	}
}

// TestReplayPolicyCmd: the Python FIFO-FirstFit example, replayed through
// --policy-cmd, writes the same CSV as the built-in fifo-firstfit on the
// PAI simulator's 6,000-job subset, byte for byte (issue 49).
func TestReplayPolicyCmd(t *testing.T) {
	t.Parallel()
	py := pythontest.Interpreter(t)
	trace := shareddata.Path(t, "pai-v2020/operate_simulator_jobs_6000.csv")
	example, err := filepath.Abs(filepath.Join("..", "..", "python", "examples", "fifo_firstfit.py"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	builtin, external := filepath.Join(dir, "builtin.csv"), filepath.Join(dir, "external.csv")
	// The two replays run at once: the external one waits on its Python
	// child half the time, which the built-in one fills.
	var wg sync.WaitGroup
	var builtinErr error
	wg.Go(func() {
		_, stderr, code, err := runSchedlab(nil, "replay", "--trace", trace, "--format", "pai-sim", "--cluster", "small", "--policy", "fifo-firstfit", "--out", builtin)
		if err == nil && code != 0 {
			err = fmt.Errorf("exit %d: %s", code, stderr)
		}
		builtinErr = err
	})
	_, stderr, code := schedlab(t, nil, "replay", "--trace", trace, "--format", "pai-sim", "--cluster", "small", "--policy-cmd", py+" -u "+example, "--out", external)
	wg.Wait()
	if builtinErr != nil {
		t.Fatalf("built-in: %v", builtinErr)
	}
	if code != 0 {
		t.Fatalf("--policy-cmd: exit %d: %s", code, stderr)
	}
	a, err := os.ReadFile(builtin)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(external)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("the Python FIFO-FirstFit's CSV (%d bytes) differs from fifo-firstfit's (%d bytes)", len(b), len(a))
	}
	if _, stderr, code := schedlab(t, nil, "replay", "--trace", trace, "--format", "pai-sim", "--cluster", "small", "--policy", "fifo-firstfit", "--policy-cmd", "true", "--out", external); code != 2 {
		t.Errorf("--policy with --policy-cmd: exit %d, want 2: %s", code, stderr)
	}
}

// TestReplayKeepsInputs: replay's --out may not name its trace or its
// cluster spec (issue 50's rule for every command's outputs).
func TestReplayKeepsInputs(t *testing.T) {
	t.Parallel()
	_, trace, cluster := replayInputs(t)
	for _, out := range []string{trace, cluster} {
		if _, stderr, code := schedlab(t, nil, "replay", "--trace", trace, "--format", "tiresias", "--cluster", cluster, "--policy", "fifo", "--out", out); code == 0 {
			t.Errorf("--out %s, an input: exit 0 (%s)", filepath.Base(out), stderr)
		}
	}
	if got, _ := os.ReadFile(trace); string(got) != replayTrace {
		t.Errorf("the trace was replaced:\n%s", got)
	}
	if got, _ := os.ReadFile(cluster); string(got) != replaySpec {
		t.Errorf("the cluster spec was replaced:\n%s", got)
	}
}
