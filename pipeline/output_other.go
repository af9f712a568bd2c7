//go:build !unix

package pipeline

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Without openat the directory handles below are paths: the checks hold,
// but a folder swapped for a link between check and write is not caught.

func idOf(fs.FileInfo) (fileID, bool) { return fileID{}, false }

func openOutDir(dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return os.Open(dir)
}

func checkAt(d *os.File, name string) error {
	p := filepath.Join(d.Name(), name)
	fi, err := os.Lstat(p)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	return checkReplace(p, fi.Mode(), 1, fileID{}, false)
}

func createTempAt(d *os.File, base string) (*os.File, string, error) {
	f, err := os.CreateTemp(d.Name(), "."+base+".tmp-*")
	if err != nil {
		return nil, "", err
	}
	return f, filepath.Base(f.Name()), nil
}

func renameAt(src *os.File, from string, dst *os.File, to string) error {
	return os.Rename(filepath.Join(src.Name(), from), filepath.Join(dst.Name(), to))
}

func removeAt(d *os.File, name string) error { return os.Remove(filepath.Join(d.Name(), name)) }
