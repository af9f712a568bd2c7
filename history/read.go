package history

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/pipeline"
)

// Record is a row of the history with its partition keys.
type Record struct {
	Preset   string `json:"preset"`
	Revision string `json:"revision"`
	Row
}

// Key is the record's run.
func (r *Record) Key() Key {
	return Key{Preset: r.Preset, Revision: r.Revision, ConfigHash: r.ConfigHash, Date: r.Date}
}

// Read reads every file of the history in dir
// (dir/preset=*/revision=*/metrics.parquet), ordered by preset, then as
// each file orders its rows, revisions in name order. A partition that is
// a symbolic link is refused (an error wrapping pipeline.ErrOutside).
func Read(dir string) ([]Record, error) {
	files, err := filepath.Glob(filepath.Join(dir, "preset=*", "revision=*", FileName))
	if err != nil {
		return nil, err
	}
	var out []Record
	for _, f := range files {
		// Every file read is the history's own: a partition folder or
		// file that is a link elsewhere is refused, as Add refuses it.
		rel, err := filepath.Rel(dir, f)
		if err != nil {
			return nil, err
		}
		if _, err := pipeline.LocalPath(dir, filepath.ToSlash(rel)); err != nil {
			return nil, fmt.Errorf("history %s: %w", dir, err)
		}
		rev := filepath.Dir(f)
		preset, err := partitionValue(filepath.Dir(rev), "preset")
		if err != nil {
			return nil, err
		}
		revision, err := partitionValue(rev, "revision")
		if err != nil {
			return nil, err
		}
		rows, err := readFile(f)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			out = append(out, Record{Preset: preset, Revision: revision, Row: r})
		}
	}
	slices.SortStableFunc(out, func(a, b Record) int { return cmp.Compare(a.Preset, b.Preset) })
	return out, nil
}

// partitionValue reads the value of a key=value directory.
func partitionValue(dir, key string) (string, error) {
	v, ok := strings.CutPrefix(filepath.Base(dir), key+"=")
	if !ok {
		return "", fmt.Errorf("%s: not a %s= partition", dir, key)
	}
	s, err := UnescapeValue(v)
	if err != nil {
		return "", fmt.Errorf("%s: %w", dir, err)
	}
	return s, nil
}

// compareKeys orders runs as the plots do: by date, then revision, then
// configuration.
func compareKeys(a, b Key) int {
	return cmp.Or(a.Date.Compare(b.Date), cmp.Compare(a.Revision, b.Revision),
		cmp.Compare(a.ConfigHash, b.ConfigHash), cmp.Compare(a.Preset, b.Preset))
}
