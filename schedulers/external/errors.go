package external

import (
	"errors"
	"fmt"
)

// The rules a policy can break. Every error of a run wraps one of them,
// inside a *DecisionError (one decision) or a *ProtocolError (the line or
// the process).
var (
	// ErrUnknownJob: a decision names a job that is not pending: never
	// announced, already running or finished.
	ErrUnknownJob = errors.New("unknown job")
	// ErrDuplicateJob: an answer decides on the same job twice.
	ErrDuplicateJob = errors.New("job decided twice")
	// ErrDoesNotFit: an instance does not fit the free resources of the
	// server it was put on, after the answer's earlier decisions.
	ErrDoesNotFit = errors.New("does not fit")
	// ErrMalformed: a decision, or the line, is not what the protocol
	// says: not JSON, an unknown op or key, a missing field, a wrong
	// number of servers, a server or socket that does not exist.
	ErrMalformed = errors.New("malformed")
	// ErrUnsupported: a decision the engine cannot carry out in this
	// version (preempt).
	ErrUnsupported = errors.New("unsupported decision")
	// ErrSequence: an answer carries another message's number (a stray or
	// unsolicited line).
	ErrSequence = errors.New("answer out of sequence")
	// ErrVersion: the policy speaks another protocol version.
	ErrVersion = errors.New("protocol version mismatch")
	// ErrTimeout: no answer within the timeout.
	ErrTimeout = errors.New("timed out")
	// ErrFlood: an answer line longer than Config.MaxLineBytes.
	ErrFlood = errors.New("line too long")
	// ErrExited: the policy closed its output or exited.
	ErrExited = errors.New("policy exited")
	// ErrGaveUp: the policy answered with an error message of its own.
	ErrGaveUp = errors.New("policy reported an error")
)

// DecisionError is a decision that breaks a rule: the answer to message
// Message, its decision number Decision (from 0), as the policy wrote it.
type DecisionError struct {
	Policy   string
	Message  int
	Decision int
	Text     string // the decision's JSON, shortened to 200 bytes
	Err      error  // wraps one of the rules
}

func (e *DecisionError) Error() string {
	return fmt.Sprintf("external policy %q: message %d: decision %d %s: %v", e.Policy, e.Message, e.Decision, e.Text, e.Err)
}

func (e *DecisionError) Unwrap() error { return e.Err }

// ProtocolError is a problem with a whole message or with the process:
// a line that is not an answer, a timeout, an exit. Stderr is the end of
// what the child wrote to its standard error, Exit how it ended ("" while
// it runs).
type ProtocolError struct {
	Policy  string
	Message int
	Err     error
	Exit    string
	Stderr  string
}

func (e *ProtocolError) Error() string {
	s := fmt.Sprintf("external policy %q: message %d: %v", e.Policy, e.Message, e.Err)
	if e.Exit != "" {
		s += " (" + e.Exit + ")"
	}
	if e.Stderr != "" {
		s += "; its stderr ends:\n" + e.Stderr
	}
	return s
}

func (e *ProtocolError) Unwrap() error { return e.Err }

// RowError is an error of a policy declared with on_error: row
// (Config.RowOnly): it stops the policy's row of an experiment, not the
// run (it is an evaluation.RowFailure).
type RowError struct{ Err error }

func (e *RowError) Error() string { return e.Err.Error() }
func (e *RowError) Unwrap() error { return e.Err }

// RowOnly reports that the error stops its row only.
func (e *RowError) RowOnly() bool { return true }

// shorten keeps at most n bytes of s, marking a cut.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
