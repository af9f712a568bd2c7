// Package external is the scheduler whose decisions come from another
// process: a policy written in any language (Python, with the client in
// python/) that speaks the protocol of docs/policy-protocol.md over its
// standard input and output. A *Policy is a sim.Decider (a scheduler that
// may preempt) and an io.Closer: closing it ends the child and reaps it.
//
// # Data in and out
//
// At each decision point Decide sends the policy one "decide" message of
// JSON on a line: the time, the jobs that arrived since the previous
// message (their requirement lists, never their durations unless the
// policy is an oracle row), the jobs that finished, and the servers whose
// free resources changed; the first message also describes the cluster.
// The policy answers with one line of decisions ("preempt" a running job,
// "start" a pending one on a server per instance) and, optionally, the
// time it wants to be asked again ("wake"). A policy whose hello answer
// lists the decision points it wants (wake_on: arrival, finish, fit) is
// not asked at the others: Decide decides nothing there itself, keeps the
// wake request, and the next message carries what they brought. Decide
// validates every
// decision before it returns any, preemptions first as the engine carries
// them out: an unknown job, a start of a job that is not pending or that
// the same answer preempts, a preemption of a job that is not running, a
// job started or preempted twice, a wrong number of servers, a
// server the instance does not fit, a malformed line, a wrong sequence
// number, a policy that exits, hangs past Config.Timeout or floods its
// output past Config.MaxLineBytes is an error naming the policy, the
// message number, the decision and the rule it broke (DecisionError,
// ProtocolError); the child is then killed and reaped.
//
// # Processes
//
// New starts Config.Command (split into words as a shell would, without a
// shell) in Config.Dir, in a process group of its own, and performs the
// handshake (protocol version, the run's seed). The child's standard error
// is kept, its last few kilobytes quoted in errors. Close sends "end",
// closes the child's input and waits for it to exit, killing its process
// group after a grace period. NewConn runs the same protocol over any
// reader and writer: `schedlab policy-env` uses it to serve a Python
// environment that started schedlab, rather than the other way round.
//
// # Configuration rows
//
// Declare makes `external:NAME` a scheduler name in package schedulers'
// registry for each configured Spec, so that an experiment lists it among
// its schedulers like a built-in row; the cell's seed reaches the policy
// in the handshake. A Spec's OnError says whether a failure of its policy
// stops the run or only the row: with "row", every error of the policy is
// a *RowError, which evaluation treats as the end of that row alone.
// Spec.Policy starts a spec's policy without declaring it, for a worker
// that runs an evaluation cell's task.
package external
