package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"sort"
	"sync"
	"time"

	"github.com/sourcegraph/conc/pool"
)

// InputRef is a file a task reads: its path (absolute, on the filesystem
// the driver and every worker share) and the sha256 the driver saw. A task
// is run only if the file still has that hash, so a retried or relocated
// task cannot read different bytes from the ones its result is keyed by.
type InputRef struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// A Task is one unit of a stage's work that may run outside the driver:
// a pure function of its Spec, its Inputs (by hash) and its Seed. Its
// result is bytes that the driver decodes and writes itself, in task
// order, so which worker ran it, how many there were and how often it was
// retried cannot change an output byte.
type Task struct {
	// Kind is the registered name of the function that runs it
	// (RegisterTask).
	Kind string `json:"kind"`
	// Name identifies the task within its batch and in errors (an
	// evaluation cell's key, a model's name).
	Name   string     `json:"name"`
	Spec   []byte     `json:"spec"` // JSON, read by the task's function
	Inputs []InputRef `json:"inputs"`
	Seed   uint64     `json:"seed"`
	// Affinity, if not empty, asks that the tasks of equal Affinity, in
	// this batch and the ones after it, run on the same worker where
	// they can: a worker may keep state between them (a MARL rollout
	// between its steps) that another would rebuild. An executor may
	// ignore it; a result never depends on it.
	Affinity string `json:"affinity,omitempty"`
}

// A Batch is the tasks of one run of one stage.
type Batch struct {
	// Stage is the stage's name; Key its cache key. A distributed
	// executor keys its durable state by Key, so a driver that crashed and
	// runs the same stage again re-attaches to the work already done.
	Stage, Key string
	// Dir is a directory inside the run directory, private to the stage,
	// where the driver leaves the files its tasks read and a distributed
	// executor leaves their results (so only paths and hashes travel
	// between machines).
	Dir   string
	Tasks []Task
}

// An Executor runs batches of tasks. Run returns one result per task, in
// task order, or the first error, which names its task.
type Executor interface {
	Run(ctx context.Context, b Batch) ([][]byte, error)
}

// TaskEnv is what a running task sees of where it runs.
type TaskEnv struct {
	// Heartbeat reports that the task is alive; details (small: a
	// checkpoint's path and hash, not the checkpoint) are handed back in
	// Resume if the task is retried after its worker died. Never nil.
	Heartbeat func(details []byte)
	// Resume is the details of the last heartbeat of a previous attempt,
	// nil on the first.
	Resume []byte
	// Retried says that the executor retries a task whose worker died and
	// hands it Resume: only then is a checkpoint worth its cost (Local
	// runs a task once, in the driver's process).
	Retried bool
}

// A TaskFunc runs one task. It must depend only on t (its spec, inputs
// and seed) and, to resume, on env.Resume.
type TaskFunc func(ctx context.Context, t Task, env TaskEnv) ([]byte, error)

var (
	registryMu sync.RWMutex
	registry   = map[string]TaskFunc{}
)

// RegisterTask registers the function of a task kind; packages register
// theirs in init. Registering a kind twice is a programming error and
// panics, as http.Handle does.
func RegisterTask(kind string, fn TaskFunc) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[kind]; dup {
		panic("pipeline: task kind " + kind + " registered twice")
	}
	registry[kind] = fn
}

// TaskKinds are the registered task kinds, sorted.
func TaskKinds() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	var out []string
	for k := range registry {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Errors of RunTask that no retry can cure: an executor does not retry
// them on another worker.
var (
	// ErrUnknownTask: no function is registered for the task's kind (a
	// worker of another build).
	ErrUnknownTask = errors.New("no function registered for this task kind")
	// ErrInputChanged: an input's bytes are not those the driver hashed.
	ErrInputChanged = errors.New("input changed since the driver hashed it")
	// ErrInputMissing: an input is not visible where the task runs (the
	// run directory is not on a filesystem the worker shares).
	ErrInputMissing = errors.New("input not visible to this worker (is the run directory on a filesystem every worker shares?)")
	// ErrCheckpointChanged: the resume checkpoint a previous attempt
	// recorded in its heartbeat does not have the sha256 it recorded.
	ErrCheckpointChanged = errors.New("resume checkpoint changed since the previous attempt recorded it")
)

// RunTask runs t with its registered function after checking that every
// input has its recorded hash. A panic comes back as an error. Errors name
// the task.
func RunTask(ctx context.Context, t Task, env TaskEnv) (out []byte, err error) {
	registryMu.RLock()
	fn, ok := registry[t.Kind]
	registryMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("task %s (%s): %w", t.Name, t.Kind, ErrUnknownTask)
	}
	if err := VerifyInputs(t); err != nil {
		return nil, err
	}
	if env.Heartbeat == nil {
		env.Heartbeat = func([]byte) {}
	}
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("task %s (%s): panic: %v\n%s", t.Name, t.Kind, v, debug.Stack())
		}
	}()
	out, err = fn(ctx, t, env)
	if err != nil {
		return nil, fmt.Errorf("task %s (%s): %w", t.Name, t.Kind, err)
	}
	return out, nil
}

// VerifyInputs checks that every input of t exists and has its recorded
// sha256. Hashes are remembered per (path, size, modification time), so the
// many tasks of a batch that share an input hash it once per process.
func VerifyInputs(t Task) error {
	for _, in := range t.Inputs {
		fi, err := os.Stat(in.Path)
		if err != nil {
			return fmt.Errorf("task %s (%s): input %s: %w: %v", t.Name, t.Kind, in.Path, ErrInputMissing, err)
		}
		sum, err := cachedHash(in.Path, fi)
		if err != nil {
			return fmt.Errorf("task %s (%s): input %s: %w", t.Name, t.Kind, in.Path, err)
		}
		if sum != in.SHA256 {
			return fmt.Errorf("task %s (%s): input %s: %w: sha256 %s, the driver recorded %s", t.Name, t.Kind, in.Path, ErrInputChanged, sum, in.SHA256)
		}
	}
	return nil
}

// hashKey is a version of a file (SameVersion's fields): a hash is reused
// only for the same file, size, modification and change time.
type hashKey struct {
	path  string
	id    fileID
	size  int64
	mtime time.Time
	ctime int64
}

var (
	hashMu    sync.Mutex
	hashCache = map[hashKey]string{}
)

func cachedHash(path string, fi os.FileInfo) (string, error) {
	if fi.IsDir() { // a directory's own time says nothing of its files'
		sum, _, err := HashPath(path)
		return sum, err
	}
	id, _ := idOf(fi)
	ctime, _ := ctimeOf(fi)
	k := hashKey{path, id, fi.Size(), fi.ModTime(), ctime}
	hashMu.Lock()
	sum, ok := hashCache[k]
	hashMu.Unlock()
	if ok {
		return sum, nil
	}
	sum, _, err := HashFile(path)
	if err != nil {
		return "", err
	}
	hashMu.Lock()
	hashCache[k] = sum
	hashMu.Unlock()
	return sum, nil
}

// Local runs tasks in this process, Workers at a time (≤ 0 means 1): the
// executor of a run on one machine.
type Local struct{ Workers int }

// Run runs b's tasks in a pool; each writes only its own slot, so the
// results do not depend on scheduling. The first error cancels the rest.
func (l Local) Run(ctx context.Context, b Batch) ([][]byte, error) {
	out := make([][]byte, len(b.Tasks))
	p := pool.New().WithContext(ctx).WithMaxGoroutines(max(l.Workers, 1)).WithCancelOnError().WithFirstError()
	for i, t := range b.Tasks {
		p.Go(func(ctx context.Context) error {
			res, err := RunTask(ctx, t, TaskEnv{})
			out[i] = res
			return err
		})
	}
	if err := p.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}
