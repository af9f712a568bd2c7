package datasets

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
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
