//go:build unix

package pipeline

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// lockFile opens p and takes an exclusive flock on it without waiting.
// flock belongs to the open file, so a second open in the same process is
// refused too, and the kernel drops it when the holder dies.
func lockFile(p string) (*os.File, error) {
	for {
		// O_NOFOLLOW: a lock that is a symlink would have us write the
		// lock's text into whatever file it names, outside the directory.
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0o644)
		if err != nil {
			if errors.Is(err, unix.ELOOP) {
				return nil, fmt.Errorf("%s is a symbolic link, not a lock file; remove it", p)
			}
			return nil, err
		}
		// A FIFO or device at p is no lock of ours either (O_NONBLOCK keeps
		// the open of a FIFO from waiting for a writer).
		if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
			f.Close()
			if err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("%s is a %s, not a lock file; remove it", p, kindOf(st.Mode()))
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

// openNonBlocking opens path read-only without waiting for a FIFO's writer.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK, 0)
}
