//go:build unix

package pipeline

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

func idOf(fi fs.FileInfo) (fileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)}, true
}

// openOutDir opens, creating it, the directory dir that an output is
// written into. Beneath a locked directory it is reached from the lock's
// handle one component at a time, none of which may be a symbolic link;
// elsewhere it is opened as named (the user named it).
func openOutDir(dir string) (*os.File, error) {
	var h *os.File
	ok, err := lockedRoot(dir, func(root *os.File, rel string) (err error) {
		h, err = openBeneath(root, rel, dir)
		return err
	})
	if err != nil || ok {
		return h, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return os.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY, 0)
}

// openBeneath opens rel (a slash path, "." for root itself) beneath the
// directory root, making missing directories, and refuses a component
// that is a symbolic link or not a directory.
func openBeneath(root *os.File, rel, display string) (*os.File, error) {
	fd, err := unix.Openat(int(root.Fd()), ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: root.Name(), Err: err}
	}
	p := root.Name()
	for _, part := range strings.Split(rel, "/") {
		if part == "." || part == "" {
			continue
		}
		p = filepath.Join(p, part)
		next, err := unix.Openat(fd, part, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) {
			if err = unix.Mkdirat(fd, part, 0o755); err == nil || errors.Is(err, unix.EEXIST) {
				next, err = unix.Openat(fd, part, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			}
		}
		unix.Close(fd)
		switch {
		case errors.Is(err, unix.ELOOP), errors.Is(err, unix.ENOTDIR):
			return nil, fmt.Errorf("%s is a symbolic link or not a directory, and %s's files must be its own: remove it and run again: %w", p, root.Name(), ErrOutside)
		case err != nil:
			return nil, &fs.PathError{Op: "open", Path: p, Err: err}
		}
		fd = next
	}
	return os.NewFile(uintptr(fd), display), nil
}

// checkAt is checkReplace of name in the directory d.
func checkAt(d *os.File, name string) error {
	var st unix.Stat_t
	err := unix.Fstatat(int(d.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	p := filepath.Join(d.Name(), name)
	if err != nil {
		return &fs.PathError{Op: "stat", Path: p, Err: err}
	}
	return checkReplace(p, unixMode(uint32(st.Mode)), uint64(st.Nlink), fileID{uint64(st.Dev), uint64(st.Ino)}, true)
}

// unixMode is the type bits of a stat mode as an fs.FileMode.
func unixMode(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	}
	return fs.ModeIrregular
}

// createTempAt creates a new file ".<base>.tmp-<digits>" in d (IsScratch
// knows the name) and returns it and its name.
func createTempAt(d *os.File, base string) (*os.File, string, error) {
	for range 10000 {
		var b [4]byte
		rand.Read(b[:])
		name := "." + base + ".tmp-" + strconv.FormatUint(uint64(binary.LittleEndian.Uint32(b[:])), 10)
		fd, err := unix.Openat(int(d.Fd()), name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return nil, "", &fs.PathError{Op: "create", Path: filepath.Join(d.Name(), name), Err: err}
		}
		return os.NewFile(uintptr(fd), filepath.Join(d.Name(), name)), name, nil
	}
	return nil, "", fmt.Errorf("create a temporary for %s in %s: %w", base, d.Name(), fs.ErrExist)
}

// renameAt renames from in directory src to to in directory dst.
func renameAt(src *os.File, from string, dst *os.File, to string) error {
	if err := unix.Renameat(int(src.Fd()), from, int(dst.Fd()), to); err != nil {
		return &os.LinkError{Op: "rename", Old: filepath.Join(src.Name(), from), New: filepath.Join(dst.Name(), to), Err: err}
	}
	return nil
}

// removeAt removes the file name from the directory d.
func removeAt(d *os.File, name string) error {
	if err := unix.Unlinkat(int(d.Fd()), name, 0); err != nil {
		return &fs.PathError{Op: "remove", Path: filepath.Join(d.Name(), name), Err: err}
	}
	return nil
}
