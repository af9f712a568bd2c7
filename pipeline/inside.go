package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutside is wrapped by LocalPath's error when a name would lead out of
// the directory a command owns.
var ErrOutside = errors.New("leads outside the directory")

// LocalPath returns root joined with rel (a slash-separated name) after
// checking that the result stays inside root whatever is on disk: rel is
// local (no "..", not absolute), and no component of it below root that
// exists is a symbolic link or anything but a directory, nor is the final
// component a symbolic link. So a rename to, a removal of or a write into
// the returned path touches nothing outside root, where a link planted in
// root (jobs → ../elsewhere) would otherwise lead. Components that do not
// exist yet are fine: MkdirAll makes real directories of them. root
// itself may be a link: the user named it.
func LocalPath(root, rel string) (string, error) {
	if rel == "" || !filepath.IsLocal(filepath.FromSlash(rel)) || strings.ContainsRune(rel, 0) {
		return "", fmt.Errorf("%q %w %s", rel, ErrOutside, root)
	}
	parts := strings.Split(filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel))), "/")
	p := root
	for i, part := range parts {
		p = filepath.Join(p, part)
		st, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return "", err
		}
		last := i == len(parts)-1
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			return "", fmt.Errorf("%s is a symbolic link, and %s's files must be its own: remove the link (rm %s) and run again: %w", p, root, p, ErrOutside)
		case !last && !st.IsDir():
			return "", fmt.Errorf("%s is a %s where a directory belongs: remove it and run again", p, kindOf(st.Mode()))
		}
	}
	return filepath.Join(root, filepath.FromSlash(rel)), nil
}
