package datasets

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzDatasetRecord: whatever _dataset.json holds, ParseDatasetRecord
// returns an error or a record whose every file lies inside the dataset,
// is listed once, and whose counts agree; written back, it reads the same.
func FuzzDatasetRecord(f *testing.F) {
	sum := strings.Repeat("ab", 32)
	ds := Dataset{Layout: DatasetLayout, Source: SourcePAISim, Table: "jobs",
		Total: Accounting{Read: 3, Accepted: 2, Quarantined: 1}, CrossDuplicates: 1}
	for _, p := range []struct {
		name string
		rows Accounting
		dup  int64
	}{{"a", Accounting{Read: 2, Accepted: 2}, 0}, {"b", Accounting{Read: 1, Quarantined: 1}, 1}} {
		ds.Partitions = append(ds.Partitions, Partition{Name: p.name, Rows: p.rows, CrossDuplicates: p.dup,
			Input: InputRecord{Path: "/in/" + p.name + ".csv", Bytes: 10, SHA256: sum},
			Files: []ManifestTable{
				{Table: "jobs", File: "jobs/" + p.name + ".parquet", Rows: p.rows.Accepted, SHA256: sum, Bytes: 5},
				{Table: "quarantine", File: "quarantine/" + p.name + ".parquet", Rows: p.rows.Quarantined, SHA256: sum, Bytes: 5}}})
	}
	b, _ := json.MarshalIndent(ds, "", "  ")
	if _, err := ParseDatasetRecord(DatasetFile, b); err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(b[:len(b)/3])
	f.Add([]byte(strings.Replace(string(b), "jobs/a.parquet", "../outside.parquet", 1)))
	f.Add([]byte(strings.Replace(string(b), `"name": "b"`, `"name": "a"`, 1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		ds, err := ParseDatasetRecord(DatasetFile, data)
		if err != nil {
			return
		}
		files := map[string]bool{}
		var total Accounting
		for _, p := range ds.Partitions {
			total.Add(p.Rows)
			for _, fl := range p.Files {
				if !filepath.IsLocal(filepath.FromSlash(fl.File)) || files[fl.File] {
					t.Fatalf("accepted file %q (listed before: %v)", fl.File, files[fl.File])
				}
				files[fl.File] = true
			}
		}
		if total != ds.Total {
			t.Fatalf("accepted a total %+v of partitions summing to %+v", ds.Total, total)
		}
		again, err := json.Marshal(ds)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseDatasetRecord(DatasetFile, again); err != nil {
			t.Fatalf("a record accepted once is refused when written back: %v", err)
		}
	})
}
