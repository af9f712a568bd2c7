package pipeline

import (
	"bufio"
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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

// WriteGobAtomic writes v's gob encoding to path atomically, streaming
// it rather than building it in memory. gob carries float64s bit for bit,
// NaN and ±Inf included, where JSON cannot.
func WriteGobAtomic(path string, v any) error {
	f, err := CreateAtomic(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	w := bufio.NewWriter(f)
	if err := gob.NewEncoder(w).Encode(v); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}

// ReadGob decodes the gob file at path (WriteGobAtomic) into v.
func ReadGob(path string, v any) error {
	f, _, err := OpenRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := gob.NewDecoder(bufio.NewReader(f)).Decode(v); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

// CommitStaged moves a command's finished outputs from its staging
// directory (MkdirScratch inside dir, so that renames are atomic) into dir:
// names are slash paths relative to both. record, when not "", is a file
// of the staging directory (a manifest) that vouches for the others: the
// old one is removed from dir first and the new one renamed in last, so
// no record in dir ever lists a file that is not yet, or no longer, in
// place. Destinations are checked before anything moves, so a name taken
// by a directory fails the commit with nothing changed.
func CommitStaged(staging, dir string, names []string, record string) error {
	for _, n := range append(slices.Clone(names), record) {
		if n == "" {
			continue
		}
		if _, err := LocalPath(dir, n); err != nil {
			return fmt.Errorf("commit %s: %w", dir, err)
		}
		if st, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(n))); err == nil && st.IsDir() {
			return fmt.Errorf("commit %s: %s is a directory", dir, filepath.Join(dir, filepath.FromSlash(n)))
		}
		if _, err := os.Stat(filepath.Join(staging, filepath.FromSlash(n))); err != nil {
			return fmt.Errorf("commit %s: %w", dir, err)
		}
	}
	if record != "" {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(record))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("commit %s: %w", dir, err)
		}
	}
	move := func(n string) error {
		dst, err := LocalPath(dir, n)
		if err != nil {
			return fmt.Errorf("commit %s: %w", dir, err)
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fmt.Errorf("commit %s: %w", dst, err)
		}
		if err := os.Rename(filepath.Join(staging, filepath.FromSlash(n)), dst); err != nil {
			return fmt.Errorf("commit %s: %w", dst, err)
		}
		return nil
	}
	for _, n := range names {
		if err := move(n); err != nil {
			return err
		}
	}
	if record != "" {
		return move(record)
	}
	return nil
}
