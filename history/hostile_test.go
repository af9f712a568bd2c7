package history_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/schedlab/schedlab/history"
	"github.com/schedlab/schedlab/pipeline"
)

// A partition folder of the history that is a link elsewhere is refused:
// add neither writes nor truncates there.
func TestAddRefusesLinkedPartition(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	victim := filepath.Join(elsewhere, history.FileName)
	os.WriteFile(victim, []byte("someone's"), 0o644)
	os.MkdirAll(filepath.Join(dir, "preset=quick"), 0o755)
	if err := os.Symlink(elsewhere, filepath.Join(dir, "preset=quick", "revision=v1.2%2Fx%3Dy-dirty")); err != nil {
		t.Fatal(err)
	}
	rd := t.TempDir()
	runA.write(t, rd)
	if _, err := history.Add(context.Background(), rd, dir, history.Options{}); !errors.Is(err, pipeline.ErrOutside) {
		t.Errorf("add through a linked partition: %v, want ErrOutside", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "someone's" {
		t.Errorf("the file the link leads to now holds %d bytes", len(b))
	}
}

// Reading a history refuses a partition folder or file that is a link
// elsewhere: plot reads only the history's own files.
func TestReadRefusesLinkedPartition(t *testing.T) {
	for _, link := range []string{"folder", "file"} {
		dir, elsewhere := t.TempDir(), t.TempDir()
		rd := t.TempDir()
		runA.write(t, rd)
		if _, err := history.Add(context.Background(), rd, elsewhere, history.Options{}); err != nil {
			t.Fatal(err)
		}
		parts, _ := filepath.Glob(filepath.Join(elsewhere, "preset=*", "revision=*"))
		if len(parts) != 1 {
			t.Fatalf("history written elsewhere has partitions %v", parts)
		}
		rel, _ := filepath.Rel(elsewhere, parts[0])
		target, linkAt := parts[0], filepath.Join(dir, rel)
		if link == "file" {
			target, linkAt = filepath.Join(target, history.FileName), filepath.Join(linkAt, history.FileName)
		}
		os.MkdirAll(filepath.Dir(linkAt), 0o755)
		if err := os.Symlink(target, linkAt); err != nil {
			t.Fatal(err)
		}
		if recs, err := history.Read(dir); !errors.Is(err, pipeline.ErrOutside) {
			t.Errorf("a linked partition %s: %d records, %v; want ErrOutside", link, len(recs), err)
		}
	}
}

// A run whose manifest is a FIFO or a link to /dev/zero is refused at
// once; so is a history partition that is a FIFO.
func TestAddRefusesHostileManifest(t *testing.T) {
	for name, plant := range map[string]func(p string) error{
		"FIFO":      func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"/dev/zero": func(p string) error { return os.Symlink("/dev/zero", p) },
	} {
		rd := t.TempDir()
		runA.write(t, rd)
		p := filepath.Join(rd, pipeline.ManifestFile)
		os.Remove(p)
		if err := plant(p); err != nil {
			t.Skip(err)
		}
		if _, err := history.Add(context.Background(), rd, t.TempDir(), history.Options{}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("manifest %s: %v", name, err)
		}
	}
	dir := t.TempDir()
	part := filepath.Join(dir, "preset=quick", "revision=x")
	os.MkdirAll(part, 0o755)
	if err := syscall.Mkfifo(filepath.Join(part, history.FileName), 0o644); err != nil {
		t.Skip(err)
	}
	if _, err := history.Read(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a FIFO partition: %v", err)
	}
}
