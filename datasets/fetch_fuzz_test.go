package datasets

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// FuzzUnpack feeds arbitrary bytes to the tarball unpacker of datasets
// fetch, with one listed content so that the checksum path runs too. It
// must never panic and never write outside its directory: after any input
// the only thing beside the target directory is what was there before,
// and on success every file it returns is a regular file inside it.
func FuzzUnpack(f *testing.F) {
	f.Add(tarGz(f, [2]string{"d/", ""}, [2]string{"d/b.csv", "x,y\n1,2\n"}, [2]string{"a.csv", "1"}))
	f.Add(tarGz(f, [2]string{"../evil.csv", "x"}))
	f.Add(tarGz(f, [2]string{"@link", "/etc/passwd"}))
	f.Add(tarGz(f, [2]string{"a.csv", "1"}, [2]string{"./a.csv", "2"}))
	whole := tarGz(f, [2]string{"a.csv", "a fairly long body that the cut lands in"})
	f.Add(whole[:len(whole)/2])
	f.Add([]byte("not gzip at all"))
	f.Fuzz(func(t *testing.T, data []byte) {
		parent := t.TempDir()
		dir := filepath.Join(parent, "out")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		tb := Tarball{Name: "t.tar.gz", Contents: map[string]string{"a.csv": sum([]byte("1"))}}
		files, err := unpack(context.Background(), bytes.NewReader(data), dir, tb)
		ents, rerr := os.ReadDir(parent)
		if rerr != nil || len(ents) != 1 || ents[0].Name() != "out" {
			t.Fatalf("unpack wrote beside its directory: %v %v", ents, rerr)
		}
		if err != nil {
			return
		}
		for _, name := range files {
			if !filepath.IsLocal(name) {
				t.Fatalf("returned %q, outside the directory", name)
			}
			st, err := os.Lstat(filepath.Join(dir, name))
			if err != nil || !st.Mode().IsRegular() {
				t.Fatalf("%s: %v, mode %v", name, err, st)
			}
		}
		// Nothing but regular files and directories inside either.
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !d.Type().IsRegular() {
				t.Fatalf("%s: %v is not a regular file", p, d.Type())
			}
			return nil
		})
	})
}
