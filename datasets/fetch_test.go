package datasets

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// tarGz builds a gzipped tar of the given entries (name → content); a name
// ending in "/" is a directory, one starting with "@" a symlink.
func tarGz(t testing.TB, entries ...[2]string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		name, body := e[0], e[1]
		hdr := &tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}
		switch {
		case strings.HasSuffix(name, "/"):
			hdr.Typeflag, hdr.Size, hdr.Mode = tar.TypeDir, 0, 0o755
		case strings.HasPrefix(name, "@"):
			hdr.Name, hdr.Typeflag, hdr.Size, hdr.Linkname = name[1:], tar.TypeSymlink, 0, body
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if hdr.Typeflag == tar.TypeReg {
			if _, err := tw.Write([]byte(body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// fetchServer serves files by name and counts the requests.
type fetchServer struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func newFetchServer(t *testing.T, files map[string][]byte) *fetchServer {
	s := &fetchServer{hits: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/v2020/")
		s.mu.Lock()
		s.hits[name]++
		s.mu.Unlock()
		b, ok := files[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(s.Close)
	return s
}

// listDir lists every file under dir, hidden ones included.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			names = append(names, rel)
		}
		return nil
	})
	sort.Strings(names)
	return names
}

func TestFetch(t *testing.T) {
	jobCSV := "j,i,u,Terminated,1.0,2.0\n"
	specCSV := "m1,V100,96,512,8\n"
	jobTar := tarGz(t, [2]string{"pai_job_table.csv", jobCSV})
	specTar := tarGz(t, [2]string{"./", ""}, [2]string{"./pai_machine_spec.csv", specCSV}, [2]string{"._pai_machine_spec.csv", "mac"})
	srv := newFetchServer(t, map[string][]byte{"pai_job_table.tar.gz": jobTar, "pai_machine_spec.tar.gz": specTar})
	tbs := []Tarball{
		{Name: "pai_job_table.tar.gz", SHA256: sum(jobTar), Contents: map[string]string{"pai_job_table.csv": sum([]byte(jobCSV))}},
		{Name: "pai_machine_spec.tar.gz", SHA256: strings.ToUpper(sum(specTar)), Contents: map[string]string{"pai_machine_spec.csv": sum([]byte(specCSV))}},
	}
	dir := filepath.Join(t.TempDir(), "pai")
	var progress []int64
	f := Fetch{Dir: dir, BaseURL: srv.URL + "/v2020/", Tarballs: tbs, Progress: func(name string, done, total int64) {
		if name == "pai_job_table.tar.gz" {
			progress = append(progress, done, total)
		}
	}}
	if err := f.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := listDir(t, dir); strings.Join(got, " ") != "pai_job_table.csv pai_machine_spec.csv" {
		t.Errorf("dir holds %v", got)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "pai_job_table.csv")); string(b) != jobCSV {
		t.Errorf("pai_job_table.csv = %q", b)
	}
	n := int64(len(jobTar))
	if len(progress) < 4 || progress[0] != 0 || progress[len(progress)-2] != n || progress[len(progress)-1] != n {
		t.Errorf("progress calls %v, want from 0 to %d of %d", progress, n, n)
	}
	// A second run finds the files and downloads nothing.
	if err := f.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if srv.hits["pai_job_table.tar.gz"] != 1 {
		t.Errorf("hits %v after a second run, want one download each", srv.hits)
	}
	// The fetched tables are what the pai-v2020 reader reads.
	rep, _ := ingestPAIRaw(t, dir)
	if rep.Total != (Accounting{Read: 2, Accepted: 1, Quarantined: 1}) {
		t.Errorf("ingest of the fetched tables: %+v", rep.Total)
	}
}

// TestFetchRefuses: every failure leaves the target directory as it was
// (here: not there at all), with no temporary file behind.
func TestFetchRefuses(t *testing.T) {
	csv := "m1,V100,96,512,8\n"
	good := tarGz(t, [2]string{"pai_machine_spec.csv", csv})
	cases := []struct {
		name     string
		body     []byte // served as x.tar.gz; nil: 404
		tarSum   string // "" means sum(body)
		csvSum   string // "" means sum(csv)
		isSum    bool   // the error wraps ErrChecksum
		isFormat bool   // the error wraps ErrFormat
	}{
		{name: "tarball sum", body: good, tarSum: sum([]byte("other")), isSum: true},
		{name: "content sum", body: good, csvSum: sum([]byte("other")), isSum: true},
		{name: "not found"},
		{name: "not gzip", body: []byte("<html>error page</html>"), isFormat: true},
		{name: "truncated", body: good[:len(good)/2], isFormat: true},
		{name: "escaping entry", body: tarGz(t, [2]string{"../pai_machine_spec.csv", csv}), isFormat: true},
		{name: "symlink", body: tarGz(t, [2]string{"@pai_machine_spec.csv", "/etc/passwd"}), isFormat: true},
		{name: "file missing", body: tarGz(t, [2]string{"other.csv", csv}), isFormat: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string][]byte{}
			if tc.body != nil {
				files["x.tar.gz"] = tc.body
			}
			srv := newFetchServer(t, files)
			tb := Tarball{Name: "x.tar.gz", SHA256: tc.tarSum, Contents: map[string]string{"pai_machine_spec.csv": tc.csvSum}}
			if tb.SHA256 == "" {
				tb.SHA256 = sum(tc.body)
			}
			if tc.csvSum == "" {
				tb.Contents["pai_machine_spec.csv"] = sum([]byte(csv))
			}
			parent := t.TempDir()
			dir := filepath.Join(parent, "pai")
			err := (&Fetch{Dir: dir, BaseURL: srv.URL + "/v2020", Tarballs: []Tarball{tb}}).Run(context.Background())
			if err == nil {
				t.Fatal("fetch succeeded")
			}
			if tc.isSum != errors.Is(err, ErrChecksum) || tc.isFormat != errors.Is(err, ErrFormat) {
				t.Errorf("err = %v: ErrChecksum %v, ErrFormat %v; want %v, %v", err, errors.Is(err, ErrChecksum), errors.Is(err, ErrFormat), tc.isSum, tc.isFormat)
			}
			if ents, _ := os.ReadDir(parent); len(ents) != 0 {
				t.Errorf("left behind: %v", listDir(t, parent))
			}
		})
	}
}

// TestPAIV2020Tarballs checks the built-in list against the upstream README
// copy when it is at hand: every tarball and CSV sum listed there is ours.
func TestPAIV2020Tarballs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(sharedData(t, "pai-v2020"), "README.upstream.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	if len(PAIV2020Tarballs) != 7 {
		t.Errorf("%d tarballs, want 7", len(PAIV2020Tarballs))
	}
	for _, tb := range PAIV2020Tarballs {
		if !strings.Contains(readme, tb.SHA256+"  "+tb.Name) || !strings.Contains(readme, PAIV2020BaseURL+tb.Name) {
			t.Errorf("%s: sum or URL not in the upstream README", tb.Name)
		}
		for name, s := range tb.Contents {
			if !strings.Contains(readme, s+"  "+name) {
				t.Errorf("%s: sum of %s not in the upstream README", tb.Name, name)
			}
		}
	}
}

// noSleep records the waits Fetch asks for instead of sleeping.
type noSleep struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (n *noSleep) sleep(ctx context.Context, d time.Duration) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.waits = append(n.waits, d)
	return ctx.Err()
}

// oneTarball is a tarball x.tar.gz holding pai_machine_spec.csv.
func oneTarball(t *testing.T) (Tarball, []byte, string) {
	csv := "m1,V100,96,512,8\n"
	body := tarGz(t, [2]string{"pai_machine_spec.csv", csv})
	return Tarball{Name: "x.tar.gz", SHA256: sum(body), Contents: map[string]string{"pai_machine_spec.csv": sum([]byte(csv))}}, body, csv
}

// TestFetchTimesOut: a server that accepts the connection and then says
// nothing, before the headers or in the middle of the body, fails the
// fetch after ReadTimeout (retried, then reported) instead of hanging it.
func TestFetchTimesOut(t *testing.T) {
	tb, body, _ := oneTarball(t)
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"no headers", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }},
		{"stalls mid-body", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
			w.Write(body[:len(body)/2])
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hits atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				tc.handler(w, r)
			}))
			defer srv.Close()
			sl := &noSleep{}
			dir := filepath.Join(t.TempDir(), "pai")
			start := time.Now()
			// 50 ms: long enough for a loopback server that answers, short
			// enough that three stalled attempts take well under a second.
			err := (&Fetch{Dir: dir, BaseURL: srv.URL, Tarballs: []Tarball{tb}, ReadTimeout: 50 * time.Millisecond,
				Retries: 2, Sleep: sl.sleep}).Run(context.Background())
			if err == nil || !strings.Contains(err.Error(), "stalled") {
				t.Fatalf("err = %v, want a stall", err)
			}
			if hits.Load() != 3 || len(sl.waits) != 2 {
				t.Errorf("%d attempts, %d waits; want 3 and 2", hits.Load(), len(sl.waits))
			}
			if el := time.Since(start); el > 5*time.Second {
				t.Errorf("took %v", el)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("left %v", listDir(t, dir))
			}
		})
	}
}

// TestFetchRetries: transient failures (5xx, a connection cut short) are
// retried after DefaultBackoff's waits, in order; a 404 and a sha256
// mismatch are not; retries are bounded.
func TestFetchRetries(t *testing.T) {
	tb, body, csv := oneTarball(t)
	for _, tc := range []struct {
		name     string
		failures int // first requests that fail
		fail     func(w http.ResponseWriter)
		retries  int
		ok       bool
		hits     int
	}{
		{"503 twice", 2, func(w http.ResponseWriter) { http.Error(w, "busy", http.StatusServiceUnavailable) }, 0, true, 3},
		{"cut short", 1, func(w http.ResponseWriter) {
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
			w.Write(body[:10])
		}, 0, true, 2},
		{"503 always", 100, func(w http.ResponseWriter) { http.Error(w, "busy", http.StatusServiceUnavailable) }, 3, false, 4},
		{"404", 100, func(w http.ResponseWriter) { http.NotFound(w, nil) }, 0, false, 1},
		{"bad bytes", 100, func(w http.ResponseWriter) { w.Write(append(body[:len(body)-1:len(body)-1], body[len(body)-1]^1)) }, 0, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hits atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if int(hits.Add(1)) <= tc.failures {
					tc.fail(w)
					return
				}
				w.Write(body)
			}))
			defer srv.Close()
			sl := &noSleep{}
			dir := filepath.Join(t.TempDir(), "pai")
			err := (&Fetch{Dir: dir, BaseURL: srv.URL, Tarballs: []Tarball{tb}, Retries: tc.retries, Sleep: sl.sleep}).Run(context.Background())
			if (err == nil) != tc.ok {
				t.Fatalf("err = %v, want success %v", err, tc.ok)
			}
			if int(hits.Load()) != tc.hits {
				t.Errorf("%d requests, want %d", hits.Load(), tc.hits)
			}
			var want []time.Duration
			for n := 1; n < tc.hits; n++ {
				want = append(want, DefaultBackoff(n))
			}
			if fmt.Sprint(sl.waits) != fmt.Sprint(want) {
				t.Errorf("waits %v, want %v", sl.waits, want)
			}
			if tc.ok {
				if b, _ := os.ReadFile(filepath.Join(dir, "pai_machine_spec.csv")); string(b) != csv {
					t.Errorf("fetched %q", b)
				}
			} else if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("left %v", listDir(t, dir))
			}
		})
	}
	if got := []time.Duration{DefaultBackoff(1), DefaultBackoff(2), DefaultBackoff(4), DefaultBackoff(30)}; fmt.Sprint(got) != "[2s 4s 16s 1m0s]" {
		t.Errorf("DefaultBackoff: %v", got)
	}
}

// TestFetchChecksPresentFiles: a table already in Dir counts as fetched
// only with its published sum; an empty or altered one is fetched again,
// and a killed fetch's temporaries go.
func TestFetchChecksPresentFiles(t *testing.T) {
	tb, body, csv := oneTarball(t)
	srv := newFetchServer(t, map[string][]byte{"x.tar.gz": body})
	for _, tc := range []struct {
		name    string
		present string
		fetches int
	}{
		{"good", csv, 0},
		{"empty", "", 1},
		{"altered", strings.ToUpper(csv), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv.mu.Lock()
			srv.hits = map[string]int{}
			srv.mu.Unlock()
			dir := t.TempDir()
			p := filepath.Join(dir, "pai_machine_spec.csv")
			os.WriteFile(p, []byte(tc.present), 0o644)
			os.WriteFile(filepath.Join(dir, ".x.tar.gz.tmp-77"), []byte("killed"), 0o644)
			var logged []string
			err := (&Fetch{Dir: dir, BaseURL: srv.URL + "/v2020", Tarballs: []Tarball{tb}, Log: func(m string) { logged = append(logged, m) }}).Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if srv.hits["x.tar.gz"] != tc.fetches {
				t.Errorf("%d downloads, want %d", srv.hits["x.tar.gz"], tc.fetches)
			}
			if b, _ := os.ReadFile(p); string(b) != csv {
				t.Errorf("table holds %q after the fetch", b)
			}
			if len(logged) != tc.fetches {
				t.Errorf("logged %q", logged)
			}
			if got := listDir(t, dir); strings.Join(got, " ") != "pai_machine_spec.csv" {
				t.Errorf("dir holds %v", got)
			}
		})
	}
}

// TestPublishedSources: a source is fetchable when its registration says
// so (Publisher); PAI v2020's reader publishes Alibaba's seven tarballs,
// and a source that publishes none is refused with the fetchable ones
// named.
func TestPublishedSources(t *testing.T) {
	if got := PublishedSources(); !slices.Equal(got, []string{SourcePAIV2020}) {
		t.Errorf("PublishedSources() = %v, want [%s]", got, SourcePAIV2020)
	}
	p, err := LookupPublisher(SourcePAIV2020)
	if err != nil {
		t.Fatal(err)
	}
	if url, tb := p.Published(); url != PAIV2020BaseURL || len(tb) != 7 {
		t.Errorf("pai-v2020 publishes %d tarballs at %s, want 7 at %s", len(tb), url, PAIV2020BaseURL)
	}
	for _, src := range []string{SourceGoogle2011, "no-such-source"} {
		if _, err := LookupPublisher(src); err == nil || !strings.Contains(err.Error(), SourcePAIV2020) {
			t.Errorf("LookupPublisher(%q): %v, want an error naming %s", src, err, SourcePAIV2020)
		}
	}
}
