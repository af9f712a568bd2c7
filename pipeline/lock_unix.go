//go:build unix

package pipeline

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// lockFile opens p and takes an exclusive flock on it without waiting.
// flock belongs to the open file, so a second open in the same process is
// refused too, and the kernel drops it when the holder dies.
func lockFile(p string) (*os.File, error) {
	for {
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, unix.EWOULDBLOCK) {
				return nil, ErrLocked
			}
			return nil, err
		}
		// The holder we waited behind may have unlinked the file as it
		// released it (Unlock): a lock on an unlinked file excludes no
		// one, so start again on the file now at p.
		var held, now unix.Stat_t
		if unix.Fstat(int(f.Fd()), &held) == nil && unix.Stat(p, &now) == nil && held.Dev == now.Dev && held.Ino == now.Ino {
			return f, nil
		}
		f.Close()
	}
}
