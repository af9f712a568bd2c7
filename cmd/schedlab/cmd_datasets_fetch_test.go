package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDatasetsFetchUsage(t *testing.T) {
	for _, args := range [][]string{{"datasets", "fetch"}, {"datasets", "fetch", "google-2011"}, {"datasets", "fetch", "pai-v2020", "extra"}} {
		if _, stderr, code := schedlab(t, nil, args...); code != 2 || !strings.Contains(stderr, "pai-v2020") {
			t.Errorf("%v: exit %d, want 2 naming pai-v2020: %s", args, code, stderr)
		}
	}
}

// TestDatasetsFetchRefuses points fetch at a local server whose tarballs do
// not match the published sums: exit status 1, the mismatch named, and
// nothing left in the target directory. (The real URLs are never
// contacted in tests.)
func TestDatasetsFetchRefuses(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("not the published tarball"))
	}))
	defer srv.Close()
	parent := t.TempDir()
	dir := filepath.Join(parent, "pai")
	_, stderr, code := schedlab(t, nil, "datasets", "fetch", "pai-v2020", "--dir", dir, "--base-url", srv.URL)
	if code != 1 || !strings.Contains(stderr, "sha256 mismatch") || !strings.Contains(stderr, "pai_group_tag_table.tar.gz") {
		t.Fatalf("exit %d, want 1 naming the sha256 mismatch of the first tarball: %s", code, stderr)
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 0 {
		t.Errorf("left behind %d entries in %s", len(ents), parent)
	}
}
