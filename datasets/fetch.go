package datasets

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/schedlab/schedlab/pipeline"
)

// PAIV2020BaseURL is where Alibaba publishes the PAI v2020 tarballs
// (cluster-trace-gpu-v2020/README.md; a copy is
// ../shared/data/pai-v2020/README.upstream.md).
const PAIV2020BaseURL = "https://aliopentrace.oss-cn-beijing.aliyuncs.com/v2020GPUTraces/"

// ErrChecksum is wrapped by every fetch error caused by content that does
// not match its published sha256.
var ErrChecksum = errors.New("sha256 mismatch")

// Tarball is one published archive: its file name under the base URL, its
// sha256, and the sha256 of the files it unpacks to, by name, where the
// publisher lists them.
type Tarball struct {
	Name     string
	SHA256   string
	Contents map[string]string
}

// PAIV2020Tarballs are the seven tables of the PAI v2020 trace with the
// sums of the upstream README ("Checksum" for the tarballs, "Usage" for
// the CSVs they unpack to).
var PAIV2020Tarballs = []Tarball{
	{Name: "pai_group_tag_table.tar.gz", SHA256: "722fef30b7fb7aa50dabd79155614b5423a9d65cf45a9b26c590d57725423a14",
		Contents: map[string]string{"pai_group_tag_table.csv": "d23fcb56d88b2976fda4a62708d77b2a8c98635c4b443f100ed5553d4cd07fbe"}},
	{Name: "pai_instance_table.tar.gz", SHA256: "1bf1e423a7ce3f8d086699801c362fd56a7182abdb234139e5ebbed97995ca06",
		Contents: map[string]string{"pai_instance_table.csv": "b179f7d7e0927a6663d719b728c92640447c5a0fc3c6e4edff31e7207ab9dd17"}},
	{Name: "pai_job_table.tar.gz", SHA256: "5aad7f7caac501136d14ed6a48e40546f825d7b0617a3a4f337e2348fe0a6cb0",
		Contents: map[string]string{"pai_job_table.csv": "379ecb3becaba347f44a53bf7eb53e54b185221b2a0338a3f828828d269ba96c"}},
	{Name: "pai_machine_metric.tar.gz", SHA256: "53ad917193d3b1dd0f3055e723148b1f36c2f81789b014ea2930a7875892eef5",
		Contents: map[string]string{"pai_machine_metric.csv": "8b6592daab0373ef7fec730198b4df5891b1722c2ab4c7016249166e131402d3"}},
	{Name: "pai_machine_spec.tar.gz", SHA256: "cc0d38a4045af1b1af8179de8b1b54b1ddd995e6160d6d061a6b1000f1276c2d",
		Contents: map[string]string{"pai_machine_spec.csv": "251e9e33649155a6a935fdc1dc0e90cd4698206936b60bd8fce60ff2ccd51439"}},
	{Name: "pai_sensor_table.tar.gz", SHA256: "9a0b82e8bdf3949281e4ba1423d9b4b34847e52799eecb138966de46da69c7a0",
		Contents: map[string]string{"pai_sensor_table.csv": "12dd9929b70f3efe18d1279d9873e3a519c64f431613b23b059ed8c46a376dd7"}},
	{Name: "pai_task_table.tar.gz", SHA256: "cd1d6dc3215d2a8607ccf6b6dd952b5db776df86926c73259fea7c1499ac40e5",
		Contents: map[string]string{"pai_task_table.csv": "6954802b457305f8a9e480ef97c40060baee59649fd3adc62c5a1e048aa058de"}},
}

// Publisher is a Reader whose raw files are published as tarballs that
// Fetch can download and check (`schedlab datasets fetch SOURCE`): a
// source says so in its registration by implementing it.
type Publisher interface {
	// Published is where the tarballs are (the default Fetch.BaseURL)
	// and which they are, with their sums.
	Published() (baseURL string, tarballs []Tarball)
}

// PublishedSources lists the registered sources that are Publishers,
// sorted.
func PublishedSources() []string {
	registryMu.Lock()
	defer registryMu.Unlock()
	var names []string
	for _, n := range sourcesLocked() {
		if _, ok := registry[n].(Publisher); ok {
			names = append(names, n)
		}
	}
	return names
}

// LookupPublisher returns the Publisher registered under source, or an
// error naming the sources that can be fetched.
func LookupPublisher(source string) (Publisher, error) {
	r, err := Lookup(source)
	if err == nil {
		if p, ok := r.(Publisher); ok {
			return p, nil
		}
	}
	return nil, fmt.Errorf("datasets: %q is not published as tarballs (fetchable: %s)", source, strings.Join(PublishedSources(), ", "))
}

// Fetch downloads published tarballs into a directory. The zero value
// fetches every PAI v2020 table from Alibaba into the current directory.
type Fetch struct {
	// Dir receives the unpacked files; "" means ".".
	Dir string
	// BaseURL is prefixed to each tarball name; "" means PAIV2020BaseURL.
	BaseURL string
	// Tarballs to fetch; nil means PAIV2020Tarballs.
	Tarballs []Tarball
	// Client makes the requests; nil means http.DefaultClient.
	Client *http.Client
	// Progress, when set, is called as a tarball downloads with the bytes
	// so far and the total (-1 when the server does not say).
	Progress func(name string, done, total int64)
	// ConnectTimeout bounds connecting (TCP and TLS) to the server when
	// Client is nil; 0 means DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// ReadTimeout is how long a download may wait for the response
	// headers or, later, for its next bytes; 0 means DefaultReadTimeout.
	// A server that stops answering fails the attempt instead of hanging
	// the fetch.
	ReadTimeout time.Duration
	// Retries is how many times a failed download is tried again, after
	// Backoff; 0 means DefaultRetries, negative means none. Only transient
	// failures are retried: connection and read errors, timeouts, short
	// bodies, HTTP 408, 429 and 5xx. A 404 or a sha256 mismatch of a
	// complete download is final.
	Retries int
	// Backoff is the wait before retry n (1-based); nil means
	// DefaultBackoff. Sleep waits (nil: a timer that ends early when ctx
	// is cancelled); tests replace both so that they never sleep.
	Backoff func(n int) time.Duration
	Sleep   func(ctx context.Context, d time.Duration) error
	// Log, when set, is told of retries and of present files that failed
	// their check and are fetched again.
	Log func(msg string)
}

// Defaults of Fetch's timeouts and retries.
const (
	DefaultConnectTimeout = 30 * time.Second
	DefaultReadTimeout    = 2 * time.Minute
	DefaultRetries        = 4
)

// DefaultBackoff doubles from 2 s to at most 1 min: 2, 4, 8, 16 s, ...;
// deterministic, so a nightly job's worst case is known (with
// DefaultRetries, 30 s of waiting per tarball).
func DefaultBackoff(n int) time.Duration {
	return min(2*time.Second<<min(max(n-1, 0), 5), time.Minute)
}

// errTransient marks a download failure worth retrying.
type errTransient struct{ err error }

func (e errTransient) Error() string { return e.err.Error() }
func (e errTransient) Unwrap() error { return e.err }

func (f *Fetch) logf(format string, args ...any) {
	if f.Log != nil {
		f.Log(fmt.Sprintf(format, args...))
	}
}

// Run fetches every tarball, one after another. For each it downloads to
// a temporary file beside Dir while hashing, refuses it unless its sha256
// is the published one, unpacks it into a temporary directory (checking
// each file with a published sum), and only then renames the files into
// Dir. So a failure at any step leaves nothing of that tarball behind, and
// what is in Dir was verified. A tarball whose files are all already in
// Dir, each matching its published sha256, is skipped; a file missing,
// empty or failing its sum is fetched again.
//
// Run locks Dir (pipeline.LockDir) and first removes the temporaries a
// killed fetch left there.
func (f *Fetch) Run(ctx context.Context) (err error) {
	dir := f.Dir
	if dir == "" {
		dir = "."
	}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		// A directory made for a fetch that fails goes again (Remove
		// leaves it when an earlier tarball did arrive).
		defer func() {
			if err != nil {
				os.Remove(dir)
			}
		}()
	}
	lock, err := pipeline.LockDir(dir, "datasets fetch")
	if err != nil {
		return fmt.Errorf("fetch: %w", err)
	}
	defer lock.Unlock()
	if _, err := pipeline.RemoveScratch(dir, false); err != nil {
		return fmt.Errorf("fetch: %w", err)
	}
	tbs := f.Tarballs
	if tbs == nil {
		tbs = PAIV2020Tarballs
	}
	for _, tb := range tbs {
		ok, err := f.present(ctx, dir, tb)
		if err != nil {
			return fmt.Errorf("fetch %s: %w", tb.Name, err)
		}
		if ok {
			continue
		}
		if err := f.fetchOne(ctx, dir, tb); err != nil {
			return fmt.Errorf("fetch %s: %w", tb.Name, err)
		}
	}
	return nil
}

// present reports whether every file tb is known to unpack to is in dir
// with its published sum (a file without one must at least not be empty).
// The sums are checked each time: a truncated or zero-byte table, say from
// a disk that filled up, must not pass for a fetched one.
func (f *Fetch) present(ctx context.Context, dir string, tb Tarball) (bool, error) {
	if len(tb.Contents) == 0 {
		return false, nil
	}
	names := make([]string, 0, len(tb.Contents))
	for name := range tb.Contents {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := filepath.Join(dir, filepath.FromSlash(name))
		st, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		want := tb.Contents[name]
		if want == "" {
			if st.Size() == 0 {
				f.logf("%s is empty: fetching %s again", p, tb.Name)
				return false, nil
			}
			continue
		}
		if err := ctx.Err(); err != nil {
			return false, context.Cause(ctx)
		}
		got, _, err := pipeline.HashFile(p)
		if err != nil {
			return false, err
		}
		if !strings.EqualFold(got, want) {
			f.logf("%s: sha256 %s, published %s: fetching %s again", p, got, want, tb.Name)
			return false, nil
		}
	}
	return true, nil
}

func (f *Fetch) fetchOne(ctx context.Context, dir string, tb Tarball) error {
	base := f.BaseURL
	if base == "" {
		base = PAIV2020BaseURL
	}
	url := strings.TrimSuffix(base, "/") + "/" + tb.Name
	tmp, err := os.CreateTemp(dir, "."+tb.Name+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	retries := f.Retries
	if retries == 0 {
		retries = DefaultRetries
	}
	for attempt := 0; ; attempt++ {
		err = f.download(ctx, url, tb, tmp)
		var tr errTransient
		if err == nil || !errors.As(err, &tr) || attempt >= retries || ctx.Err() != nil {
			break
		}
		backoff := f.Backoff
		if backoff == nil {
			backoff = DefaultBackoff
		}
		d := backoff(attempt + 1)
		f.logf("%s: %v; retry %d of %d in %v", tb.Name, err, attempt+1, retries, d)
		sleep := f.Sleep
		if sleep == nil {
			sleep = sleepCtx
		}
		if err := sleep(ctx, d); err != nil {
			return err
		}
		if err := tmp.Truncate(0); err != nil {
			return err
		}
		if _, err := tmp.Seek(0, io.SeekStart); err != nil {
			return err
		}
	}
	if err != nil {
		return err
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return err
	}
	staging, err := pipeline.MkdirScratch(dir, "unpack-"+tb.Name)
	if err != nil {
		return err
	}
	defer os.RemoveAll(staging)
	files, err := unpack(ctx, tmp, staging, tb)
	if err != nil {
		return err
	}
	for _, name := range files {
		// A folder of dir linked elsewhere must not lead the move out.
		dst, err := pipeline.LocalPath(dir, filepath.ToSlash(name))
		if err != nil {
			return err
		}
		if err := pipeline.MoveOutput(filepath.Join(staging, name), dst); err != nil {
			return err
		}
	}
	return nil
}

// sleepCtx waits d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// errStalled is the cause of an attempt cancelled by ReadTimeout.
var errStalled = errors.New("server stalled")

func (f *Fetch) client() *http.Client {
	if f.Client != nil {
		return f.Client
	}
	connect := f.ConnectTimeout
	if connect <= 0 {
		connect = DefaultConnectTimeout
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = connect
	return &http.Client{Transport: t}
}

// download writes url's body to w, checking its sha256 against tb's. A
// failure worth retrying is wrapped in errTransient.
func (f *Fetch) download(ctx context.Context, url string, tb Tarball, w io.Writer) error {
	readTimeout := f.ReadTimeout
	if readTimeout <= 0 {
		readTimeout = DefaultReadTimeout
	}
	// One timer covers waiting for the headers and for each next read of
	// the body: it is pushed back whenever bytes arrive, and cancels the
	// attempt when none do for readTimeout.
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stall := time.AfterFunc(readTimeout, func() { cancel(fmt.Errorf("%w: no data for %v", errStalled, readTimeout)) })
	defer stall.Stop()
	transient := func(err error) error {
		if c := context.Cause(actx); errors.Is(c, errStalled) {
			err = fmt.Errorf("%w (%v)", c, err)
		} else if ctx.Err() != nil {
			return context.Cause(ctx) // interrupted: final
		}
		return errTransient{err}
	}
	req, err := http.NewRequestWithContext(actx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := f.client().Do(req)
	if err != nil {
		return transient(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		err := fmt.Errorf("GET %s: %s", url, resp.Status)
		if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusRequestTimeout {
			return errTransient{err}
		}
		return err
	}
	h := sha256.New()
	body := io.Reader(&stallReader{r: resp.Body, timer: stall, d: readTimeout})
	if f.Progress != nil {
		body = &progressReader{r: body, name: tb.Name, total: resp.ContentLength, report: f.Progress}
		f.Progress(tb.Name, 0, resp.ContentLength)
	}
	n, err := io.Copy(io.MultiWriter(w, h), body)
	if err != nil {
		var werr *os.PathError
		if errors.As(err, &werr) { // our disk, not the network
			return fmt.Errorf("GET %s: after %d bytes: %w", url, n, err)
		}
		return transient(fmt.Errorf("GET %s: after %d bytes: %w", url, n, err))
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		return errTransient{fmt.Errorf("GET %s: %d of %d bytes", url, n, resp.ContentLength)}
	}
	return checkSum(tb.Name, h, tb.SHA256)
}

// stallReader pushes timer back by d whenever bytes arrive.
type stallReader struct {
	r     io.Reader
	timer *time.Timer
	d     time.Duration
}

func (s *stallReader) Read(b []byte) (int, error) {
	n, err := s.r.Read(b)
	if n > 0 {
		s.timer.Reset(s.d)
	}
	return n, err
}

func checkSum(name string, h hash.Hash, want string) error {
	if got := hex.EncodeToString(h.Sum(nil)); !strings.EqualFold(got, want) {
		return fmt.Errorf("%s: %w: got %s, published %s", name, ErrChecksum, got, want)
	}
	return nil
}

// unpack extracts the regular files of a gzipped tar into dir, checking
// those with a published sum, and returns their paths relative to dir.
// Entries that would land outside dir, links and devices are refused.
func unpack(ctx context.Context, r io.Reader, dir string, tb Tarball) ([]string, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: gzip: %v", ErrFormat, tb.Name, err)
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	var files []string
	seen := map[string]bool{}
	for {
		if err := ctx.Err(); err != nil {
			return nil, context.Cause(ctx)
		}
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: tar: %v", ErrFormat, tb.Name, err)
		}
		name := filepath.Clean(filepath.FromSlash(hdr.Name))
		switch hdr.Typeflag {
		case tar.TypeDir:
			continue
		case tar.TypeReg:
		default:
			return nil, fmt.Errorf("%w: %s: entry %q is not a regular file", ErrFormat, tb.Name, hdr.Name)
		}
		// macOS tar adds AppleDouble "._name" companions: not data.
		if strings.HasPrefix(filepath.Base(name), "._") {
			continue
		}
		if !filepath.IsLocal(name) {
			return nil, fmt.Errorf("%w: %s: entry %q would be written outside the target directory", ErrFormat, tb.Name, hdr.Name)
		}
		if seen[name] {
			return nil, fmt.Errorf("%w: %s: entry %q twice", ErrFormat, tb.Name, hdr.Name)
		}
		seen[name] = true
		if err := extract(tr, filepath.Join(dir, name), tb.Contents[filepath.ToSlash(name)]); err != nil {
			return nil, fmt.Errorf("%s: %w", tb.Name, err)
		}
		files = append(files, name)
	}
	for want := range tb.Contents {
		if !seen[filepath.FromSlash(want)] {
			return nil, fmt.Errorf("%w: %s has no %s", ErrFormat, tb.Name, want)
		}
	}
	return files, nil
}

// extract copies one entry to path, checking its sha256 when sum is set.
func extract(r io.Reader, path, sum string) error {
	out, err := pipeline.CreateAtomic(path)
	if err != nil {
		return err
	}
	defer out.Abort()
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(out, h), r); err != nil {
		return fmt.Errorf("%w: unpack %s: %v", ErrFormat, filepath.Base(path), err)
	}
	if sum != "" {
		if err := checkSum(filepath.Base(path), h, sum); err != nil {
			return err
		}
	}
	return out.Commit()
}

// progressReader reports the bytes read through it.
type progressReader struct {
	r           io.Reader
	name        string
	done, total int64
	report      func(name string, done, total int64)
	last        int64
}

// progressStep is how many bytes pass between two progress calls.
const progressStep = 1 << 20

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.done += int64(n)
	if p.done-p.last >= progressStep || (err != nil && p.done != p.last) {
		p.report(p.name, p.done, p.total)
		p.last = p.done
	}
	return n, err
}
