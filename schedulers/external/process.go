package external

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"
)

// child is a running policy process and the parent's ends of its pipes.
type child struct {
	cmd    *exec.Cmd
	stdin  *os.File // write end of the child's standard input
	stdout *os.File // read end of the child's standard output
	stderr *tail
	done   bool   // reaped
	exit   string // how it ended, once reaped
}

// startChild starts cfg.Command in a process group of its own. The pipes
// are made here, not by exec, and all four ends block (blockingPipe): the
// parent's exchange is bounded by a watchdog that kills the child, not by
// deadlines.
func startChild(ctx context.Context, cfg Config) (*child, error) {
	words, err := SplitCommand(cfg.Command)
	if err != nil {
		return nil, fmt.Errorf("external policy %q: command: %w", cfg.Name, err)
	}
	cmd := exec.CommandContext(ctx, words[0], words[1:]...)
	cmd.Dir = cfg.Dir
	inR, inW, err := blockingPipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := blockingPipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	c := &child{cmd: cmd, stdin: inW, stdout: outR, stderr: &tail{max: stderrTail}}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, c.stderr
	ownGroup(cmd)
	cmd.Cancel = func() error { killGroup(cmd.Process); return nil }
	// Wait stops copying stderr this long after the child exits, should a
	// grandchild keep it open.
	cmd.WaitDelay = killGrace
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("external policy %q: start %q in %q: %w", cfg.Name, cfg.Command, cfg.Dir, err)
	}
	return c, nil
}

// reap waits for the child. After grace it kills the process group (grace
// 0: at once); it is safe to call more than once.
func (c *child) reap(grace time.Duration) {
	if c.done {
		return
	}
	c.stdin.Close()
	if grace <= 0 {
		killGroup(c.cmd.Process)
	} else {
		t := time.AfterFunc(grace, func() { killGroup(c.cmd.Process) })
		defer t.Stop()
	}
	err := c.cmd.Wait()
	c.stdout.Close()
	c.done = true
	switch {
	case c.cmd.ProcessState != nil:
		c.exit = c.cmd.ProcessState.String() // "exit status 3", "signal: killed"
	case err != nil:
		c.exit = err.Error()
	}
	// A grandchild may outlive the child in its group.
	killGroup(c.cmd.Process)
}

// stderrTail is how much of the child's standard error errors quote.
const stderrTail = 4096

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
