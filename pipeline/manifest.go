package pipeline

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"
)

// Manifest describes one run: what went in, what came out, with which code
// and configuration, and how long each stage took. It is the only file of a
// run that holds wall-clock figures besides timings tables.
type Manifest struct {
	Status     string   `json:"status"` // "ok", "failed" or "cancelled"
	Error      string   `json:"error,omitempty"`
	Seed       uint64   `json:"seed"`
	ConfigHash string   `json:"config_hash"`
	Config     any      `json:"config"`
	Versions   Versions `json:"versions"`
	WallS      float64  `json:"wall_s"`
	// Date is when the manifest was written, the end of the run: UTC,
	// RFC 3339 to the second. It dates the run for `schedlab history`,
	// which must not use its own clock; manifests from before it existed
	// have none.
	Date   string          `json:"date,omitempty"`
	Stages []StageManifest `json:"stages"`
}

// Versions identifies the code that made a run.
type Versions struct {
	Module      string `json:"module"`
	Go          string `json:"go"`
	VCSRevision string `json:"vcs_revision,omitempty"`
	VCSModified bool   `json:"vcs_modified,omitempty"`
}

// StageManifest is one stage's entry in the manifest.
type StageManifest struct {
	Name    string     `json:"name"`
	Version string     `json:"version"`
	Key     string     `json:"key,omitempty"`
	Status  string     `json:"status"` // "ran", "cached", "failed", "skipped"
	Cached  bool       `json:"cached"`
	WallS   float64    `json:"wall_s"`
	Inputs  []Artifact `json:"inputs"`
	Outputs []Artifact `json:"outputs"`
}

// Artifact is a file (or a directory, for external inputs) with its hash.
type Artifact struct {
	Name     string `json:"name"`
	SHA256   string `json:"sha256"`
	Bytes    int64  `json:"bytes"`
	Rows     int64  `json:"rows,omitempty"`
	External bool   `json:"external,omitempty"`
}

// Revision is the VCS revision stamped at link time (the Makefile passes
// -ldflags "-X github.com/schedlab/schedlab/pipeline.Revision=$(git
// describe --always --dirty)"); BuildVersions uses it when Go's own VCS
// stamping recorded none (-buildvcs=false, a build outside the checkout).
// A "-dirty" suffix means uncommitted changes.
var Revision string

// Revision is the revision for people: the commit, " (modified)" when the
// build had uncommitted changes, or "unknown".
func (v Versions) Revision() string {
	if v.VCSModified && v.VCSRevision != "" {
		return v.VCSRevision + " (modified)"
	}
	return v.Describe()
}

// Describe is the revision as `git describe --always --dirty` spells it
// (and the Makefile stamps it): the commit, "-dirty" when the build had
// uncommitted changes, or "unknown". It names a revision in paths, such
// as the partitions of `schedlab history`.
func (v Versions) Describe() string {
	switch {
	case v.VCSRevision == "":
		return "unknown"
	case v.VCSModified:
		return v.VCSRevision + "-dirty"
	}
	return v.VCSRevision
}

// BuildVersions reads the running binary's build information.
func BuildVersions() Versions {
	v := buildInfoVersions()
	if v.VCSRevision == "" && Revision != "" {
		v.VCSRevision, v.VCSModified = strings.CutSuffix(Revision, "-dirty")
	}
	return v
}

func buildInfoVersions() Versions {
	v := Versions{Module: "(devel)", Go: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if bi.Main.Version != "" {
		v.Module = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.VCSRevision = s.Value
		case "vcs.modified":
			v.VCSModified = s.Value == "true"
		}
	}
	return v
}

// marshal stamps Date when the writer left it empty: every manifest is
// written through here, the runner's and eval's alike, so each run is
// dated by the clock of the process that ran it.
func (m *Manifest) marshal() ([]byte, error) {
	if m.Date == "" {
		m.Date = time.Now().UTC().Format(time.RFC3339)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	return append(b, '\n'), err
}

// ManifestFile is the name of a run directory's manifest.
const ManifestFile = "manifest.json"

// WriteFile writes the manifest to path atomically.
func (m *Manifest) WriteFile(path string) error {
	b, err := m.marshal()
	if err != nil {
		return fmt.Errorf("manifest %s: %w", path, err)
	}
	return WriteFileAtomic(path, b)
}

// ReadManifest reads the manifest of run directory dir.
func ReadManifest(dir string) (*Manifest, error) {
	p := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return &m, nil
}

// Artifacts is every output the manifest lists, by name.
func (m *Manifest) Artifacts() map[string]Artifact {
	arts := map[string]Artifact{}
	for _, s := range m.Stages {
		for _, o := range s.Outputs {
			arts[o.Name] = o
		}
	}
	return arts
}
