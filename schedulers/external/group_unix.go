//go:build unix

package external

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup starts the child as the leader of a new process group, so that
// killing the group also ends what it started (a shell's children).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup sends SIGKILL to p's process group.
func killGroup(p *os.Process) {
	if p != nil {
		syscall.Kill(-p.Pid, syscall.SIGKILL)
	}
}
