package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
)

// A Stage is one named, versioned unit of a run.
//
// Inputs names what the stage reads: an artifact produced by another stage
// of the same run (a path relative to the run directory, such as
// "datasets/jobs.parquet") or, when no stage produces it, an external file or
// directory (a raw trace), which must exist. Outputs names the files the
// stage must produce, relative to the run directory; a stage produces exactly
// its declared outputs, no more and no fewer. Config is the subset of the run
// configuration the stage reads: it, the stage's name and Version, and the
// hashes of its inputs make the cache key, so changing a config key re-runs
// exactly the stages that read it and those downstream whose inputs changed.
// Bump Version when a code change alters what the stage writes.
//
// Run must honour ctx (return soon after it is cancelled) and write every
// output to env.Output(name); the Runner moves the files into place only
// after Run returns nil.
type Stage interface {
	Name() string
	Version() string
	Inputs() []string
	Outputs() []string
	Config() any
	Run(ctx context.Context, env *Env) error
}

// Func adapts a function to Stage.
type Func struct {
	StageName    string
	StageVersion string
	In, Out      []string
	Cfg          any
	Fn           func(ctx context.Context, env *Env) error
}

func (f *Func) Name() string                            { return f.StageName }
func (f *Func) Version() string                         { return f.StageVersion }
func (f *Func) Inputs() []string                        { return f.In }
func (f *Func) Outputs() []string                       { return f.Out }
func (f *Func) Config() any                             { return f.Cfg }
func (f *Func) Run(ctx context.Context, env *Env) error { return f.Fn(ctx, env) }

// Env is what a running stage sees of its run.
type Env struct {
	// Seed is the run seed; derive streams with Rand, never use it directly.
	Seed uint64
	// ConfigHash identifies the configuration the stage depends on: the
	// hash of its name, version and Config(), not of the whole run's
	// configuration, so that an output cached across an unrelated config
	// change carries the same bytes as a fresh one. Writers put it in file
	// metadata (schedlab.config_hash); the run's hash is in the manifest.
	ConfigHash string
	// Log is the stage's logger (it carries the stage name).
	Log *slog.Logger

	stage    string
	inputs   map[string]string
	outputs  map[string]bool
	staging  string
	progress *Progress

	executor  Executor
	key       string            // the stage's cache key
	inputHash map[string]string // declared input → sha256
	taskDir   string

	mu   sync.Mutex
	rows map[string]int64
}

// Stage is the name of the running stage.
func (e *Env) Stage() string { return e.stage }

// Input returns the path to read a declared input from. It panics on an
// undeclared name: that is a programming error in the stage.
func (e *Env) Input(name string) string {
	p, ok := e.inputs[name]
	if !ok {
		panic(fmt.Sprintf("pipeline: stage %s reads undeclared input %q", e.stage, name))
	}
	return p
}

// Output returns the path to write a declared output to, creating its
// directory. The file lives in the stage's staging area until the stage
// succeeds. It panics on an undeclared name.
func (e *Env) Output(name string) string {
	if !e.outputs[name] {
		panic(fmt.Sprintf("pipeline: stage %s writes undeclared output %q", e.stage, name))
	}
	p := filepath.Join(e.staging, filepath.FromSlash(name))
	os.MkdirAll(filepath.Dir(p), 0o755)
	return p
}

// Rand returns the random stream of this stage named by key.
func (e *Env) Rand(key ...Key) *rand.Rand { return Rand(e.Seed, StageStream(e.stage), key...) }

// SetRows records the row count of an output for the manifest. Parquet
// outputs are counted automatically.
func (e *Env) SetRows(output string, n int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.rows[output] = n
}

// Progress is the run's progress reporter, for work that starts its own
// bars (it may be nil; a nil Progress reports nothing).
func (e *Env) Progress() *Progress { return e.progress }

// Bar starts a progress bar for a long part of the stage; total ≤ 0 means
// unknown.
func (e *Env) Bar(label string, total int64) *Bar {
	return e.progress.Start(e.stage+": "+label, total)
}

// Executor is the run's executor for the stage's tasks, nil when the stage
// is to do its work in this process.
func (e *Env) Executor() Executor { return e.executor }

// InputRef is a declared input by absolute path and the sha256 the runner
// hashed it to, for a task's Inputs. It panics on an undeclared name.
func (e *Env) InputRef(name string) InputRef {
	p, err := filepath.Abs(e.Input(name))
	if err != nil { // only when the working directory is gone
		p = e.Input(name)
	}
	return InputRef{Path: p, SHA256: e.inputHash[name]}
}

// Batch wraps tasks into the stage's batch: keyed by the stage's cache
// key, with a task directory inside the run directory (created here) for
// the files the tasks read and the results a distributed executor leaves.
// The directory outlives a failed or killed run, so that a driver which
// runs the stage again finds the work already done; the runner removes it
// once the stage's outputs are in place.
func (e *Env) Batch(tasks []Task) (Batch, error) {
	dir, err := filepath.Abs(e.taskDir)
	if err != nil {
		return Batch{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Batch{}, fmt.Errorf("stage %s: task directory: %w", e.stage, err)
	}
	return Batch{Stage: e.stage, Key: e.key, Dir: dir, Tasks: tasks}, nil
}

// TaskDir is the stage's task directory (see Batch).
func (e *Env) TaskDir() string { return e.taskDir }

// Key is the stage's cache key: a digest of its name, version,
// configuration, inputs and the run's seed. State a stage keeps in its
// task directory for a later run to continue from is valid for the
// same key only.
func (e *Env) Key() string { return e.key }
