package pipeline_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/pipeline"
)

// FuzzManifest: whatever manifest.json holds, ParseManifest returns an
// error or a manifest whose every output names a file inside the run
// directory, once, and which reads back the same after writing.
func FuzzManifest(f *testing.F) {
	m := pipeline.Manifest{Status: "ok", ConfigHash: "c", Seed: 7, Config: map[string]any{"preset": "quick"}, Stages: []pipeline.StageManifest{
		{Name: "ingest", Status: "ran", Inputs: []pipeline.Artifact{{Name: "/data/trace.csv", SHA256: strings.Repeat("a", 64), Bytes: 9, External: true}},
			Outputs: []pipeline.Artifact{{Name: "ingest/jobs.parquet", SHA256: strings.Repeat("b", 64), Bytes: 3, Rows: 1}}},
		{Name: "eval", Status: "cached", Cached: true, Inputs: []pipeline.Artifact{{Name: "ingest/jobs.parquet", SHA256: strings.Repeat("b", 64), Bytes: 3}},
			Outputs: []pipeline.Artifact{{Name: "eval/timings.parquet", SHA256: strings.Repeat("c", 64)}}},
	}}
	b, _ := json.MarshalIndent(m, "", "  ")
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add([]byte(strings.Replace(string(b), "ingest/jobs.parquet", "../jobs.parquet", 1)))
	f.Add([]byte(`{"status":"ok","stages":[{"name":"a","outputs":[{"name":"x","sha256":"` + strings.Repeat("0", 64) + `"}]},{"name":"b","outputs":[{"name":"x","sha256":"` + strings.Repeat("0", 64) + `"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := pipeline.ParseManifest("manifest.json", data)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, s := range m.Stages {
			for _, o := range s.Outputs {
				if !filepath.IsLocal(filepath.FromSlash(o.Name)) || seen[o.Name] || o.Bytes < 0 {
					t.Fatalf("accepted output %+v (seen %v)", o, seen[o.Name])
				}
				seen[o.Name] = true
			}
		}
		again, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pipeline.ParseManifest("manifest.json", again); err != nil {
			t.Fatalf("a manifest accepted once is refused when written back: %v", err)
		}
	})
}
