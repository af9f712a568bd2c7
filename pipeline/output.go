package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// ErrNotOutput is wrapped by CreateAtomic's and CommitStaged's error when
// the name an output would take holds something an output must never
// replace: one of the command's inputs (ProtectInputs), a file with more
// than one link (replacing it would leave the other names holding the old
// bytes while the user meant them all), or anything but a regular file (a
// device, a FIFO, a symbolic link such as /proc/self/fd/1, a directory).
var ErrNotOutput = errors.New("not a name an output may take")

// fileID is a file's identity on disk: device and inode.
type fileID struct{ dev, ino uint64 }

// inputs holds the identities of the files that running commands read
// (ProtectInputs), each with the number of commands that protect it.
var inputs = struct {
	sync.Mutex
	ids map[fileID]int
}{ids: map[fileID]int{}}

// ProtectInputs marks the files at paths as inputs of the command that is
// running, until release is called: while marked, no output (CreateAtomic,
// CommitStaged) replaces one of them, whatever name it is reached by (a
// hard link, a path through a symbolic link, /proc/self/fd). A directory
// marks the regular files beneath it; a path that does not exist marks
// nothing. The files are known by device and inode, so the check holds on
// Unix; elsewhere nothing is marked.
func ProtectInputs(paths ...string) (release func()) {
	var ids []fileID
	mark := func(fi fs.FileInfo) {
		if id, ok := idOf(fi); ok {
			ids = append(ids, id)
		}
	}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		if !fi.IsDir() {
			mark(fi)
			continue
		}
		filepath.WalkDir(p, func(_ string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if fi, err := d.Info(); err == nil {
					mark(fi)
				}
			}
			return nil
		})
	}
	inputs.Lock()
	for _, id := range ids {
		inputs.ids[id]++
	}
	inputs.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			inputs.Lock()
			defer inputs.Unlock()
			for _, id := range ids {
				if inputs.ids[id]--; inputs.ids[id] <= 0 {
					delete(inputs.ids, id)
				}
			}
		})
	}
}

func isInput(id fileID) bool {
	inputs.Lock()
	defer inputs.Unlock()
	return inputs.ids[id] > 0
}

// checkReplace is the one check of what an output's name holds now: it
// may be new, or a regular file of one link that is none of the running
// commands' inputs. path is for the message.
func checkReplace(path string, mode fs.FileMode, nlink uint64, id fileID, hasID bool) error {
	switch {
	case !mode.IsRegular():
		return fmt.Errorf("%s is a %s, and an output replaces only a regular file: write elsewhere: %w", path, kindOf(mode), ErrNotOutput)
	case nlink > 1:
		return fmt.Errorf("%s has %d links (a hard link shares its bytes with another name): remove it or write elsewhere: %w", path, nlink, ErrNotOutput)
	case hasID && isInput(id):
		return fmt.Errorf("%s is one of this command's inputs, and writing it would destroy what is being read: write elsewhere: %w", path, ErrNotOutput)
	}
	return nil
}

// lockedRoots are the directories this process holds locked (LockDir),
// each with its open handle: a write beneath one walks down from the
// handle (openBeneath), so a folder inside it swapped for a symbolic link
// while the command runs cannot lead the write outside.
var lockedRoots = struct {
	sync.Mutex
	dirs map[string]*os.File
}{dirs: map[string]*os.File{}}

func absClean(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

func addLockedRoot(dir string, h *os.File) {
	lockedRoots.Lock()
	lockedRoots.dirs[absClean(dir)] = h
	lockedRoots.Unlock()
}

func removeLockedRoot(dir string, h *os.File) {
	lockedRoots.Lock()
	if lockedRoots.dirs[absClean(dir)] == h {
		delete(lockedRoots.dirs, absClean(dir))
	}
	lockedRoots.Unlock()
}

// lockedRoot finds the innermost locked directory that holds dir and
// calls with on its handle and dir's slash path relative to it, while
// the lock cannot be released under it. ok is false, and with is not
// called, when no locked directory holds dir.
func lockedRoot(dir string, with func(root *os.File, rel string) error) (ok bool, err error) {
	a := absClean(dir)
	lockedRoots.Lock()
	defer lockedRoots.Unlock()
	best := ""
	for r := range lockedRoots.dirs {
		if (a == r || strings.HasPrefix(a, r+string(filepath.Separator)) || r == string(filepath.Separator)) && len(r) > len(best) {
			best = r
		}
	}
	if best == "" {
		return false, nil
	}
	rel, err := filepath.Rel(best, a)
	if err != nil {
		return true, err
	}
	return true, with(lockedRoots.dirs[best], filepath.ToSlash(rel))
}
