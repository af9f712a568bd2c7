//go:build unix

package pipeline

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// lockFile opens the lock file in the directory d (p is its path, for
// messages) and takes an exclusive flock on it without waiting. flock
// belongs to the open file, so a second open in the same process is
// refused too, and the kernel drops it when the holder dies.
func lockFile(d *os.File, p string) (*os.File, error) {
	for {
		// O_NOFOLLOW: a lock that is a symlink would have us write the
		// lock's text into whatever file it names, outside the directory.
		fd, err := unix.Openat(int(d.Fd()), LockFile, unix.O_RDWR|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0o644)
		if err != nil {
			if errors.Is(err, unix.ELOOP) {
				return nil, fmt.Errorf("%s is a symbolic link, not a lock file; remove it", p)
			}
			return nil, &os.PathError{Op: "open", Path: p, Err: err}
		}
		f := os.NewFile(uintptr(fd), p)
		// A FIFO or device at p is no lock of ours either (O_NONBLOCK keeps
		// the open of a FIFO from waiting for a writer), and a hard link
		// to a file elsewhere would have the lock's text written there.
		var held unix.Stat_t
		if err := unix.Fstat(fd, &held); err != nil {
			f.Close()
			return nil, err
		}
		if m := unixMode(uint32(held.Mode)); !m.IsRegular() {
			f.Close()
			return nil, fmt.Errorf("%s is a %s, not a lock file; remove it", p, kindOf(m))
		}
		if held.Nlink > 1 {
			f.Close()
			return nil, fmt.Errorf("%s has %d links, so it is another file's too, not a lock file; remove it", p, held.Nlink)
		}
		if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, unix.EWOULDBLOCK) {
				return nil, ErrLocked
			}
			return nil, err
		}
		// The holder we waited behind may have unlinked the file as it
		// released it (Unlock): a lock on an unlinked file excludes no
		// one, so start again on the file now at p.
		var now unix.Stat_t
		if unix.Fstatat(int(d.Fd()), LockFile, &now, unix.AT_SYMLINK_NOFOLLOW) == nil && held.Dev == now.Dev && held.Ino == now.Ino {
			return f, nil
		}
		f.Close()
	}
}

// openNonBlocking opens path read-only without waiting for a FIFO's writer.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK, 0)
}
