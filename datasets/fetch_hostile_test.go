package datasets

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/pipeline"
)

// A folder of the fetch's directory that is a link elsewhere is refused:
// the unpacked files do not land where it leads.
func TestFetchRefusesLinkedFolder(t *testing.T) {
	body := "x,y\n"
	tb := tarGz(t, [2]string{"sub/t.csv", body})
	srv := newFetchServer(t, map[string][]byte{"t.tar.gz": tb})
	dir, elsewhere := t.TempDir(), t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(dir, "sub")); err != nil {
		t.Fatal(err)
	}
	f := Fetch{Dir: dir, BaseURL: srv.URL + "/v2020/", Tarballs: []Tarball{{Name: "t.tar.gz", SHA256: sum(tb), Contents: map[string]string{"sub/t.csv": sum([]byte(body))}}}}
	if err := f.Run(context.Background()); !errors.Is(err, pipeline.ErrOutside) {
		t.Errorf("fetch through a linked folder: %v, want ErrOutside", err)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("the folder the link leads to now holds %d files", len(ents))
	}
}
