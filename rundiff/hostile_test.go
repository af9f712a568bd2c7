package rundiff

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Every artifact a manifest lists is checked against the file before two
// runs are compared: a file swapped for another run's, or a hash edited in
// the manifest, is an error naming the file, not "byte-identical".
func TestCompareVerifiesEveryArtifact(t *testing.T) {
	ctx := context.Background()
	opt := Options{Thresholds: DefaultThresholds(), Bytes: true}
	a := fakeRun{seed: 1, submit: sameJobs, jcts: map[string][][]float64{"s1": {{1, 2}}}, extra: map[string]string{"notes.txt": "a"}}
	other := fakeRun{seed: 1, submit: sameJobs, jcts: map[string][][]float64{"s1": {{5, 9}}}}

	copyRun := func(src string) string {
		dst := t.TempDir()
		filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
			rel, _ := filepath.Rel(src, p)
			if d.IsDir() {
				return os.MkdirAll(filepath.Join(dst, rel), 0o755)
			}
			b, _ := os.ReadFile(p)
			return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
		})
		return dst
	}
	runA := a.write(t)

	swapped := copyRun(runA)
	b, _ := os.ReadFile(filepath.Join(other.write(t), "eval/exp/metrics.parquet"))
	os.WriteFile(filepath.Join(swapped, "eval/exp/metrics.parquet"), b, 0o644)
	if _, err := Compare(ctx, runA, swapped, opt); err == nil || !strings.Contains(err.Error(), filepath.Join(swapped, "eval/exp/metrics.parquet")) {
		t.Errorf("a file swapped for another run's: %v, want an error naming it", err)
	}

	edited := copyRun(runA)
	mp := filepath.Join(edited, ManifestFile)
	m, _ := os.ReadFile(mp)
	sum := strings.SplitN(strings.SplitN(string(m), `"sha256": "`, 3)[2], `"`, 2)[0] // the second output's (notes.txt's or a table's)
	os.WriteFile(mp, []byte(strings.ReplaceAll(string(m), sum, strings.Repeat("f", 64))), 0o644)
	if _, err := Compare(ctx, runA, edited, opt); err == nil || !strings.Contains(err.Error(), "changed after its run") {
		t.Errorf("a hash edited in the manifest: %v", err)
	}
}

// A manifest that is a FIFO, a link to /dev/zero or padded past the bound
// is refused at once.
func TestCompareRefusesHostileManifest(t *testing.T) {
	ctx := context.Background()
	opt := Options{Thresholds: DefaultThresholds()}
	good := fakeRun{seed: 1, submit: sameJobs, jcts: map[string][][]float64{"s1": {{1, 2}}}}
	runA := good.write(t)

	fifo := good.write(t)
	os.Remove(filepath.Join(fifo, ManifestFile))
	if err := syscall.Mkfifo(filepath.Join(fifo, ManifestFile), 0o644); err == nil {
		if _, err := Compare(ctx, runA, fifo, opt); err == nil || !strings.Contains(err.Error(), "FIFO") {
			t.Errorf("FIFO manifest: %v", err)
		}
	}
	zero := good.write(t)
	os.Remove(filepath.Join(zero, ManifestFile))
	if err := os.Symlink("/dev/zero", filepath.Join(zero, ManifestFile)); err == nil {
		if _, err := Compare(ctx, runA, zero, opt); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("/dev/zero manifest: %v", err)
		}
	}
	padded := good.write(t)
	f, _ := os.OpenFile(filepath.Join(padded, ManifestFile), os.O_APPEND|os.O_WRONLY, 0)
	f.Write([]byte(strings.Repeat(" ", 20<<20)))
	f.Close()
	if _, err := Compare(ctx, runA, padded, opt); err == nil || !strings.Contains(err.Error(), "bytes") {
		t.Errorf("padded manifest: %v", err)
	}
}
