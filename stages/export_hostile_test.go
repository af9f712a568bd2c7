package stages

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/schedlab/schedlab/pipeline"
)

// exportRun writes a run directory whose manifest lists EvalMetrics with
// the given content's hash.
func exportRun(t *testing.T, content string) string {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, filepath.FromSlash(EvalMetrics))
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(content), 0o644)
	m := pipeline.Manifest{Status: "ok", ConfigHash: "c", Stages: []pipeline.StageManifest{{Name: "eval", Status: "ran",
		Outputs: []pipeline.Artifact{{Name: EvalMetrics, SHA256: pipeline.HashBytes([]byte(content)), Bytes: int64(len(content))}}}}}
	if err := m.WriteFile(filepath.Join(dir, pipeline.ManifestFile)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A table or manifest that is a FIFO or a link to /dev/zero is refused at
// once, never read without end; a table link out of the run is refused.
func TestExportRefusesHostileFiles(t *testing.T) {
	for name, plant := range map[string]func(t *testing.T, dir string) error{
		"table FIFO": func(t *testing.T, dir string) error {
			p := filepath.Join(dir, filepath.FromSlash(EvalMetrics))
			os.Remove(p)
			return syscall.Mkfifo(p, 0o644)
		},
		"table /dev/zero": func(t *testing.T, dir string) error {
			p := filepath.Join(dir, filepath.FromSlash(EvalMetrics))
			os.Remove(p)
			return os.Symlink("/dev/zero", p)
		},
		"manifest /dev/zero": func(t *testing.T, dir string) error {
			p := filepath.Join(dir, pipeline.ManifestFile)
			os.Remove(p)
			return os.Symlink("/dev/zero", p)
		},
		"manifest FIFO": func(t *testing.T, dir string) error {
			p := filepath.Join(dir, pipeline.ManifestFile)
			os.Remove(p)
			return syscall.Mkfifo(p, 0o644)
		},
	} {
		dir := exportRun(t, "PAR1 not really PAR1")
		if err := plant(t, dir); err != nil {
			t.Skip(name, err)
		}
		done := make(chan error, 1)
		go func() { // owned: the select below waits for it
			_, err := Export(context.Background(), dir, "parquet", filepath.Join(dir, "export"))
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("%s: %v, want a refusal of the file", name, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: export still reading after 20 s", name)
		}
	}
	dir := exportRun(t, "x")
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "t.md"), []byte("secret"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "tables"))
	if _, err := Export(context.Background(), dir, "md", filepath.Join(dir, "export")); !errors.Is(err, pipeline.ErrOutside) {
		t.Errorf("tables linked out of the run: %v", err)
	}
}
