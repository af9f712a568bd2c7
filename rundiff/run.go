package rundiff

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/pipeline"
)

// ManifestFile is the run's manifest, relative to the run directory.
const ManifestFile = "manifest.json"

// ErrNotRun: a directory given as a run holds no manifest.json.
var ErrNotRun = errors.New("not a schedlab run directory (no manifest.json)")

// run is one run directory as the comparison sees it.
type run struct {
	dir      string
	manifest pipeline.Manifest
	config   json.RawMessage // the resolved configuration, as recorded
	// artifacts are the stage outputs by name, then the top-level files
	// the manifest does not list (the report), hashed from disk.
	artifacts map[string]pipeline.Artifact
	stages    map[string]pipeline.StageManifest
	listed    map[string]bool // the artifacts the manifest lists
}

// loadRun reads dir/manifest.json and hashes the top-level files it does
// not list.
func loadRun(dir string) (*run, error) {
	p := filepath.Join(dir, ManifestFile)
	b, err := pipeline.ReadRecord(p, 0)
	if errors.Is(err, fs.ErrNotExist) {
		if st, serr := os.Stat(dir); serr != nil || !st.IsDir() {
			return nil, fmt.Errorf("%s: no such run directory", dir)
		}
		return nil, fmt.Errorf("%s: %w", p, ErrNotRun)
	}
	if err != nil {
		return nil, err
	}
	r := &run{dir: dir, artifacts: map[string]pipeline.Artifact{}, stages: map[string]pipeline.StageManifest{}, listed: map[string]bool{}}
	var raw struct {
		Config json.RawMessage `json:"config"`
	}
	if err := decodeJSON(b, &r.manifest); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	r.config = raw.Config
	if r.manifest.Status == "" || r.manifest.ConfigHash == "" {
		return nil, fmt.Errorf("%s: not a run manifest (no status or config_hash)", p)
	}
	if err := r.manifest.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	for i, s := range r.manifest.Stages {
		if s.Name == "" {
			return nil, fmt.Errorf("%s: stages[%d] has no name", p, i)
		}
		r.stages[s.Name] = s
		for j, o := range s.Outputs {
			if o.Name == "" || o.SHA256 == "" {
				return nil, fmt.Errorf("%s: stages[%d] (%s): outputs[%d] lacks a name or sha256", p, i, s.Name, j)
			}
			r.artifacts[o.Name] = o
			r.listed[o.Name] = true
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		name := e.Name()
		if !e.Type().IsRegular() || name == ManifestFile {
			continue
		}
		if _, listed := r.artifacts[name]; listed {
			continue
		}
		sum, n, err := pipeline.HashFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		r.artifacts[name] = pipeline.Artifact{Name: name, SHA256: sum, Bytes: n}
	}
	return r, nil
}

// decodeJSON decodes one JSON value and names the line of a syntax error.
func decodeJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("line %d: %w", 1+bytes.Count(b[:se.Offset], []byte("\n")), err)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return fmt.Errorf("line %d: the file ends inside a JSON value (truncated?)", 1+bytes.Count(bytes.TrimRight(b, " \t\r\n"), []byte("\n")))
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("line %d: field %s: %w", 1+bytes.Count(b[:te.Offset], []byte("\n")), te.Field, err)
		}
		return err
	}
	return nil
}

// path returns the file system path of an artifact, after checking that
// the file still has the hash and size the manifest records and lies
// inside the run directory.
func (r *run) path(name string) (string, error) {
	p := filepath.Join(r.dir, filepath.FromSlash(name))
	a, ok := r.artifacts[name]
	if !ok {
		return "", fmt.Errorf("%s: not listed in %s", p, filepath.Join(r.dir, ManifestFile))
	}
	if _, err := pipeline.LocalPath(r.dir, name); err != nil {
		return "", fmt.Errorf("%s (listed in %s): %w", p, filepath.Join(r.dir, ManifestFile), err)
	}
	sum, size, err := pipeline.HashFile(p)
	if err != nil {
		return "", fmt.Errorf("%s (listed in %s): %w", p, filepath.Join(r.dir, ManifestFile), err)
	}
	if sum != a.SHA256 || size != a.Bytes {
		return "", fmt.Errorf("%s: sha256 %s (%d bytes), but %s records %s (%d bytes): the run directory changed after its run",
			p, short(sum), size, filepath.Join(r.dir, ManifestFile), short(a.SHA256), a.Bytes)
	}
	return p, nil
}

// verify checks every artifact the manifest lists against the file on
// disk (path), so that a comparison of two manifests is a comparison of
// the files they describe.
func (r *run) verify() error {
	for _, name := range slices.Sorted(maps.Keys(r.artifacts)) {
		if _, listed := r.listed[name]; !listed {
			continue // hashed from disk by loadRun
		}
		if _, err := r.path(name); err != nil {
			return err
		}
	}
	return nil
}

// experiments lists the experiments whose metrics the run wrote, sorted.
func (r *run) experiments() []string {
	var ids []string
	for name := range r.artifacts {
		if dir, ok := strings.CutSuffix(name, "/metrics.parquet"); ok && path.Dir(dir) == "eval" {
			ids = append(ids, path.Base(dir))
		}
	}
	slices.Sort(ids)
	return ids
}

// WallClock says whether an artifact holds wall-clock figures and so is
// expected to differ between any two runs: the manifest and, by the
// project's convention (DESIGN.md §2), every file whose name carries
// "timings" (eval/timings.parquet, report-timings.md, ...).
func WallClock(name string) bool {
	return name == ManifestFile || pipeline.WallClock(name)
}

func short(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	return sum
}

// Run is a run directory opened for reading as diff reads it, for other
// readers of finished runs (`schedlab history`): its manifest checked on
// opening, and each artifact handed out only after its sha256 matches the
// manifest's.
type Run struct{ r *run }

// OpenRun reads dir/manifest.json; a directory without one is ErrNotRun.
func OpenRun(dir string) (*Run, error) {
	r, err := loadRun(dir)
	if err != nil {
		return nil, err
	}
	return &Run{r}, nil
}

// Dir is the run directory.
func (r *Run) Dir() string { return r.r.dir }

// Manifest is the run's manifest as read.
func (r *Run) Manifest() *pipeline.Manifest { return &r.r.manifest }

// Config is the resolved configuration the manifest records, as JSON.
func (r *Run) Config() json.RawMessage { return r.r.config }

// Path returns the file system path of the artifact name (slash-separated,
// relative to the run directory), after checking that the manifest lists
// it and that the file still has the recorded sha256.
func (r *Run) Path(name string) (string, error) { return r.r.path(name) }
