package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// TestDatasetsFetchTimesOut: a server that never answers fails the fetch
// after --read-timeout (exit 1, the stall named) instead of hanging it;
// nonsensical timeouts and retry counts are usage errors.
func TestDatasetsFetchTimesOut(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer srv.Close()
	dir := filepath.Join(t.TempDir(), "pai")
	start := time.Now()
	_, stderr, code := schedlab(t, nil, "datasets", "fetch", "pai-v2020", "--dir", dir, "--base-url", srv.URL, "--read-timeout", "200ms", "--retries", "0")
	if code != 1 || !strings.Contains(stderr, "stalled") || !strings.Contains(stderr, "pai_group_tag_table.tar.gz") {
		t.Errorf("exit %d, want 1 naming the stall: %s", code, stderr)
	}
	if el := time.Since(start); el > 30*time.Second {
		t.Errorf("took %v", el)
	}
	for _, args := range [][]string{{"--read-timeout", "0s"}, {"--connect-timeout", "-1s"}, {"--retries", "-1"}, {"--retries", "1000"}} {
		if _, stderr, code := schedlab(t, nil, append([]string{"datasets", "fetch", "pai-v2020", "--dir", dir, "--base-url", srv.URL}, args...)...); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", args, code, stderr)
		}
	}
}
