package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// LockFile is the name of the lock a command holds on the directory it
// writes into.
const LockFile = ".schedlab.lock"

// ErrLocked is wrapped by LockDir's error when another live process holds
// the directory.
var ErrLocked = errors.New("directory locked")

// DirLock is a held lock on a directory: while one exists, no other
// schedlab command (run, ingest, eval, export, datasets fetch) writes into
// that directory. The lock file holds the holder's PID and command for
// the message of whoever is refused.
type DirLock struct {
	dir  string
	path string
	d    *os.File // dir's handle: the lock file, and every output beneath dir, is reached from it
	f    *os.File
}

// LockDir creates dir if needed and locks it for command (a word for the
// refusal message, such as "run"). A second LockDir on the same directory,
// from this process or another, fails at once with an error wrapping
// ErrLocked that names the holder's PID and command. A lock left by a
// process that died (SIGKILL, a crash) is taken over: on Unix the kernel
// releases the holder's flock when it dies, and the PID in the file is
// only for messages.
func LockDir(dir, command string) (*DirLock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	d, err := os.OpenFile(dir, os.O_RDONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	p := filepath.Join(dir, LockFile)
	f, err := lockFile(d, p)
	if err != nil {
		d.Close()
		if errors.Is(err, ErrLocked) {
			return nil, fmt.Errorf("%s is in use by %s: %w; wait for it to finish, or write elsewhere", dir, holder(p), ErrLocked)
		}
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	rec := fmt.Sprintf("pid %d\ncommand %s\nsince %s\n", os.Getpid(), command, time.Now().UTC().Format(time.RFC3339))
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(rec), 0)
	}
	if err != nil {
		removeAt(d, LockFile)
		f.Close()
		d.Close()
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	addLockedRoot(dir, d)
	return &DirLock{dir: dir, path: p, d: d, f: f}, nil
}

// Dir is the locked directory.
func (l *DirLock) Dir() string { return l.dir }

// Unlock removes the lock file and releases the lock. It is safe on a nil
// lock and safe to call twice.
func (l *DirLock) Unlock() {
	if l == nil || l.f == nil {
		return
	}
	// Remove before release: whoever then locks the file we held finds it
	// unlinked and starts again on a fresh one (see lockFile).
	removeLockedRoot(l.dir, l.d)
	removeAt(l.d, LockFile)
	l.f.Close()
	l.d.Close()
	l.f = nil
}

// holder describes the process named in the lock file at p.
func holder(p string) string {
	b, err := ReadRecord(p, 4<<10)
	if err != nil {
		return "another process"
	}
	var pid, cmd, since string
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, " ")
		switch k {
		case "pid":
			if _, err := strconv.Atoi(v); err == nil {
				pid = v
			}
		case "command":
			cmd = v
		case "since":
			since = v
		}
	}
	if pid == "" {
		return "another process"
	}
	s := "schedlab " + cmd + " (pid " + pid
	if since != "" {
		s += ", since " + since
	}
	return s + ")"
}

// scratchName matches the names of our temporary files and staging
// directories: ".<name>.tmp-<digits>", as CreateAtomic and MkdirScratch make
// them (os.CreateTemp and os.MkdirTemp put random digits for the star).
var scratchName = regexp.MustCompile(`^\..+\.tmp-[0-9]+$`)

// IsScratch reports whether a file or directory name is one of our
// temporaries, which no one trusts once its writer is gone.
func IsScratch(name string) bool { return scratchName.MatchString(name) }

// MkdirScratch makes a staging directory ".<what>.tmp-<digits>" in dir,
// recognised by IsScratch and so removed by RemoveScratch if its writer is
// killed.
func MkdirScratch(dir, what string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return os.MkdirTemp(dir, "."+what+".tmp-*")
}

// RemoveScratch deletes the temporaries (IsScratch names) that killed
// writers left in dir, and in its subdirectories too when recursive (a run
// directory, which is all ours; not an ingest's --out, which may be "."),
// and returns their paths. Call it only while holding dir's lock: a live
// writer's temporaries look the same.
func RemoveScratch(dir string, recursive bool) ([]string, error) {
	var gone []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p != dir && errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if p == dir {
			return nil
		}
		if !IsScratch(d.Name()) {
			if d.IsDir() && !recursive {
				return fs.SkipDir
			}
			return nil
		}
		if err := os.RemoveAll(p); err != nil {
			return err
		}
		gone = append(gone, p)
		if d.IsDir() {
			return fs.SkipDir
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	return gone, err
}
