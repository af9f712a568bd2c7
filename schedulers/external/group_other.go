//go:build !unix

package external

import (
	"os"
	"os/exec"
)

func ownGroup(*exec.Cmd) {}

// killGroup kills p alone: process groups are a Unix notion.
func killGroup(p *os.Process) {
	if p != nil {
		p.Kill()
	}
}
