package temporalexec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/schedlab/schedlab/pipeline"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
)

// Names under which the workflow and activity are registered.
const (
	stageWorkflowName = "schedlab.Stage"
	taskActivityName  = "schedlab.Task"
)

// Application error types that no retry can cure.
const (
	errTypeInput   = "schedlab.input"   // an input changed or is not visible
	errTypeVersion = "schedlab.version" // the task is of another schedlab build
	errTypeUnknown = "schedlab.unknown" // no function for the task's kind
)

// Defaults of Options.
const (
	DefaultNamespace        = "default"
	DefaultDialTimeout      = 10 * time.Second
	DefaultHeartbeatTimeout = time.Minute
	DefaultMaxAttempts      = 5
)

// Options say where the cluster is and how tasks are run on it.
type Options struct {
	// HostPort is the Temporal frontend, HOST:PORT.
	HostPort string
	// Namespace is the Temporal namespace ("" means DefaultNamespace).
	Namespace string
	// DialTimeout bounds connecting to the frontend (0: DefaultDialTimeout):
	// an endpoint that does not answer is an error after this long.
	DialTimeout time.Duration
	// HeartbeatTimeout is how long a task may go without a heartbeat
	// before it is retried elsewhere (0: DefaultHeartbeatTimeout); the
	// driver sets it, and tasks heartbeat every third of it while they run.
	HeartbeatTimeout time.Duration
	// MaxAttempts bounds the attempts of one task (0: DefaultMaxAttempts).
	MaxAttempts int32
	// Version overrides Version() (tests only).
	Version string
	// Log receives the SDK's warnings and the executor's own lines; nil
	// discards them.
	Log *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = DefaultDialTimeout
	}
	if o.HeartbeatTimeout <= 0 {
		o.HeartbeatTimeout = DefaultHeartbeatTimeout
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.Version == "" {
		o.Version = Version()
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return o
}

// ParseEndpoint reads "temporal://HOST:PORT[/NAMESPACE][?heartbeat_timeout=D]"
// into o's HostPort, Namespace and HeartbeatTimeout (a Go duration).
func ParseEndpoint(s string, o *Options) error {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "temporal" || u.Host == "" || u.Port() == "" {
		return fmt.Errorf("temporal endpoint %q: want temporal://HOST:PORT[/NAMESPACE][?heartbeat_timeout=D]", s)
	}
	ns := strings.Trim(u.Path, "/")
	if strings.Contains(ns, "/") {
		return fmt.Errorf("temporal endpoint %q: namespace %q has a /", s, ns)
	}
	q := u.Query()
	for k := range q {
		if k != "heartbeat_timeout" {
			return fmt.Errorf("temporal endpoint %q: unknown parameter %q (known: heartbeat_timeout)", s, k)
		}
	}
	if v := q.Get("heartbeat_timeout"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second {
			return fmt.Errorf("temporal endpoint %q: heartbeat_timeout %q: want a duration of 1s or more", s, v)
		}
		o.HeartbeatTimeout = d
	}
	o.HostPort, o.Namespace = u.Host, ns
	return nil
}

// Version identifies this build of schedlab to the cluster: its VCS
// revision when the build is of a clean checkout, else the sha256 of the
// executable itself (a modified or unstamped build is only known to be the
// same code by its bytes).
var Version = sync.OnceValue(func() string {
	if v := pipeline.BuildVersions(); v.VCSRevision != "" && !v.VCSModified {
		return v.VCSRevision
	}
	exe, err := os.Executable()
	if err == nil {
		var sum string
		if sum, _, err = pipeline.HashFile(exe); err == nil {
			return "exe-" + sum[:16]
		}
	}
	return "unknown"
})

// TaskQueue is the task queue of a schedlab version: workers poll only
// their own, so none runs a task of another build.
func TaskQueue(version string) string { return "schedlab-" + version }

// dial connects to the frontend, giving up after opt.DialTimeout.
func dial(ctx context.Context, opt Options) (client.Client, error) {
	dctx, cancel := context.WithTimeout(ctx, opt.DialTimeout)
	defer cancel()
	c, err := client.DialContext(dctx, client.Options{HostPort: opt.HostPort, Namespace: opt.Namespace,
		Logger: sdklog.NewStructuredLogger(opt.Log)})
	if err != nil {
		if dctx.Err() != nil && ctx.Err() == nil {
			return nil, fmt.Errorf("temporal: %s did not answer within %s: %w", opt.HostPort, opt.DialTimeout, err)
		}
		return nil, fmt.Errorf("temporal: %s (namespace %s): %w", opt.HostPort, opt.Namespace, err)
	}
	return c, nil
}

// Executor runs batches as Temporal workflows; it is a pipeline.Executor.
type Executor struct {
	c   client.Client
	opt Options
	// queues remembers, per task affinity (pipeline.Task.Affinity), the
	// own queue of the worker that last ran a task of it.
	mu     sync.Mutex
	queues map[string]string
}

var _ pipeline.Executor = (*Executor)(nil)

// Dial connects to the cluster; the endpoint must answer within
// opt.DialTimeout.
func Dial(ctx context.Context, opt Options) (*Executor, error) {
	opt = opt.withDefaults()
	c, err := dial(ctx, opt)
	if err != nil {
		return nil, err
	}
	return &Executor{c: c, opt: opt, queues: map[string]string{}}, nil
}

// Close closes the connection.
func (e *Executor) Close() { e.c.Close() }

// stageInput is a stage workflow's input: the batch, as the file its
// tasks are in.
type stageInput struct {
	Stage, Key, Version string
	Tasks               pipeline.InputRef
	N                   int
	HeartbeatTimeout    time.Duration
	MaxAttempts         int32
	// Prefer is, per task, the own queue of the worker it had better run
	// on ("": any), which it waits PreferWait for before any worker may
	// take it (pipeline.Task.Affinity).
	Prefer     []string      `json:",omitempty"`
	PreferWait time.Duration `json:",omitempty"`
}

// taskInput is one task's activity input: its index in the tasks file.
type taskInput struct {
	Stage, Version string
	Tasks          pipeline.InputRef
	Index          int
}

// taskOutput is where a task left its result, and the own queue of the
// worker that ran it.
type taskOutput struct {
	Path, SHA256 string
	Queue        string `json:",omitempty"`
}

// stageOutput is a stage workflow's result: the tasks file it ran (its
// hash) and every task's result, in task order.
type stageOutput struct {
	Tasks   string
	Results []taskOutput
}

// Run runs b as a workflow keyed by the stage's cache key and its task
// directory, attaching to one already running or finished; the results are
// read back from the shared task directory and checked against the
// hashes the tasks reported.
func (e *Executor) Run(ctx context.Context, b pipeline.Batch) ([][]byte, error) {
	if len(b.Tasks) == 0 {
		return nil, nil
	}
	js, err := json.Marshal(b.Tasks)
	if err != nil {
		return nil, fmt.Errorf("temporal: tasks of %s: %w", b.Stage, err)
	}
	tasksPath := filepath.Join(b.Dir, "tasks.json")
	if err := pipeline.WriteFileAtomic(tasksPath, js); err != nil {
		return nil, err
	}
	sum, _, err := pipeline.HashFile(tasksPath)
	if err != nil {
		return nil, err
	}
	if err := e.checkWorkers(ctx); err != nil {
		return nil, fmt.Errorf("stage %s: %w", b.Stage, err)
	}
	dirSum, _ := pipeline.HashJSON(b.Dir)
	id := fmt.Sprintf("schedlab-%s-%.24s-%.8s", b.Stage, b.Key, dirSum)
	in := stageInput{Stage: b.Stage, Key: b.Key, Version: e.opt.Version, Tasks: pipeline.InputRef{Path: tasksPath, SHA256: sum},
		N: len(b.Tasks), HeartbeatTimeout: e.opt.HeartbeatTimeout, MaxAttempts: e.opt.MaxAttempts}
	e.prefer(b, &in)
	out, err := e.execute(ctx, id, in)
	if err != nil {
		return nil, err
	}
	res, err := e.results(b, sum, out)
	if err == nil {
		return res, nil
	}
	// A finished workflow of the same ID whose results are gone (the run
	// directory was removed and the run started again): run it afresh.
	e.opt.Log.Warn("a finished workflow's results are not intact; running the stage again", "stage", b.Stage, "workflow", id, "reason", err)
	if out, err = e.execute(ctx, fmt.Sprintf("%s-%d", id, time.Now().UnixNano()), in); err != nil {
		return nil, err
	}
	return e.results(b, sum, out)
}

// execute starts the workflow (or attaches to the running or finished one
// of the same ID) and waits for its result.
func (e *Executor) execute(ctx context.Context, id string, in stageInput) (stageOutput, error) {
	run, err := e.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: id, TaskQueue: TaskQueue(e.opt.Version),
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}, stageWorkflowName, in)
	if err != nil {
		return stageOutput{}, fmt.Errorf("temporal: stage %s: start workflow %s: %w", in.Stage, id, err)
	}
	e.opt.Log.Info("stage on temporal", "stage", in.Stage, "workflow", id, "run", run.GetRunID(), "tasks", in.N)
	var out stageOutput
	if err := run.Get(ctx, &out); err != nil {
		return stageOutput{}, taskError(in.Stage, id, err)
	}
	return out, nil
}

// taskError makes a workflow's failure readable: the failing task's own
// message (which names the task) rather than the chain of Temporal
// wrappers, which goes to the end.
func taskError(stage, id string, err error) error {
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) {
		return fmt.Errorf("temporal: stage %s: %s (%s; workflow %s)", stage, ae.Message(), ae.Type(), id)
	}
	return fmt.Errorf("temporal: stage %s: workflow %s: %w", stage, id, err)
}

// PreferWait is how long a task with an affinity waits for the worker
// that ran its affinity's last task before any worker may take it: a
// step of a MARL rollout is seconds to minutes of work, and a worker that
// does not hold the rollout replays its episode.
const PreferWait = 5 * time.Second

// prefer sets in.Prefer from the tasks' affinities: the own queue of the
// worker that last ran a task of each.
func (e *Executor) prefer(b pipeline.Batch, in *stageInput) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, t := range b.Tasks {
		q := e.queues[t.Affinity]
		if t.Affinity == "" || q == "" {
			continue
		}
		if in.Prefer == nil {
			in.Prefer, in.PreferWait = make([]string, len(b.Tasks)), PreferWait
		}
		in.Prefer[i] = q
	}
}

// results reads and checks every task's result, and remembers which
// worker ran each task of an affinity.
func (e *Executor) results(b pipeline.Batch, tasksSum string, out stageOutput) ([][]byte, error) {
	defer func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		for i, r := range out.Results {
			if i < len(b.Tasks) && b.Tasks[i].Affinity != "" && r.Queue != "" {
				e.queues[b.Tasks[i].Affinity] = r.Queue
			}
		}
	}()
	if out.Tasks != tasksSum {
		return nil, fmt.Errorf("workflow ran tasks %.12s, the stage's are %.12s", out.Tasks, tasksSum)
	}
	if len(out.Results) != len(b.Tasks) {
		return nil, fmt.Errorf("workflow returned %d results for %d tasks", len(out.Results), len(b.Tasks))
	}
	res := make([][]byte, len(out.Results))
	for i, r := range out.Results {
		data, err := os.ReadFile(r.Path)
		if err != nil {
			return nil, fmt.Errorf("task %s: result: %w", b.Tasks[i].Name, err)
		}
		if got := pipeline.HashBytes(data); got != r.SHA256 {
			return nil, fmt.Errorf("task %s: result %s has sha256 %.12s, the task reported %.12s", b.Tasks[i].Name, r.Path, got, r.SHA256)
		}
		res[i] = data
	}
	return res, nil
}

// checkWorkers fails at once when no worker of this version polls its
// task queue, rather than leaving the tasks waiting for ever.
func (e *Executor) checkWorkers(ctx context.Context) error {
	q := TaskQueue(e.opt.Version)
	dctx, cancel := context.WithTimeout(ctx, e.opt.DialTimeout)
	defer cancel()
	resp, err := e.c.DescribeTaskQueue(dctx, q, enumspb.TASK_QUEUE_TYPE_ACTIVITY)
	if err != nil {
		return fmt.Errorf("temporal: describe task queue %s on %s: %w", q, e.opt.HostPort, err)
	}
	if len(resp.GetPollers()) == 0 {
		return fmt.Errorf("temporal: no schedlab worker of version %s polls task queue %s on %s (namespace %s): start workers from the same build (`schedlab worker --temporal %s`); a worker of another version polls its own queue and never runs these tasks",
			e.opt.Version, q, e.opt.HostPort, e.opt.Namespace, e.opt.HostPort)
	}
	return nil
}
