package external

import (
	"os"
	"syscall"
)

// blockingPipe is a pipe whose two ends block and stay out of Go's network
// poller. An os.Pipe is registered with the poller for its whole life,
// even after Fd puts it in blocking mode, and the poller's thread is then
// woken each time the child reads or writes its end: two wake-ups a round
// trip for nothing, on a host where the child wants that core.
func blockingPipe() (r, w *os.File, err error) {
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	return os.NewFile(uintptr(fds[0]), "|0"), os.NewFile(uintptr(fds[1]), "|1"), nil
}
