package temporalexec

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/sourcegraph/conc"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// stageWorkflow runs every task of a batch as an activity, all scheduled
// at once (the workers' slots bound how many run), and returns their
// results in task order. The first task to fail after its retries fails
// the stage: the others are cancelled, and the workflow ends only once
// each has ended, so no task still writes into the run directory when
// the driver hears of the failure.
func stageWorkflow(ctx workflow.Context, in stageInput) (stageOutput, error) {
	tctx, cancel := workflow.WithCancel(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		// A training job may run for hours; a dead worker is noticed by
		// its missing heartbeats, not by this bound.
		StartToCloseTimeout: 7 * 24 * time.Hour,
		HeartbeatTimeout:    in.HeartbeatTimeout,
		// A cancelled task is waited for: it hears of the cancellation
		// at its next heartbeat and stops.
		WaitForCancellation: true,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:        time.Second,
			BackoffCoefficient:     2,
			MaximumInterval:        time.Minute,
			MaximumAttempts:        in.MaxAttempts,
			NonRetryableErrorTypes: []string{errTypeInput, errTypeVersion, errTypeUnknown},
		},
	}))
	defer cancel()
	out := stageOutput{Tasks: in.Tasks.SHA256, Results: make([]taskOutput, in.N)}
	var failed error
	sel := workflow.NewSelector(ctx)
	pending := in.N // futures added and not yet selected
	for i := range in.N {
		ti := taskInput{Stage: in.Stage, Version: in.Version, Tasks: in.Tasks, Index: i}
		var done func(f workflow.Future)
		done = func(f workflow.Future) {
			err := f.Get(ctx, &out.Results[i])
			var te *temporal.TimeoutError
			if errors.As(err, &te) && te.TimeoutType() == enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START && failed == nil {
				// The preferred worker did not take it in time (busy or
				// gone): any worker may.
				sel.AddFuture(workflow.ExecuteActivity(tctx, taskActivityName, ti), done)
				pending++
				return
			}
			if err != nil && failed == nil {
				failed = err
				cancel()
			}
		}
		actx := tctx
		if i < len(in.Prefer) && in.Prefer[i] != "" {
			actx = workflow.WithScheduleToStartTimeout(workflow.WithTaskQueue(tctx, in.Prefer[i]), in.PreferWait)
		}
		sel.AddFuture(workflow.ExecuteActivity(actx, taskActivityName, ti), done)
	}
	for ; pending > 0; pending-- {
		sel.Select(ctx)
	}
	if failed != nil {
		return stageOutput{}, failed
	}
	return out, nil
}

// activities run tasks on a worker of one schedlab version.
type activities struct {
	version string
	// queue is this worker's own task queue, where the tasks that had
	// better run on it (pipeline.Task.Affinity) are sent.
	queue string
	log   *slog.Logger
	// workers is the worker's slots as a budget its tasks share: each
	// running task holds one, and a task that can spread its work (the
	// MARL learner) borrows the idle ones (pipeline.BorrowWorker). Nil:
	// tasks keep to their own goroutine.
	workers *pipeline.Workers
}

// Task runs one task of a batch and leaves its result beside the tasks
// file. Errors no retry can cure are non-retryable and name the task.
func (a *activities) Task(ctx context.Context, in taskInput) (taskOutput, error) {
	name := fmt.Sprintf("%s[%d]", in.Stage, in.Index)
	if in.Version != a.version {
		return taskOutput{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("task %s: is of schedlab version %s, this worker runs %s", name, in.Version, a.version), errTypeVersion, nil)
	}
	t, err := readTask(in, name)
	if err != nil {
		return taskOutput{}, temporal.NewNonRetryableApplicationError(err.Error(), errTypeInput, nil)
	}
	env := pipeline.TaskEnv{Retried: true}
	if activity.HasHeartbeatDetails(ctx) {
		var d []byte
		if err := activity.GetHeartbeatDetails(ctx, &d); err == nil {
			env.Resume = d
		}
	}
	var mu sync.Mutex
	last := env.Resume
	env.Heartbeat = func(d []byte) {
		mu.Lock()
		last = d
		mu.Unlock()
		activity.RecordHeartbeat(ctx, d)
	}
	// Heartbeat while the task runs, whether or not it reports progress:
	// a worker that dies stops them, and the task is retried elsewhere.
	hctx, stop := context.WithCancel(ctx)
	var wg conc.WaitGroup
	defer func() { stop(); wg.Wait() }()
	wg.Go(func() {
		// A third of the driver's heartbeat timeout (the SDK throttles
		// what it sends to about that anyway).
		every := activity.GetInfo(ctx).HeartbeatTimeout / 3
		if every <= 0 {
			every = DefaultHeartbeatTimeout / 3
		}
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-hctx.Done():
				return
			case <-tick.C:
				mu.Lock()
				d := last
				mu.Unlock()
				activity.RecordHeartbeat(ctx, d)
			}
		}
	})
	tctx := ctx
	if a.workers != nil {
		// The SDK runs at most Slots tasks at once, so a slot is free
		// here unless a running task borrowed it; that task gives it
		// back at its next update.
		var release func()
		if tctx, release, err = a.workers.Hold(ctx); err != nil {
			return taskOutput{}, fmt.Errorf("task %s: waiting for a slot: %w", t.Name, err)
		}
		defer release()
	}
	a.log.Info("task started", "task", t.Name, "kind", t.Kind, "attempt", activity.GetInfo(ctx).Attempt)
	res, err := pipeline.RunTask(tctx, t, env)
	switch {
	case errors.Is(err, pipeline.ErrInputChanged) || errors.Is(err, pipeline.ErrInputMissing) || errors.Is(err, pipeline.ErrCheckpointChanged):
		return taskOutput{}, temporal.NewNonRetryableApplicationError(err.Error(), errTypeInput, nil)
	case errors.Is(err, pipeline.ErrUnknownTask):
		return taskOutput{}, temporal.NewNonRetryableApplicationError(err.Error(), errTypeUnknown, nil)
	case err != nil:
		return taskOutput{}, temporal.NewApplicationError(err.Error(), "schedlab.task")
	}
	p := filepath.Join(filepath.Dir(in.Tasks.Path), fmt.Sprintf("result-%06d.bin", in.Index))
	if err := pipeline.WriteFileAtomic(p, res); err != nil {
		return taskOutput{}, fmt.Errorf("task %s: result: %w", t.Name, err)
	}
	a.log.Info("task finished", "task", t.Name)
	return taskOutput{Path: p, SHA256: pipeline.HashBytes(res), Queue: a.queue}, nil
}

// readTask reads task in.Index of the batch's tasks file after checking
// the file is the one the driver wrote.
func readTask(in taskInput, name string) (pipeline.Task, error) {
	if err := pipeline.VerifyInputs(pipeline.Task{Name: name, Kind: "tasks file", Inputs: []pipeline.InputRef{in.Tasks}}); err != nil {
		return pipeline.Task{}, err
	}
	b, err := os.ReadFile(in.Tasks.Path)
	if err != nil {
		return pipeline.Task{}, fmt.Errorf("task %s: %w", name, err)
	}
	var tasks []pipeline.Task
	if err := json.Unmarshal(b, &tasks); err != nil {
		return pipeline.Task{}, fmt.Errorf("task %s: tasks file %s: %w", name, in.Tasks.Path, err)
	}
	if in.Index < 0 || in.Index >= len(tasks) {
		return pipeline.Task{}, fmt.Errorf("task %s: tasks file %s has %d tasks", name, in.Tasks.Path, len(tasks))
	}
	return tasks[in.Index], nil
}

func workflowOptions() workflow.RegisterOptions {
	return workflow.RegisterOptions{Name: stageWorkflowName}
}

func activityOptions() activity.RegisterOptions {
	return activity.RegisterOptions{Name: taskActivityName}
}

// WorkerOptions say which cluster a worker serves and how much at once.
type WorkerOptions struct {
	Options
	// Slots bounds the tasks this worker runs at once (≤ 0 means 1).
	Slots int
}

// RunWorker serves the stage workflows and tasks of this schedlab
// version until ctx is cancelled; then it stops taking tasks and returns
// once those it runs have ended (their work is retried elsewhere if they
// were cut short).
func RunWorker(ctx context.Context, opt WorkerOptions) error {
	o := opt.Options.withDefaults()
	c, err := dial(ctx, o)
	if err != nil {
		return err
	}
	defer c.Close()
	q := TaskQueue(o.Version)
	w := worker.New(c, q, worker.Options{MaxConcurrentActivityExecutionSize: max(opt.Slots, 1)})
	w.RegisterWorkflowWithOptions(stageWorkflow, workflowOptions())
	// The worker's own queue, named by its identity (host and process)
	// and a random tail, so that a restarted worker, which holds none of
	// the state its predecessor kept, gets none of its tasks. Its tasks
	// hold a slot of the same budget as the shared queue's.
	host, _ := os.Hostname()
	own := fmt.Sprintf("%s-%s-%d-%s", q, host, os.Getpid(), randomTail())
	a := &activities{version: o.Version, queue: own, log: o.Log, workers: pipeline.NewWorkers(opt.Slots)}
	w.RegisterActivityWithOptions(a.Task, activityOptions())
	wo := worker.New(c, own, worker.Options{MaxConcurrentActivityExecutionSize: max(opt.Slots, 1), DisableWorkflowWorker: true})
	wo.RegisterActivityWithOptions(a.Task, activityOptions())
	for _, w := range []worker.Worker{w, wo} {
		if err := w.Start(); err != nil {
			return fmt.Errorf("temporal: worker on %s: %w", o.HostPort, err)
		}
		defer w.Stop()
	}
	o.Log.Info("worker started", "temporal", o.HostPort, "namespace", o.Namespace, "queue", q, "own_queue", own, "slots", max(opt.Slots, 1), "kinds", pipeline.TaskKinds())
	<-ctx.Done()
	return nil
}

// randomTail is 8 random hex digits.
func randomTail() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
