package temporalexec

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedlab/schedlab/pipeline"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
)

func init() {
	pipeline.RegisterTask("temporalexec.test.upper", func(ctx context.Context, t pipeline.Task, env pipeline.TaskEnv) ([]byte, error) {
		b, err := os.ReadFile(t.Inputs[0].Path)
		if err != nil {
			return nil, err
		}
		return []byte(strings.ToUpper(string(b)) + fmt.Sprint(t.Seed)), nil
	})
	// Says whether the task was lent a worker, as the MARL learner asks
	// at each update.
	pipeline.RegisterTask("temporalexec.test.borrow", func(ctx context.Context, t pipeline.Task, env pipeline.TaskEnv) ([]byte, error) {
		release, ok := pipeline.BorrowWorker(ctx)
		if !ok {
			return []byte("refused"), nil
		}
		release()
		return []byte("lent"), nil
	})
}

func TestParseEndpoint(t *testing.T) {
	for _, c := range []struct {
		in, hp, ns string
		hb         time.Duration
	}{
		{"temporal://h:7233", "h:7233", "", 0},
		{"temporal://10.0.0.1:7233/research", "10.0.0.1:7233", "research", 0},
		{"temporal://h:7233/ns?heartbeat_timeout=3s", "h:7233", "ns", 3 * time.Second},
		{"temporal://h:7233?heartbeat_timeout=1ms", "", "", 0},
		{"temporal://h:7233?retries=3", "", "", 0},
		{"temporal://h", "", "", 0},
		{"http://h:7233", "", "", 0},
		{"temporal://h:1/a/b", "", "", 0},
	} {
		var o Options
		err := ParseEndpoint(c.in, &o)
		if (c.hp == "") != (err != nil) || o.HostPort != c.hp || o.Namespace != c.ns || o.HeartbeatTimeout != c.hb {
			t.Errorf("ParseEndpoint(%q) = %+v, %v; want %q, %q, %v", c.in, o, err, c.hp, c.ns, c.hb)
		}
	}
}

// An endpoint that accepts connections but never answers is an error
// within the dial timeout, naming the endpoint.
func TestDialSilentEndpoint(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// One goroutine accepts and holds the connections open without a
	// word; closing the listener ends it, and it closes what it holds.
	done := make(chan struct{})
	go func() { // test-only
		defer close(done)
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	defer func() { l.Close(); <-done }()
	t0 := time.Now()
	_, err = Dial(context.Background(), Options{HostPort: l.Addr().String(), DialTimeout: 2 * time.Second})
	el := time.Since(t0)
	if err == nil || !strings.Contains(err.Error(), l.Addr().String()) || !strings.Contains(err.Error(), "did not answer within 2s") {
		t.Fatalf("got %v, want an error naming %s that did not answer", err, l.Addr())
	}
	// The bound is 2 s; the SDK's own teardown may add a little.
	if el > 6*time.Second {
		t.Errorf("dial gave up after %v, want about 2s", el)
	}
}

// batchFiles writes n upper tasks and their tasks file, as Executor.Run
// does, and returns the tasks file's reference.
func batchFiles(t *testing.T, n int) (pipeline.InputRef, []pipeline.Task) {
	t.Helper()
	dir := t.TempDir()
	var tasks []pipeline.Task
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("in-%d", i))
		os.WriteFile(p, []byte(fmt.Sprint("in", i)), 0o644)
		sum, _, _ := pipeline.HashFile(p)
		tasks = append(tasks, pipeline.Task{Kind: "temporalexec.test.upper", Name: fmt.Sprint("cell", i), Inputs: []pipeline.InputRef{{Path: p, SHA256: sum}}, Seed: 3})
	}
	js, _ := json.Marshal(tasks)
	p := filepath.Join(dir, "tasks.json")
	if err := os.WriteFile(p, js, 0o644); err != nil {
		t.Fatal(err)
	}
	return pipeline.InputRef{Path: p, SHA256: pipeline.HashBytes(js)}, tasks
}

// The stage workflow runs every task as an activity and returns the
// results in task order (the SDK's workflow test environment: no server).
func TestStageWorkflow(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	a := &activities{version: "v1", log: nil}
	a.log = Options{}.withDefaults().Log
	env.RegisterActivityWithOptions(a.Task, activityOptions())
	env.RegisterWorkflowWithOptions(stageWorkflow, workflowOptions())
	ref, _ := batchFiles(t, 5)
	env.ExecuteWorkflow(stageWorkflowName, stageInput{Stage: "s", Version: "v1", Tasks: ref, N: 5, HeartbeatTimeout: 10 * time.Second, MaxAttempts: 2})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var out stageOutput
	if err := env.GetWorkflowResult(&out); err != nil {
		t.Fatal(err)
	}
	if out.Tasks != ref.SHA256 || len(out.Results) != 5 {
		t.Fatalf("result %+v", out)
	}
	for i, r := range out.Results {
		b, err := os.ReadFile(r.Path)
		if err != nil || string(b) != fmt.Sprintf("IN%d3", i) || pipeline.HashBytes(b) != r.SHA256 {
			t.Errorf("task %d: %q, %v", i, b, err)
		}
	}
}

// A task that fails fails the stage at once, while another still runs.
// (That the others are cancelled and waited for is the server's part:
// the test environment neither cancels a cancelled activity's context
// nor waits for it. TestBadInput in the temporaltest module checks it
// against a server.)
func TestStageWorkflowFailsAtOnce(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	var ended atomic.Bool
	release := make(chan struct{})
	stop := time.AfterFunc(20*time.Second, func() { close(release) })
	defer func() {
		if stop.Stop() {
			close(release)
		}
	}()
	env.RegisterActivityWithOptions(func(ctx context.Context, in taskInput) (taskOutput, error) {
		if in.Index == 1 {
			return taskOutput{}, temporal.NewNonRetryableApplicationError("task cell1: input changed", errTypeInput, nil)
		}
		<-release // a long training
		ended.Store(true)
		return taskOutput{}, nil
	}, activityOptions())
	env.RegisterWorkflowWithOptions(stageWorkflow, workflowOptions())
	ref, _ := batchFiles(t, 2)
	env.ExecuteWorkflow(stageWorkflowName, stageInput{Stage: "s", Version: "v1", Tasks: ref, N: 2, HeartbeatTimeout: 10 * time.Second, MaxAttempts: 2})
	err := env.GetWorkflowError()
	if err == nil || !strings.Contains(err.Error(), "task cell1: input changed") {
		t.Fatalf("got %v, want task cell1's error", err)
	}
	if ended.Load() {
		t.Error("the stage waited for task 0 to end before it reported task 1's failure")
	}
}

// A task of another version, a changed input and a tasks file the worker
// cannot see are refused without a retry, naming the task.
func TestTaskActivityRefuses(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	a := &activities{version: "v1", log: Options{}.withDefaults().Log}
	ref, tasks := batchFiles(t, 2)
	os.WriteFile(tasks[1].Inputs[0].Path, []byte("changed"), 0o644)
	gone := ref
	gone.Path = filepath.Join(t.TempDir(), "elsewhere", "tasks.json")
	for _, c := range []struct {
		in   taskInput
		want string
	}{
		{taskInput{Stage: "eval-x", Version: "v0", Tasks: ref, Index: 0}, "task eval-x[0]: is of schedlab version v0, this worker runs v1"},
		{taskInput{Stage: "eval-x", Version: "v1", Tasks: ref, Index: 1}, "task cell1 (temporalexec.test.upper): input"},
		{taskInput{Stage: "eval-x", Version: "v1", Tasks: gone, Index: 0}, "not visible to this worker"},
	} {
		env := s.NewTestActivityEnvironment()
		env.RegisterActivityWithOptions(a.Task, activityOptions())
		_, err := env.ExecuteActivity(taskActivityName, c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "retryable: false") {
			t.Errorf("got %v, want a non-retryable error saying %q", err, c.want)
		}
	}
}

// A task on a worker holds one of its slots and is lent the idle ones
// (the MARL learner's extra goroutines), never one another task holds.
func TestTaskBorrowsIdleSlots(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	ref, tasks := batchFiles(t, 1)
	tasks[0].Kind = "temporalexec.test.borrow"
	js, _ := json.Marshal(tasks)
	if err := os.WriteFile(ref.Path, js, 0o644); err != nil {
		t.Fatal(err)
	}
	ref.SHA256 = pipeline.HashBytes(js)
	run := func(a *activities) string {
		env := s.NewTestActivityEnvironment()
		env.RegisterActivityWithOptions(a.Task, activityOptions())
		v, err := env.ExecuteActivity(taskActivityName, taskInput{Stage: "train-x", Version: "v1", Tasks: ref, Index: 0})
		if err != nil {
			t.Fatal(err)
		}
		var out taskOutput
		if err := v.Get(&out); err != nil {
			t.Fatal(err)
		}
		res, err := os.ReadFile(out.Path)
		if err != nil {
			t.Fatal(err)
		}
		return string(res)
	}
	log := Options{}.withDefaults().Log
	two := pipeline.NewWorkers(2)
	if got := run(&activities{version: "v1", log: log, workers: two}); got != "lent" {
		t.Errorf("alone on two slots: %s, want lent", got)
	}
	_, release, err := two.Hold(context.Background()) // another task's slot
	if err != nil {
		t.Fatal(err)
	}
	if got := run(&activities{version: "v1", log: log, workers: two}); got != "refused" {
		t.Errorf("beside another task on two slots: %s, want refused", got)
	}
	release()
	if got := run(&activities{version: "v1", log: log, workers: pipeline.NewWorkers(1)}); got != "refused" {
		t.Errorf("on one slot: %s, want refused", got)
	}
}

// A task with a preferred worker is sent to that worker's own queue; one
// that the preferred worker does not take in time (its queue's
// schedule-to-start timeout) goes to the shared queue, where any worker
// takes it.
func TestStageWorkflowPrefers(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	var mu sync.Mutex
	ran := map[int][]string{} // per task, the queues it was sent to
	env.RegisterActivityWithOptions(func(ctx context.Context, in taskInput) (taskOutput, error) {
		q := activity.GetInfo(ctx).TaskQueue
		mu.Lock()
		ran[in.Index] = append(ran[in.Index], q)
		mu.Unlock()
		if q == "gone" {
			return taskOutput{}, temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START, nil)
		}
		return taskOutput{Path: fmt.Sprint(in.Index), Queue: "own-" + q}, nil
	}, activityOptions())
	env.RegisterWorkflowWithOptions(stageWorkflow, workflowOptions())
	ref, _ := batchFiles(t, 3)
	env.ExecuteWorkflow(stageWorkflowName, stageInput{Stage: "s", Version: "v1", Tasks: ref, N: 3, HeartbeatTimeout: 10 * time.Second, MaxAttempts: 2,
		Prefer: []string{"w1", "", "gone"}, PreferWait: time.Second})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var out stageOutput
	if err := env.GetWorkflowResult(&out); err != nil {
		t.Fatal(err)
	}
	shared := ran[1][0] // the workflow's own queue
	want := map[int][]string{0: {"w1"}, 1: {shared}, 2: {"gone", shared}}
	for i, w := range want {
		if !slices.Equal(ran[i], w) {
			t.Errorf("task %d sent to %v, want %v", i, ran[i], w)
		}
	}
	for i, r := range out.Results {
		if r.Path != fmt.Sprint(i) {
			t.Errorf("result %d: %+v", i, r)
		}
	}
}
