//go:build !unix

package pipeline

import (
	"errors"
	"io/fs"
	"os"
)

// lockFile creates p exclusively. Without flock a dead holder cannot be
// told from a live one, so a stale lock must be removed by hand; the
// refusal names the PID to check.
func lockFile(_ *os.File, p string) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, ErrLocked
	}
	return f, err
}

// openNonBlocking opens path read-only; without O_NONBLOCK, OpenRegular's
// check comes after the open.
func openNonBlocking(path string) (*os.File, error) { return os.Open(path) }
