package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
)

// AtomicFile is a file that becomes visible under its final name only when
// Commit succeeds: it is written to a temporary file in the same directory
// and renamed into place, so a reader never sees half a file and an
// interrupted writer leaves nothing behind but a temporary that no one trusts.
type AtomicFile struct {
	*os.File
	path string
	done bool
}

// CreateAtomic starts writing path atomically, creating its directory.
func CreateAtomic(path string) (*AtomicFile, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return &AtomicFile{File: f, path: path}, nil
}

// Path is the final name of the file.
func (a *AtomicFile) Path() string { return a.path }

// Commit flushes the file to disk and renames it to its final name.
func (a *AtomicFile) Commit() error {
	if a.done {
		return fmt.Errorf("commit %s: already closed", a.path)
	}
	a.done = true
	tmp := a.File.Name()
	if err := a.File.Sync(); err != nil {
		a.File.Close()
		os.Remove(tmp)
		return fmt.Errorf("commit %s: %w", a.path, err)
	}
	if err := a.File.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("commit %s: %w", a.path, err)
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("commit %s: %w", a.path, err)
	}
	if err := os.Rename(tmp, a.path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("commit %s: %w", a.path, err)
	}
	return nil
}

// Abort discards the file. It is safe to call after Commit (it does nothing),
// so `defer f.Abort()` is the idiom.
func (a *AtomicFile) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.File.Close()
	os.Remove(a.File.Name())
}

// WriteFileAtomic writes data to path atomically.
func WriteFileAtomic(path string, data []byte) error {
	f, err := CreateAtomic(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}
