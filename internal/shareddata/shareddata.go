// Package shareddata lets tests find the real traces in the checkout's
// shared data folder (../shared/data beside the repository, else
// /work/shared/data), and skip, saying so, where it is absent.
package shareddata

import (
	"os"
	"path/filepath"
	"testing"
)

// Path returns the path of rel inside the shared data folder: the first
// ../shared/data/rel walking up from the working directory (a package's
// directory under go test), else /work/shared/data/rel. It skips the test
// when neither exists.
func Path(t testing.TB, rel string) string {
	t.Helper()
	dir, _ := os.Getwd()
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "..", "shared", "data", rel)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	p := filepath.Join("/work/shared/data", rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("real data %s not found (looked for ../shared/data and /work/shared/data); skipping", rel)
	}
	return p
}
