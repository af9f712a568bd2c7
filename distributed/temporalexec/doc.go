// Package temporalexec runs a stage's tasks (pipeline.Executor) on a
// Temporal cluster; it is the only package of schedlab that imports the
// Temporal SDK.
//
// Each stage's batch is one workflow, whose ID is made from the stage's
// cache key: a driver that crashed and runs the stage again attaches to
// the running workflow (or reads the finished one's results), so tasks
// already done are not run again. Each task is one activity, retried on
// another worker when its worker dies (heartbeats), never retried when
// no retry can help (an input whose bytes changed, a run directory the
// worker cannot see, a task kind it does not know).
//
// Only paths and hashes travel through Temporal, whose payloads are
// capped: the driver writes the batch's tasks to a file in the stage's
// task directory (on a filesystem every worker shares), a task reads its
// inputs from there after checking their sha256, and leaves its result
// beside them for the driver, which checks its hash and writes every
// output itself, in task order.
//
// A task with an affinity (pipeline.Task.Affinity: a MARL rollout's
// steps, whose worker keeps the rollout between them) is sent to the own
// queue of the worker that ran its affinity's last task, which every
// worker polls beside the shared one; if that worker does not take it
// within PreferWait (busy, or gone) it goes to the shared queue, and the
// worker that takes it rebuilds the state. The executor remembers the
// workers per affinity for as long as the driver runs.
//
// Workers poll a task queue named after their schedlab version
// (Version), so a worker never runs a task of another build; a driver
// whose version no worker runs says so at once instead of waiting.
package temporalexec
