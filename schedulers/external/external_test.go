package external_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/internal/pythontest"
	"github.com/schedlab/schedlab/schedulers/external"
	"github.com/schedlab/schedlab/schedulers/schedulerstest"
	"github.com/schedlab/schedlab/sim"
)

// python3 is the interpreter the tests start (resolved once, past
// pyenv's shims; a skip without Python).
var python3 = pythontest.Interpreter

// example is the command of one of python/examples.
func example(t testing.TB, name string) string {
	dir, err := filepath.Abs(filepath.Join("..", "..", "python", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	return python3(t) + " " + filepath.Join(dir, name)
}

// misbehave returns the command of testdata/misbehave.py in a mode (a
// skip without Python).
func misbehave(t testing.TB) func(mode string) string {
	py := python3(t)
	script, _ := filepath.Abs(filepath.Join("testdata", "misbehave.py"))
	return func(mode string) string { return py + " " + script + " " + mode }
}

func newPolicy(t testing.TB, cfg external.Config) *external.Policy {
	t.Helper()
	p, err := external.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// smallJobs are n one-instance jobs of 5 GPUs, one every 10 s, each 1000 s
// long: two cannot share a pai-v100 server.
func smallJobs(n int) []datasets.Job {
	jobs := make([]datasets.Job, n)
	for i := range jobs {
		jobs[i] = datasets.Job{JobID: fmt.Sprintf("j%d", i), SubmitS: float64(10 * i), DurationS: 1000,
			Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: 1, GPU: 5, CPU: 6, MemGiB: 20}}}
	}
	return jobs
}

func flat(t testing.TB, n int) *sim.Cluster {
	c, err := sim.ClusterSpec{Topology: "flat", N: n, Servers: "pai-v100"}.Build()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestFIFOFirstFitMatchesBuiltin runs the Python FIFO-FirstFit example and
// the built-in fifo-firstfit on the conformance scenarios: every job's
// result must be equal, bit for bit, and its wake_on must spare the
// policy some of the engine's decision points, never one at which the
// built-in acts.
func TestFIFOFirstFitMatchesBuiltin(t *testing.T) {
	cmd := example(t, "fifo_firstfit.py")
	decisions, messages, acted := 0, 0, 0
	for _, sc := range schedulerstest.Scenarios(120) {
		t.Run(sc.Name, func(t *testing.T) {
			c, err := sc.Cluster.Build()
			if err != nil {
				t.Fatal(err)
			}
			res, n, a := matchBuiltin(t, c, sc.Jobs, sc.Config, "fifo-firstfit", cmd)
			if n < a {
				t.Errorf("asked %d times; the built-in acted at %d decision points", n, a)
			}
			decisions += res.Decisions
			messages += n
			acted += a
		})
	}
	if messages >= decisions {
		t.Errorf("asked %d times at %d decision points: wake_on spared none", messages, decisions)
	}
	t.Logf("asked %d times at %d decision points, %d of which the built-in acted at", messages, decisions, acted)
}

// TestConformance holds the external scheduler, with the FIFO example,
// to every scheduler's conformance test.
func TestConformance(t *testing.T) {
	cmd := example(t, "fifo_firstfit.py")
	schedulerstest.Run(t, func(seed uint64) (sim.Scheduler, error) {
		return newPolicy(t, external.Config{Name: "fifo-py", Command: cmd, Seed: seed}), nil
	}, 40)
}

// TestMisbehaviour: each way a policy can break the protocol ends the run
// with an error naming the policy, the message, the decision where there
// is one, and the rule; and the child is gone.
func TestMisbehaviour(t *testing.T) {
	misbehaving := misbehave(t)
	for _, tc := range []struct {
		mode string
		rule error
		want []string // in the message, besides the policy and the message number
		msg  int      // the message number: 2 unless given
	}{
		{"exit", external.ErrExited, []string{"exit status 3"}, 0},
		{"stderr-exit", external.ErrExited, []string{"exit status 4", "policy: something went wrong"}, 0},
		{"garbage", external.ErrMalformed, []string{`"debug: deciding now"`}, 0},
		{"unknown-job", external.ErrUnknownJob, []string{"decision 0", "job 123456 was never announced"}, 0},
		{"running-job", external.ErrUnknownJob, []string{"decision 0", "is running since"}, 3},
		{"no-fit", external.ErrDoesNotFit, []string{"decision 1", "server 0 has 3, 90, 492 free"}, 0},
		{"duplicate", external.ErrDuplicateJob, []string{"decision 1", "started twice"}, 0},
		{"wrong-count", external.ErrMalformed, []string{"decision 0", "2 servers for the 1 instances"}, 0},
		{"bad-server", external.ErrMalformed, []string{"decision 0", "server 99"}, 0},
		{"preempt", external.ErrUnknownJob, []string{"decision 0", `"op": "preempt"`, "is not running: it waits"}, 0},
		{"preempt-twice", external.ErrDuplicateJob, []string{"decision 1", "preempted twice in this answer"}, 3},
		{"preempt-restart", external.ErrUnknownJob, []string{"decision 1", "is preempted by this answer"}, 3},
		{"bad-wake", external.ErrMalformed, []string{"wake -5"}, 3},
		{"unknown-key", external.ErrMalformed, []string{"decision 0", `unknown field "server"`}, 0},
		{"hang", external.ErrTimeout, []string{"no answer within 300ms", "signal: killed"}, 0},
		{"flood", external.ErrFlood, []string{"longer than 4096 bytes"}, 0},
		{"seq", external.ErrSequence, []string{"carries seq 3"}, 0},
		{"give-up", external.ErrGaveUp, []string{"no idea what to do"}, 0},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			// Only the hanging policy needs a short timeout; the others get
			// one that a loaded host's slow Python cannot reach, or a child
			// that exits late would read as a hang.
			timeout := 10 * time.Second
			if tc.rule == external.ErrTimeout {
				timeout = 300 * time.Millisecond
			}
			cfg := external.Config{Name: "bad-" + tc.mode, Command: misbehaving(tc.mode),
				Timeout: timeout, MaxLineBytes: 4096}
			p := newPolicy(t, cfg)
			start := time.Now()
			_, err := sim.Run(context.Background(), flat(t, 2), smallJobs(6), p, sim.DefaultConfig(), nil)
			if err == nil {
				t.Fatal("the run succeeded")
			}
			if !errors.Is(err, tc.rule) {
				t.Errorf("error does not wrap %v: %v", tc.rule, err)
			}
			msg := fmt.Sprintf("message %d:", max(tc.msg, 2))
			t.Log(err)
			for _, s := range append([]string{`external policy "bad-` + tc.mode + `"`, msg}, tc.want...) {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error lacks %q:\n%v", s, err)
				}
			}
			if d := time.Since(start); d > timeout+5*time.Second {
				t.Errorf("took %v to fail", d)
			}
			// Every later call gives the same error; Close has nothing to add.
			if _, err2 := p.Schedule(context.Background(), nil); err2 == nil || err2.Error() != unwrapSim(err).Error() {
				t.Errorf("Schedule after the error: %v", err2)
			}
			if err := p.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
}

// unwrapSim is the policy's error inside sim.Run's wrapping.
func unwrapSim(err error) error {
	var de *external.DecisionError
	if errors.As(err, &de) {
		return de
	}
	var pe *external.ProtocolError
	if errors.As(err, &pe) {
		return pe
	}
	return err
}

// TestHelloErrors: the handshake refuses a protocol schedlab does not
// speak, and a wake_on it cannot honour.
func TestHelloErrors(t *testing.T) {
	misbehaving := misbehave(t)
	for _, tc := range []struct {
		mode string
		rule error
		want string
	}{
		{"version", external.ErrVersion, "schedlab speaks protocols 1 to 3, the policy 99"},
		{"wake-on-v1", external.ErrMalformed, "wake_on needs protocol 2, the policy speaks 1"},
		{"wake-on-bad", external.ErrMalformed, `wake_on "sometimes": want "arrival", "finish" or "fit"`},
		{"wake-on-empty", external.ErrMalformed, "wake_on is empty"},
	} {
		_, err := external.New(context.Background(), external.Config{Name: "old", Command: misbehaving(tc.mode)})
		if !errors.Is(err, tc.rule) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "message 0") {
			t.Errorf("%s: got %v, want %v: …%s", tc.mode, err, tc.rule, tc.want)
		}
	}
}

// TestStartErrors: a command that cannot start is an error naming it.
func TestStartErrors(t *testing.T) {
	for _, tc := range []struct{ cmd, want string }{
		{"/nonexistent/policy --x", `start "/nonexistent/policy --x"`},
		{"python3 'unterminated", "unterminated single quote"},
		{"", "command: empty"},
	} {
		_, err := external.New(context.Background(), external.Config{Name: "x", Command: tc.cmd})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.cmd, err, tc.want)
		}
	}
}

// TestCancel: cancelling the context stops a hung policy at once.
func TestCancel(t *testing.T) {
	misbehaving := misbehave(t)
	p := newPolicy(t, external.Config{Name: "hung", Command: misbehaving("hang"), Timeout: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := sim.Run(ctx, flat(t, 2), smallJobs(6), p, sim.DefaultConfig(), nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestSplitCommand(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"python3 -u p.py", []string{"python3", "-u", "p.py"}},
		{`python3 "my policy.py" 'a b' c\ d`, []string{"python3", "my policy.py", "a b", "c d"}},
		{`x "a\"b\n" ''`, []string{"x", `a"b\n`, ""}},
	} {
		got, err := external.SplitCommand(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: got %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestSeedReachesPolicy: a policy that draws from the hello's seed gives
// the same results on a rerun with the same seed, and others with another.
func TestSeedReachesPolicy(t *testing.T) {
	cmd := example(t, "random_placement.py")
	sc := schedulerstest.Scenarios(60)[0]
	c, err := sc.Cluster.Build()
	if err != nil {
		t.Fatal(err)
	}
	run := func(seed uint64) []sim.JobResult {
		p := newPolicy(t, external.Config{Name: "random-py", Command: cmd, Seed: seed})
		res, err := sim.Run(context.Background(), c, sc.Jobs, p, sc.Config, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Jobs
	}
	a, b, other := run(1), run(1), run(2)
	if !reflect.DeepEqual(a, b) {
		t.Error("two runs at seed 1 differ")
	}
	if reflect.DeepEqual(a, other) {
		t.Error("seeds 1 and 2 give the same results: the seed does not reach the policy")
	}
}
