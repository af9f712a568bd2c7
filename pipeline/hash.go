package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// HashFile returns the hex sha256 of a regular file's bytes; a FIFO or a
// device (a link to /dev/zero) is refused rather than read for ever.
func HashFile(path string) (string, int64, error) {
	f, _, err := OpenRegular(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// HashPath hashes a file, or a directory as the sha256 of the sorted list of
// its regular files' relative paths and hashes.
func HashPath(path string) (string, int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", 0, err
	}
	if !st.IsDir() {
		return HashFile(path)
	}
	var files []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return "", 0, err
	}
	sort.Strings(files)
	h := sha256.New()
	var total int64
	for _, f := range files {
		sum, n, err := HashFile(f)
		if err != nil {
			return "", 0, err
		}
		rel, _ := filepath.Rel(path, f)
		fmt.Fprintf(h, "%s\x00%s\n", filepath.ToSlash(rel), sum)
		total += n
	}
	return hex.EncodeToString(h.Sum(nil)), total, nil
}

// HashJSON returns the hex sha256 of v's JSON encoding. encoding/json sorts
// map keys, so the hash does not depend on map order.
func HashJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// HashBytes returns the hex sha256 of b, as HashFile would of a file
// holding b.
func HashBytes(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
