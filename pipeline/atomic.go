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
	dir  *os.File // the directory's handle: the temporary and the rename are relative to it
	tmp  string   // the temporary's name in dir
	done bool
}

// CreateAtomic starts writing path atomically, creating its directory. It
// is the one way schedlab opens an output, and it refuses to write where
// the name holds what an output must never replace (ErrNotOutput): one of
// the running command's inputs, a file with more than one link, anything
// but a regular file. The directory is opened once, beneath the lock's
// handle when a locked directory holds it, and the temporary and the
// rename are made relative to that handle: a folder swapped for a link
// while the file is written cannot lead the file elsewhere. The name is
// checked again just before the rename.
func CreateAtomic(path string) (*AtomicFile, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if base == "" || base == "." || base == ".." {
		return nil, fmt.Errorf("create %s: %w", path, ErrNotOutput)
	}
	d, err := openOutDir(dir)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	if err := checkAt(d, base); err != nil {
		d.Close()
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	f, tmp, err := createTempAt(d, base)
	if err != nil {
		d.Close()
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return &AtomicFile{File: f, path: path, dir: d, tmp: tmp}, nil
}

// Path is the final name of the file.
func (a *AtomicFile) Path() string { return a.path }

// Commit flushes the file to disk and renames it to its final name.
func (a *AtomicFile) Commit() error {
	if a.done {
		return fmt.Errorf("commit %s: already closed", a.path)
	}
	a.done = true
	defer a.dir.Close()
	fail := func(err error) error {
		removeAt(a.dir, a.tmp)
		return fmt.Errorf("commit %s: %w", a.path, err)
	}
	if err := a.File.Chmod(0o644); err != nil {
		a.File.Close()
		return fail(err)
	}
	if err := a.File.Sync(); err != nil {
		a.File.Close()
		return fail(err)
	}
	if err := a.File.Close(); err != nil {
		return fail(err)
	}
	if err := checkAt(a.dir, filepath.Base(a.path)); err != nil {
		return fail(err)
	}
	if err := renameAt(a.dir, a.tmp, a.dir, filepath.Base(a.path)); err != nil {
		return fail(err)
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
	removeAt(a.dir, a.tmp)
	a.dir.Close()
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
// place. Destinations are checked before anything moves, as CreateAtomic
// checks its name, so a name taken by a directory, a link or an input
// fails the commit with nothing changed; each is checked again as it
// moves, through its directory's handle.
func CommitStaged(staging, dir string, names []string, record string) error {
	check := func(n string) error {
		dst, err := LocalPath(dir, n)
		if err != nil {
			return err
		}
		d, err := openOutDir(filepath.Dir(dst))
		if err != nil {
			return err
		}
		defer d.Close()
		return checkAt(d, filepath.Base(dst))
	}
	for _, n := range append(slices.Clone(names), record) {
		if n == "" {
			continue
		}
		if err := check(n); err != nil {
			return fmt.Errorf("commit %s: %w", dir, err)
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
		return MoveOutput(filepath.Join(staging, filepath.FromSlash(n)), dst)
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

// MoveOutput renames src, a finished output in a staging directory, to
// dst, checking dst as CreateAtomic checks its name (ErrNotOutput) and
// reaching dst's directory as CreateAtomic does (beneath a lock's handle,
// making it if needed), so that a commit of staged outputs replaces no
// input, hard link, device or link.
func MoveOutput(src, dst string) error {
	to, err := openOutDir(filepath.Dir(dst))
	if err != nil {
		return fmt.Errorf("commit %s: %w", dst, err)
	}
	defer to.Close()
	if err := checkAt(to, filepath.Base(dst)); err != nil {
		return fmt.Errorf("commit %s: %w", dst, err)
	}
	from, err := os.Open(filepath.Dir(src))
	if err != nil {
		return fmt.Errorf("commit %s: %w", dst, err)
	}
	defer from.Close()
	if err := renameAt(from, filepath.Base(src), to, filepath.Base(dst)); err != nil {
		return fmt.Errorf("commit %s: %w", dst, err)
	}
	return nil
}
