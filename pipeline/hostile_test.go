package pipeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/schedlab/schedlab/pipeline"
)

// refusesLock wants LockDir(dir, op) refused, with an error that says
// want, where what (a FIFO, a link) stands in the lock file's place.
func refusesLock(t *testing.T, what, dir, op, want string) {
	t.Helper()
	l, err := pipeline.LockDir(dir, op)
	if err == nil {
		l.Unlock()
		t.Errorf("%s was taken as the lock", what)
	} else if !strings.Contains(err.Error(), want) {
		t.Errorf("%s: refusal %q does not say %q", what, err, want)
	}
}

// A lock file that is a symbolic link, dangling or not, is refused: the
// lock's text never reaches the file it names, outside the directory.
func TestLockDirRefusesSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges")
	}
	for _, dangling := range []bool{false, true} {
		dir, outside := t.TempDir(), t.TempDir()
		victim := filepath.Join(outside, "victim.txt")
		if !dangling {
			os.WriteFile(victim, []byte("precious\n"), 0o644)
		}
		if err := os.Symlink(victim, filepath.Join(dir, pipeline.LockFile)); err != nil {
			t.Fatal(err)
		}
		what := "a symbolic link"
		if dangling {
			what = "a dangling symbolic link"
		}
		refusesLock(t, what, dir, "ingest", "symbolic link")
		b, err := os.ReadFile(victim)
		switch {
		case dangling && !errors.Is(err, os.ErrNotExist):
			t.Errorf("the dangling link's target was created: %q, %v", b, err)
		case !dangling && string(b) != "precious\n":
			t.Errorf("the link's target now holds %q", b)
		}
	}
}

// A FIFO in the lock's place is refused at once, not waited on.
func TestLockDirRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, pipeline.LockFile), 0o644); err != nil {
		t.Skip("no mkfifo:", err)
	}
	refusesLock(t, "a FIFO", dir, "run", "FIFO")
}

// ReadRecord reads only regular files, and no more than its bound.
func TestReadRecordRefusesHostileFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	big := filepath.Join(dir, "big")
	zero := filepath.Join(dir, "zero")
	os.WriteFile(big, make([]byte, 1001), 0o644)
	os.Symlink("/dev/zero", zero)
	cases := map[string]string{big: "more than"}
	if syscall.Mkfifo(fifo, 0o644) == nil {
		cases[fifo] = "FIFO"
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases[zero] = "character device"
	}
	for p, want := range cases {
		if _, err := pipeline.ReadRecord(p, 1000); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadRecord(%s) = %v, want an error saying %q", filepath.Base(p), err, want)
		}
		if _, _, err := pipeline.HashFile(p); p != big && err == nil {
			t.Errorf("HashFile(%s) succeeded", filepath.Base(p))
		}
	}
	if b, err := pipeline.ReadRecord(big, 1001); err != nil || len(b) != 1001 {
		t.Errorf("ReadRecord at its bound: %d bytes, %v", len(b), err)
	}
}

// The manifest is read bounded and validated: a padded one, one listing
// an output twice or one outside the run directory, or a bad hash, is
// refused.
func TestReadManifestValidates(t *testing.T) {
	good := pipeline.Manifest{Status: "ok", ConfigHash: "c", Stages: []pipeline.StageManifest{
		{Name: "a", Status: "ran", Outputs: []pipeline.Artifact{{Name: "a/x.txt", SHA256: strings.Repeat("ab", 32), Bytes: 3}}},
		{Name: "b", Status: "ran", Inputs: []pipeline.Artifact{{Name: "/raw/trace.csv", SHA256: strings.Repeat("0", 64), External: true}}},
	}}
	for name, edit := range map[string]func(m *pipeline.Manifest){
		"good":         func(m *pipeline.Manifest) {},
		"twice":        func(m *pipeline.Manifest) { m.Stages[1].Outputs = m.Stages[0].Outputs },
		"outside":      func(m *pipeline.Manifest) { m.Stages[0].Outputs[0].Name = "../x.txt" },
		"absolute":     func(m *pipeline.Manifest) { m.Stages[0].Outputs[0].Name = "/etc/passwd" },
		"bad hash":     func(m *pipeline.Manifest) { m.Stages[0].Outputs[0].SHA256 = "fff" },
		"stage twice":  func(m *pipeline.Manifest) { m.Stages[1].Name = "a" },
		"no status":    func(m *pipeline.Manifest) { m.Status = "" },
		"negative":     func(m *pipeline.Manifest) { m.Stages[0].Outputs[0].Bytes = -1 },
		"external out": func(m *pipeline.Manifest) { m.Stages[0].Outputs[0].External = true },
	} {
		dir := t.TempDir()
		m := good
		m.Stages = []pipeline.StageManifest{good.Stages[0], good.Stages[1]}
		m.Stages[0].Outputs = []pipeline.Artifact{good.Stages[0].Outputs[0]}
		edit(&m)
		if err := m.WriteFile(filepath.Join(dir, pipeline.ManifestFile)); err != nil {
			t.Fatal(err)
		}
		_, err := pipeline.ReadManifest(dir)
		if (err == nil) != (name == "good") {
			t.Errorf("%s: ReadManifest: %v", name, err)
		}
	}
	dir := t.TempDir()
	b, _ := json.Marshal(good)
	padded := append(b, make([]byte, pipeline.MaxRecordBytes)...)
	for i := len(b); i < len(padded); i++ {
		padded[i] = ' '
	}
	os.WriteFile(filepath.Join(dir, pipeline.ManifestFile), padded, 0o644)
	if _, err := pipeline.ReadManifest(dir); err == nil {
		t.Error("a manifest padded past MaxRecordBytes was read")
	}
}

// LocalPath refuses names that lead out of the root, by ".." or through
// a symbolic link planted inside it.
func TestLocalPath(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	os.Symlink(outside, filepath.Join(root, "jobs"))
	os.Symlink(filepath.Join(outside, "f"), filepath.Join(root, "f"))
	os.Mkdir(filepath.Join(root, "real"), 0o755)
	os.WriteFile(filepath.Join(root, "file"), nil, 0o644)
	for rel, ok := range map[string]bool{
		"real/x.parquet": true, "new/deeper/x": true, "x": true, "file": true,
		"jobs/x.parquet": false, "f": false, "../x": false, "/abs": false, "": false,
		"file/x": false, "real/../../x": false,
	} {
		if _, err := pipeline.LocalPath(root, rel); (err == nil) != ok {
			t.Errorf("LocalPath(%q): %v, want ok %v", rel, err, ok)
		}
	}
}

// A symbolic link planted in a run directory (an output's folder, the
// state directory) leads no write or removal outside it.
func TestRunnerStaysInsideRunDir(t *testing.T) {
	for _, link := range []string{"art", ".schedlab", ".schedlab/staging"} {
		dir, outside := t.TempDir(), t.TempDir()
		os.WriteFile(filepath.Join(outside, "keep"), []byte("x"), 0o644)
		os.MkdirAll(filepath.Dir(filepath.Join(dir, link)), 0o755)
		if err := os.Symlink(outside, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
		_, err := (&pipeline.Runner{Dir: dir}).Run(context.Background(), chain(nil, nil))
		if !errors.Is(err, pipeline.ErrOutside) {
			t.Errorf("%s linked outside: run %v, want ErrOutside", link, err)
		}
		ents, _ := os.ReadDir(outside)
		if len(ents) != 1 || ents[0].Name() != "keep" {
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			t.Errorf("%s linked outside: the outside directory now holds %v", link, names)
		}
	}
}

// CommitStaged moves nothing through a link in the destination.
func TestCommitStagedRefusesLinkedFolder(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	os.Symlink(outside, filepath.Join(dir, "a"))
	s, _ := pipeline.MkdirScratch(dir, "test")
	os.MkdirAll(filepath.Join(s, "a"), 0o755)
	os.WriteFile(filepath.Join(s, "a", "x.txt"), []byte("x"), 0o644)
	if err := pipeline.CommitStaged(s, dir, []string{"a/x.txt"}, ""); !errors.Is(err, pipeline.ErrOutside) {
		t.Errorf("commit through a link: %v, want ErrOutside", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "x.txt")); err == nil {
		t.Error("the commit wrote through the link")
	}
}

// A lock file that is a hard link to a file outside the directory is
// refused, and the outside file keeps its bytes.
func TestLockDirRefusesHardLink(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, "victim.txt")
	os.WriteFile(victim, []byte("precious\n"), 0o644)
	if err := os.Link(victim, filepath.Join(dir, pipeline.LockFile)); err != nil {
		t.Skip("no hard links:", err)
	}
	refusesLock(t, "a hard link", dir, "ingest", "links")
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the linked file now holds %q", b)
	}
}

// CreateAtomic, the one function that opens outputs, refuses a name that
// holds an input of the running command (by any name), a hard-linked
// file, a symbolic link or a device, and replaces a plain file.
func TestCreateAtomicRefusesWhatOutputsMustNotReplace(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	in := filepath.Join(dir, "in.json")
	os.WriteFile(in, []byte("input\n"), 0o644)
	linked := filepath.Join(dir, "linked")
	os.WriteFile(filepath.Join(outside, "other"), []byte("other\n"), 0o644)
	os.Link(filepath.Join(outside, "other"), linked)
	sym := filepath.Join(dir, "sym")
	os.Symlink(filepath.Join(outside, "other"), sym)
	viaLink := filepath.Join(dir, "via")
	os.Symlink(dir, viaLink)
	plain := filepath.Join(dir, "plain")
	os.WriteFile(plain, []byte("old\n"), 0o644)

	release := pipeline.ProtectInputs(in)
	for path, want := range map[string]string{
		in:                                "inputs",
		filepath.Join(viaLink, "in.json"): "inputs",
		linked:                            "links",
		sym:                               "symbolic link",
		"/dev/null":                       "device",
		dir:                               "directory",
	} {
		err := pipeline.WriteFileAtomic(path, []byte("new\n"))
		if !errors.Is(err, pipeline.ErrNotOutput) || !strings.Contains(err.Error(), want) {
			t.Errorf("write %s: %v, want ErrNotOutput saying %q", path, err, want)
		}
	}
	if err := pipeline.WriteFileAtomic(plain, []byte("new\n")); err != nil {
		t.Errorf("replace a plain file: %v", err)
	}
	release()
	if err := pipeline.WriteFileAtomic(in, []byte("new\n")); err != nil {
		t.Errorf("after release, the former input: %v", err)
	}
	for _, p := range []string{filepath.Join(outside, "other")} {
		if b, _ := os.ReadFile(p); string(b) != "other\n" {
			t.Errorf("%s now holds %q", p, b)
		}
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if pipeline.IsScratch(e.Name()) {
			t.Errorf("a refused write left %s", e.Name())
		}
	}
}

// Beneath a locked directory, an output's folder swapped for a link to a
// folder outside, after the folder was made and before the file is
// written, leads nothing outside: the write walks down from the lock's
// handle and refuses the link.
func TestCreateAtomicBeneathLockRefusesSwappedFolder(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	l, err := pipeline.LockDir(dir, "run")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	tables := filepath.Join(dir, "tables")
	if err := pipeline.WriteFileAtomic(filepath.Join(tables, "a.md"), []byte("a\n")); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(tables)
	if err := os.Symlink(outside, tables); err != nil {
		t.Fatal(err)
	}
	if err := pipeline.WriteFileAtomic(filepath.Join(tables, "b.md"), []byte("b\n")); !errors.Is(err, pipeline.ErrOutside) {
		t.Errorf("write through the swapped folder: %v, want ErrOutside", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("the outside folder now holds %d entries", len(ents))
	}
	// The same write is fine again once the lock is gone and the link
	// replaced by the user's own folder.
	l.Unlock()
	os.Remove(tables)
	if err := pipeline.WriteFileAtomic(filepath.Join(tables, "b.md"), []byte("b\n")); err != nil {
		t.Error(err)
	}
}

// OpenInput, the open of every side input, refuses a FIFO before the open
// can wait, a device such as /dev/zero, a file over its bound and a line
// longer than MaxInputLine, each naming the file (and the line).
func TestOpenInputBounds(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	long := filepath.Join(dir, "long.csv")
	os.WriteFile(long, append(append([]byte("a,b\n1,2\n"), bytes.Repeat([]byte("x"), pipeline.MaxInputLine+1)...), '\n'), 0o644)
	fine := filepath.Join(dir, "fine.csv")
	os.WriteFile(fine, []byte("a,b\n1,2\n"), 0o644)
	cases := map[string]string{long: "long.csv:3: a line longer"}
	if syscall.Mkfifo(fifo, 0o644) == nil {
		cases[fifo] = "FIFO"
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases["/dev/zero"] = "character device"
	}
	for p, want := range cases {
		_, err := pipeline.ReadInput(p, 0)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadInput(%s) = %v, want an error saying %q", filepath.Base(p), err, want)
		}
	}
	if _, err := pipeline.ReadInput(fine, 5); err == nil || !strings.Contains(err.Error(), "more than the 5") {
		t.Errorf("over its bound: %v", err)
	}
	if b, err := pipeline.ReadInput(fine, 8); err != nil || string(b) != "a,b\n1,2\n" {
		t.Errorf("at its bound: %q, %v", b, err)
	}
}

// A same-size edit whose writer restores the modification time is a new
// version to SameVersion (its change time moved), as is any other edit;
// two stats of an untouched file are one version.
func TestSameVersionSeesRestoredMtime(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("change times are read on Linux")
	}
	p := filepath.Join(t.TempDir(), "part.csv")
	os.WriteFile(p, []byte("1,a\n2,b\n"), 0o644)
	a, _ := os.Stat(p)
	again, _ := os.Stat(p)
	if !pipeline.SameVersion(a, again) {
		t.Fatal("an untouched file is two versions")
	}
	time.Sleep(50 * time.Millisecond) // past the clock's tick for file times
	os.WriteFile(p, []byte("1,a\n2,c\n"), 0o644)
	if err := os.Chtimes(p, a.ModTime(), a.ModTime()); err != nil {
		t.Fatal(err)
	}
	b, _ := os.Stat(p)
	if b.Size() != a.Size() || !b.ModTime().Equal(a.ModTime()) {
		t.Fatal("the edit did not keep size and modification time")
	}
	if pipeline.SameVersion(a, b) {
		t.Error("a same-size edit with its modification time restored is the same version")
	}
}

// A file a run reads from outside its stages' artifacts (a preset's
// trace) is protected like a command-line input: a stage whose output
// would replace it (here by the same path, in the run directory) fails
// the run, and the file keeps its bytes (issue 50).
func TestRunnerKeepsExternalInputs(t *testing.T) {
	for _, asDir := range []bool{false, true} {
		dir := t.TempDir()
		trace := filepath.Join(dir, "trace.csv")
		if err := os.WriteFile(trace, []byte("the trace\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		in := trace
		if asDir { // a models directory: every file beneath it
			in = dir
		}
		stages := []pipeline.Stage{
			&pipeline.Func{StageName: "read", StageVersion: "1", In: []string{in}, Out: []string{"a.txt"},
				Fn: func(ctx context.Context, env *pipeline.Env) error {
					return os.WriteFile(env.Output("a.txt"), []byte("a"), 0o644)
				}},
			&pipeline.Func{StageName: "clobber", StageVersion: "1", In: []string{"a.txt"}, Out: []string{"trace.csv"},
				Fn: func(ctx context.Context, env *pipeline.Env) error {
					return os.WriteFile(env.Output("trace.csv"), []byte("replaced"), 0o644)
				}},
		}
		if _, err := (&pipeline.Runner{Dir: dir}).Run(context.Background(), stages); err == nil {
			t.Errorf("input as a directory %v: the run replaced its own input and exited 0", asDir)
		} else if !strings.Contains(err.Error(), "input") {
			t.Errorf("input as a directory %v: %v, want the refusal to say an input is in the way", asDir, err)
		}
		if b, _ := os.ReadFile(trace); string(b) != "the trace\n" {
			t.Errorf("input as a directory %v: the trace now holds %q", asDir, b)
		}
	}
}
