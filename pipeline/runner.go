package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/schedlab/schedlab/internal/parquetfile"
	"github.com/sourcegraph/conc/pool"
)

// stateDir holds the runner's records and staging areas inside a run
// directory.
const stateDir = ".schedlab"

// Runner executes a DAG of stages in a run directory.
type Runner struct {
	Dir        string       // run directory; outputs land here
	Seed       uint64       // run seed, handed to every stage
	ConfigHash string       // identifies the effective config; goes into the manifest
	Config     any          // effective config, recorded in the manifest
	Workers    int          // stages run at once; ≤ 0 means 1
	Log        *slog.Logger // nil means slog.Default()
	Progress   *Progress    // nil reports nothing
	// OnStageDone, when set, is called as each stage finishes, ran or
	// cached (not for failed or skipped ones), from the stage's goroutine.
	OnStageDone func(StageManifest)
	// Lock, when set, is the caller's lock on Dir (LockDir), held across
	// Run and whatever the caller writes after it; nil means Run locks Dir
	// for its own duration. Either way a second run into Dir is refused.
	Lock *DirLock
	// Executor runs the tasks that stages hand out (Env.Executor); nil
	// means stages do their work in this process, as they always have.
	Executor Executor
}

// record is what the store keeps for a stage whose outputs are in place.
type record struct {
	Key     string     `json:"key"`
	Outputs []Artifact `json:"outputs"`
}

type node struct {
	stage Stage
	deps  []int
	done  chan struct{}
	man   StageManifest
}

// Run executes stages in dependency order and writes DIR/manifest.json. The
// first error cancels every other stage and is returned wrapped with the
// failing stage's name; a stage whose cache key matches a record whose
// outputs are intact is skipped.
func (r *Runner) Run(ctx context.Context, stages []Stage) (*Manifest, error) {
	log := r.Log
	if log == nil {
		log = slog.Default()
	}
	nodes, err := plan(stages)
	if err != nil {
		return nil, err
	}
	// The files the run reads from outside it (a preset's traces, a
	// models directory) are inputs as a command line's are: no output of
	// the run replaces one, whatever name reaches it.
	defer ProtectInputs(externalInputs(stages)...)()
	if r.Lock == nil {
		l, err := LockDir(r.Dir, "run")
		if err != nil {
			return nil, err
		}
		defer l.Unlock()
	} else if filepath.Clean(r.Lock.Dir()) != filepath.Clean(r.Dir) {
		return nil, fmt.Errorf("pipeline: runner holds the lock of %s, not of its directory %s", r.Lock.Dir(), r.Dir)
	}
	// The state directory is removed from and written into below: a link
	// planted there must not lead those writes out of the run directory.
	for _, d := range []string{"staging", "stages", "tasks"} {
		if _, err := LocalPath(r.Dir, stateDir+"/"+d); err != nil {
			return nil, err
		}
	}
	// Under the lock no one else writes here: whatever staging area or
	// temporary file is present was left by a killed run.
	if err := os.RemoveAll(filepath.Join(r.Dir, stateDir, "staging")); err != nil {
		return nil, err
	}
	if gone, err := RemoveScratch(r.Dir, true); err != nil {
		return nil, err
	} else if len(gone) > 0 {
		log.Info("removed a killed run's temporary files", "files", len(gone))
	}
	if err := os.MkdirAll(filepath.Join(r.Dir, stateDir, "stages"), 0o755); err != nil {
		return nil, err
	}
	// A cached stage's entry carries the cost of the run that made it.
	prev := map[string]StageManifest{}
	if m, err := ReadManifest(r.Dir); err == nil {
		for _, s := range m.Stages {
			prev[s.Name] = s
		}
	}
	start := time.Now()
	meter := newCPUMeter(processCPU)
	workers := max(r.Workers, 1)
	var mu sync.Mutex
	outputs := map[string]Artifact{} // artifact name → hash, filled as stages finish

	// The run's workers as tokens: a running stage holds one, and a stage
	// that can spread its work borrows the idle ones (BorrowWorker).
	budget := make(workerBudget, workers)
	p := pool.New().WithMaxGoroutines(workers).WithContext(ctx).WithCancelOnError().WithFirstError()
	// Nodes are submitted in topological order, so the earliest unfinished
	// node always has its dependencies done: a full pool cannot deadlock.
	// (A stage waiting for its token waits only for running stages and
	// the borrowed goroutines, which wait for nothing.)
	for _, n := range nodes {
		p.Go(func(ctx context.Context) error {
			defer close(n.done)
			n.man = StageManifest{Name: n.stage.Name(), Version: n.stage.Version(), Status: "skipped"}
			for _, d := range n.deps {
				select {
				case <-nodes[d].done:
				case <-ctx.Done():
					return context.Cause(ctx)
				}
				if st := nodes[d].man.Status; st == "failed" || st == "skipped" {
					// The failing stage reports the error; returning
					// one here could race it to be the run's first.
					return nil
				}
			}
			select {
			case budget <- struct{}{}:
			case <-ctx.Done():
				return context.Cause(ctx)
			}
			t0 := time.Now()
			sctx, share := meter.start(context.WithValue(ctx, budgetKey{}, budget))
			err := r.runStage(sctx, log.With("stage", n.stage.Name()), n, outputs, &mu)
			n.man.WallS = time.Since(t0).Seconds()
			n.man.CPUS = meter.stop(share)
			if p, ok := prev[n.man.Name]; ok && n.man.Cached && p.Key == n.man.Key {
				n.man.RanWallS, n.man.RanCPUS = p.ranCost()
			}
			<-budget
			if err != nil {
				n.man.Status = "failed"
				return fmt.Errorf("stage %s: %w", n.stage.Name(), err)
			}
			if r.OnStageDone != nil {
				r.OnStageDone(n.man)
			}
			return nil
		})
	}
	runErr := p.Wait()
	// A stage removes its own staging area and task directory when it
	// ends; their parents go too once empty. A failed stage's task
	// directory stays for the next run (Env.Batch), and so does its parent:
	// os.Remove refuses a directory that is not empty, an error expected
	// here, and any other leaves an empty directory, which harms nothing.
	for _, d := range []string{"staging", "tasks"} {
		_ = os.Remove(filepath.Join(r.Dir, stateDir, d))
	}

	m := &Manifest{Status: "ok", Seed: r.Seed, ConfigHash: r.ConfigHash, Config: r.Config,
		Versions: BuildVersions(), WallS: time.Since(start).Seconds()}
	for _, n := range nodes {
		m.Stages = append(m.Stages, n.man)
	}
	if runErr != nil {
		m.Status, m.Error = "failed", runErr.Error()
		if errors.Is(runErr, context.Canceled) || errors.Is(runErr, context.DeadlineExceeded) {
			m.Status = "cancelled"
		}
	}
	b, err := m.marshal()
	if err == nil {
		err = WriteFileAtomic(filepath.Join(r.Dir, "manifest.json"), b)
	}
	return m, errors.Join(runErr, err)
}

// workerBudget holds a token for every worker of a run in use: by a
// running stage, or lent to one of its goroutines.
type workerBudget chan struct{}

type budgetKey struct{}

// BorrowWorker lends a stage (ctx is the one its Run was given) one of the
// run's idle workers for work it can spread over several goroutines, such
// as grid points that each train a model: ok is false when every worker is
// busy, with this stage or others. Call release when that work is done. A
// stage that runs its extra goroutines only on borrowed workers keeps the
// run within Runner.Workers goroutines at work, and so within the memory
// that many trainings hold at once (issue 18: the sensitivity stage's
// grid points beside another stage's training). Outside a Runner ok is
// always false.
func BorrowWorker(ctx context.Context) (release func(), ok bool) {
	b, _ := ctx.Value(budgetKey{}).(workerBudget)
	if b == nil {
		return nil, false
	}
	select {
	case b <- struct{}{}:
		lend(ctx, +1)
		var once sync.Once
		return func() { once.Do(func() { lend(ctx, -1); <-b }) }, true
	default:
		return nil, false
	}
}

// WithWorkers returns ctx with a budget of n workers, one of them held by
// the caller, for work outside a Runner that lends the others through
// BorrowWorker as a run does its idle ones (schedlab train: one model, on
// the run configuration's workers).
func WithWorkers(ctx context.Context, n int) context.Context {
	w := NewWorkers(n)
	w.b <- struct{}{}
	return w.context(ctx)
}

// Workers is a budget of n workers that the tasks a process runs at once
// share, as a run's stages share its workers: a task holds one while it
// runs (Hold), and work in it that can spread over several goroutines
// borrows the idle ones (BorrowWorker). A Temporal worker with n slots
// has one, so that a MARL training running alone on it learns on the
// cores its idle slots would leave unused, and gives them back at its
// next update when other tasks arrive.
type Workers struct{ b workerBudget }

// NewWorkers returns a budget of n workers (≤ 0 means 1).
func NewWorkers(n int) *Workers { return &Workers{b: make(workerBudget, max(n, 1))} }

// Hold takes one of w's workers for a task, waiting while all are held or
// lent (a lent worker comes back at the borrower's next release: for the
// MARL learner, its next update), and returns ctx with w's budget for
// BorrowWorker and the release of the held worker. The error is ctx's,
// when it ends first.
func (w *Workers) Hold(ctx context.Context) (context.Context, func(), error) {
	select {
	case w.b <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, context.Cause(ctx)
	}
	var once sync.Once
	return w.context(ctx), func() { once.Do(func() { <-w.b }) }, nil
}

// context is ctx with w as the budget BorrowWorker lends from.
func (w *Workers) context(ctx context.Context) context.Context {
	return context.WithValue(ctx, budgetKey{}, w.b)
}

// plan checks the DAG and returns its nodes in a stable topological order:
// among ready stages, the one listed first runs first.
func plan(stages []Stage) ([]*node, error) {
	producer := map[string]int{}
	names := map[string]bool{}
	for i, s := range stages {
		if names[s.Name()] {
			return nil, fmt.Errorf("pipeline: two stages named %q", s.Name())
		}
		names[s.Name()] = true
		for _, o := range s.Outputs() {
			if !filepath.IsLocal(filepath.FromSlash(o)) {
				return nil, fmt.Errorf("pipeline: stage %s: output %q is not a path inside the run directory", s.Name(), o)
			}
			if j, dup := producer[o]; dup {
				return nil, fmt.Errorf("pipeline: output %q produced by both %s and %s", o, stages[j].Name(), s.Name())
			}
			producer[o] = i
		}
	}
	deps := make([][]int, len(stages))
	indeg := make([]int, len(stages))
	users := make([][]int, len(stages))
	for i, s := range stages {
		seen := map[int]bool{}
		for _, in := range s.Inputs() {
			if j, ok := producer[in]; ok && !seen[j] {
				if j == i {
					return nil, fmt.Errorf("pipeline: stage %s reads its own output %q", s.Name(), in)
				}
				seen[j] = true
				deps[i] = append(deps[i], j)
				users[j] = append(users[j], i)
				indeg[i]++
			}
		}
	}
	var order []int
	done := make([]bool, len(stages))
	for len(order) < len(stages) {
		next := -1
		for i := range stages {
			if !done[i] && indeg[i] == 0 {
				next = i
				break
			}
		}
		if next < 0 {
			var cyc []string
			for i, s := range stages {
				if !done[i] {
					cyc = append(cyc, s.Name())
				}
			}
			return nil, fmt.Errorf("pipeline: dependency cycle among stages %v", cyc)
		}
		done[next] = true
		order = append(order, next)
		for _, u := range users[next] {
			indeg[u]--
		}
	}
	pos := make([]int, len(stages))
	for k, i := range order {
		pos[i] = k
	}
	nodes := make([]*node, len(order))
	for k, i := range order {
		n := &node{stage: stages[i], done: make(chan struct{})}
		for _, d := range deps[i] {
			n.deps = append(n.deps, pos[d])
		}
		nodes[k] = n
	}
	return nodes, nil
}

func (r *Runner) runStage(ctx context.Context, log *slog.Logger, n *node, outputs map[string]Artifact, mu *sync.Mutex) error {
	s := n.stage
	// Inputs: artifacts of this run, or external files hashed now.
	inPaths := map[string]string{}
	var ins []Artifact
	for _, in := range s.Inputs() {
		mu.Lock()
		a, ok := outputs[in]
		mu.Unlock()
		if ok {
			inPaths[in] = filepath.Join(r.Dir, filepath.FromSlash(in))
		} else {
			sum, size, err := HashPath(in)
			if err != nil {
				return fmt.Errorf("input %s: %w", in, err)
			}
			a = Artifact{Name: in, SHA256: sum, Bytes: size, External: true}
			inPaths[in] = in
		}
		ins = append(ins, a)
	}
	n.man.Inputs = ins
	key, err := cacheKey(s, ins, r.Seed)
	if err != nil {
		return err
	}
	// sameKey leaves out the hashes of wall-clock inputs (timings) so that
	// the stage's record is byte-identical across runs; key, which has
	// them and so reruns a stage that gathers timings when they change,
	// goes in the record of the stage's wall-clock side.
	sameKey, err := cacheKey(s, withoutClockHashes(ins), r.Seed)
	if err != nil {
		return err
	}
	n.man.Key = key

	rec := RecordFiles(s.Name())
	recPath, clockPath := filepath.Join(r.Dir, rec[0]), filepath.Join(r.Dir, rec[1])
	if outs, ok := r.intact(recPath, clockPath, sameKey, key, s.Outputs()); ok {
		log.Info("stage cached", "key", key[:12])
		n.man.Status, n.man.Cached, n.man.Outputs = "cached", true, outs
		publish(outputs, outs, mu)
		return nil
	}

	staging := filepath.Join(r.Dir, stateDir, "staging", s.Name())
	if err := os.RemoveAll(staging); err != nil { // a killed run's leftovers
		return err
	}
	if err := os.MkdirAll(staging, 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(staging)
	stageHash, err := HashJSON(struct {
		Name, Version string
		Config        any
	}{s.Name(), s.Version(), s.Config()})
	if err != nil {
		return fmt.Errorf("config of stage %s: %w", s.Name(), err)
	}
	env := &Env{Seed: r.Seed, ConfigHash: stageHash, Log: log, stage: s.Name(), inputs: inPaths,
		outputs: map[string]bool{}, staging: staging, progress: r.Progress, rows: map[string]int64{},
		executor: r.Executor, key: key, inputHash: map[string]string{},
		taskDir: filepath.Join(r.Dir, stateDir, "tasks", s.Name())}
	for _, a := range ins {
		env.inputHash[a.Name] = a.SHA256
	}
	for _, o := range s.Outputs() {
		env.outputs[o] = true
	}
	log.Info("stage started")
	if err := callStage(ctx, s, env); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return context.Cause(ctx)
	}
	outs, err := collect(staging, s.Outputs(), env.rows)
	if err != nil {
		return err
	}
	// Forget the old record before replacing outputs: a crash between the
	// renames leaves no record that vouches for a mixture of old and new.
	for _, p := range []string{recPath, clockPath} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	for _, o := range outs {
		dst, err := LocalPath(r.Dir, o.Name)
		if err != nil {
			return err
		}
		if err := MoveOutput(filepath.Join(staging, filepath.FromSlash(o.Name)), dst); err != nil {
			return err
		}
	}
	// Wall-clock outputs (timings) are vouched for by a record of their
	// own, so that the stage's record — like every file of a run outside
	// timings and the manifest — is byte-identical across runs. It is
	// written first: the stage's record, the one that makes the stage
	// cached, only ever exists beside a complete timings record.
	var same, clock []Artifact
	for _, o := range outs {
		if WallClock(o.Name) {
			clock = append(clock, o)
		} else {
			same = append(same, o)
		}
	}
	if len(clock) > 0 || key != sameKey {
		b, _ := json.MarshalIndent(record{Key: key, Outputs: clock}, "", "  ")
		if err := WriteFileAtomic(clockPath, b); err != nil {
			return err
		}
	}
	b, _ := json.MarshalIndent(record{Key: sameKey, Outputs: same}, "", "  ")
	if err := WriteFileAtomic(recPath, b); err != nil {
		return err
	}
	// The tasks' files served only this stage's run, which is committed.
	if err := os.RemoveAll(env.taskDir); err != nil {
		return err
	}
	n.man.Status, n.man.Outputs = "ran", outs
	publish(outputs, outs, mu)
	log.Info("stage finished")
	return nil
}

func publish(outputs map[string]Artifact, outs []Artifact, mu *sync.Mutex) {
	mu.Lock()
	defer mu.Unlock()
	for _, o := range outs {
		outputs[o.Name] = o
	}
}

// callStage runs the stage, turning a panic into an error with its stack.
func callStage(ctx context.Context, s Stage, env *Env) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v\n%s", v, debug.Stack())
		}
	}()
	return s.Run(ctx, env)
}

// The run seed is part of every key: a stage may draw from it (Env.Seed)
// without its Config saying so, and a cached output of another seed would
// be reused under this one's manifest.
func cacheKey(s Stage, ins []Artifact, seed uint64) (string, error) {
	type in struct{ Name, SHA256 string }
	k := struct {
		Name, Version string
		Seed          uint64
		Config        any
		Inputs        []in
	}{Name: s.Name(), Version: s.Version(), Seed: seed, Config: s.Config()}
	for _, a := range ins {
		k.Inputs = append(k.Inputs, in{a.Name, a.SHA256})
	}
	sort.Slice(k.Inputs, func(i, j int) bool { return k.Inputs[i].Name < k.Inputs[j].Name })
	h, err := HashJSON(k)
	if err != nil {
		return "", fmt.Errorf("config of stage %s: %w", s.Name(), err)
	}
	return h, nil
}

// withoutClockHashes returns ins with the hashes of the wall-clock
// artifacts of this run blanked (their names stay).
func withoutClockHashes(ins []Artifact) []Artifact {
	out := make([]Artifact, len(ins))
	for i, a := range ins {
		if !a.External && WallClock(a.Name) {
			a.SHA256, a.Bytes = "", 0
		}
		out[i] = a
	}
	return out
}

// intact reports whether the record at recPath matches sameKey, the one at
// clockPath (the stage's wall-clock side; absent before the split, or when
// the stage has none) matches key, together they list every declared
// output, and every output they list is present with its recorded hash. It
// returns the outputs in declared order.
func (r *Runner) intact(recPath, clockPath, sameKey, key string, declared []string) ([]Artifact, bool) {
	byName := map[string]Artifact{}
	for i, p := range []string{recPath, clockPath} {
		var rec record
		b, err := ReadRecord(p, 0)
		if i == 1 && errors.Is(err, fs.ErrNotExist) && key == sameKey {
			break
		}
		if want := []string{sameKey, key}[i]; err != nil || json.Unmarshal(b, &rec) != nil || rec.Key != want {
			return nil, false
		}
		for _, o := range rec.Outputs {
			if _, dup := byName[o.Name]; dup || !slices.Contains(declared, o.Name) {
				return nil, false // a record lists each declared output once
			}
			path, err := LocalPath(r.Dir, o.Name)
			if err != nil {
				return nil, false
			}
			sum, size, err := HashFile(path)
			if err != nil || sum != o.SHA256 || size != o.Bytes {
				return nil, false
			}
			byName[o.Name] = o
		}
	}
	outs := make([]Artifact, 0, len(declared))
	for _, name := range declared {
		o, ok := byName[name]
		if !ok {
			return nil, false
		}
		outs = append(outs, o)
	}
	return outs, true
}

// WallClock reports whether the output named name holds wall-clock figures
// (stage and cell wall times, decision latencies): by the project's
// convention (DESIGN.md §2) exactly the files whose base name contains
// "timings". Every other output of a run is a pure function of its inputs,
// configuration and seed.
func WallClock(name string) bool { return strings.Contains(path.Base(name), "timings") }

// collect checks that the staging area holds exactly the declared outputs
// and hashes them.
func collect(staging string, declared []string, rows map[string]int64) ([]Artifact, error) {
	want := map[string]bool{}
	for _, o := range declared {
		want[o] = true
	}
	var extra []string
	err := filepath.WalkDir(staging, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(staging, p)
		if !want[filepath.ToSlash(rel)] {
			extra = append(extra, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(extra) > 0 {
		return nil, fmt.Errorf("wrote undeclared files %v", extra)
	}
	var outs []Artifact
	for _, o := range declared {
		p := filepath.Join(staging, filepath.FromSlash(o))
		sum, size, err := HashFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("declared output %s was not written", o)
		}
		if err != nil {
			return nil, err
		}
		a := Artifact{Name: o, SHA256: sum, Bytes: size}
		if n, ok := rows[o]; ok {
			a.Rows = n
		} else if filepath.Ext(o) == ".parquet" {
			a.Rows = parquetRows(p)
		}
		outs = append(outs, a)
	}
	return outs, nil
}

// parquetRows is the row count a stage's Parquet output states in its
// footer, 0 when it cannot be read (the manifest then records no count).
func parquetRows(path string) (n int64) {
	f, pf, err := parquetfile.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	return pf.NumRows()
}

// externalInputs are the inputs of stages that no stage produces, in
// order of first mention.
func externalInputs(stages []Stage) []string {
	produced := map[string]bool{}
	for _, s := range stages {
		for _, o := range s.Outputs() {
			produced[o] = true
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, s := range stages {
		for _, in := range s.Inputs() {
			if !produced[in] && !seen[in] {
				seen[in] = true
				out = append(out, in)
			}
		}
	}
	return out
}
