package trainingtest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// SameFiles fails t for each of names whose bytes in dir differ from
// those in want: a resumed training's outputs against an uninterrupted
// one's. A file missing on either side is fatal.
func SameFiles(t testing.TB, names []string, want, dir string) {
	t.Helper()
	for _, name := range names {
		a, err := os.ReadFile(filepath.Join(want, name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: the resumed training's file differs from the uninterrupted one's", name)
		}
	}
}
