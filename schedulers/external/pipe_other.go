//go:build !linux

package external

import "os"

// blockingPipe is a pipe whose two ends block (see pipe_linux.go).
func blockingPipe() (r, w *os.File, err error) {
	r, w, err = os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	// Fd puts a file in blocking mode.
	r.Fd()
	w.Fd()
	return r, w, nil
}
