package pipeline

import (
	"encoding/json"
	"fmt"
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
	Name    string  `json:"name"`
	Version string  `json:"version"`
	Key     string  `json:"key,omitempty"`
	Status  string  `json:"status"` // "ran", "cached", "failed", "skipped"
	Cached  bool    `json:"cached"`
	WallS   float64 `json:"wall_s"`
	// CPUS is the process's CPU time while the stage ran, shared among the
	// stages running at once by the workers each held: exact for a stage
	// that ran alone, an estimate otherwise. 0 where it cannot be read.
	CPUS float64 `json:"cpu_s,omitempty"`
	// RanWallS and RanCPUS are, for a cached stage, the wall and CPU time
	// of the run that made its outputs, carried from manifest to manifest
	// while the stage stays cached (0 where no manifest had them).
	RanWallS float64    `json:"ran_wall_s,omitempty"`
	RanCPUS  float64    `json:"ran_cpu_s,omitempty"`
	Inputs   []Artifact `json:"inputs"`
	Outputs  []Artifact `json:"outputs"`
}

// ranCost is the wall and CPU time of the run that made s's outputs: its
// own where it ran, the one it carries where it was cached.
func (s StageManifest) ranCost() (wallS, cpuS float64) {
	if s.Cached {
		return s.RanWallS, s.RanCPUS
	}
	return s.WallS, s.CPUS
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

// ReadManifest reads the manifest of run directory dir: a regular file of
// at most MaxRecordBytes that passes Validate.
func ReadManifest(dir string) (*Manifest, error) {
	p := filepath.Join(dir, ManifestFile)
	b, err := ReadRecord(p, 0)
	if err != nil {
		return nil, err
	}
	return ParseManifest(p, b)
}

// ParseManifest decodes and validates the manifest bytes b read from path
// (named in errors).
func ParseManifest(path string, b []byte) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &m, nil
}

// Validate checks what a reader of the manifest trusts: every stage is
// named once, and every artifact it lists names a file inside the run
// directory (external inputs aside) with a sha256 and sizes that can be
// real; no output is listed twice.
func (m *Manifest) Validate() error {
	switch m.Status {
	case "ok", "failed", "cancelled":
	default:
		return fmt.Errorf("status %q: not a run manifest (want ok, failed or cancelled)", m.Status)
	}
	stages := map[string]bool{}
	outputs := map[string]string{}
	for i, s := range m.Stages {
		if s.Name == "" || stages[s.Name] {
			return fmt.Errorf("stages[%d]: name %q empty or listed twice", i, s.Name)
		}
		stages[s.Name] = true
		for _, list := range []struct {
			what string
			arts []Artifact
		}{{"inputs", s.Inputs}, {"outputs", s.Outputs}} {
			for j, a := range list.arts {
				if err := a.validate(); err != nil {
					return fmt.Errorf("stages[%d] (%s): %s[%d]: %w", i, s.Name, list.what, j, err)
				}
				if list.what != "outputs" {
					continue
				}
				if a.External {
					return fmt.Errorf("stages[%d] (%s): outputs[%d] %q: an output cannot be external", i, s.Name, j, a.Name)
				}
				if prev, dup := outputs[a.Name]; dup {
					return fmt.Errorf("stages[%d] (%s): outputs[%d] %q is also an output of stage %s", i, s.Name, j, a.Name, prev)
				}
				outputs[a.Name] = s.Name
			}
		}
	}
	return nil
}

// validate checks one artifact entry of a manifest or record.
func (a Artifact) validate() error {
	if !a.External && (a.Name == "" || !filepath.IsLocal(filepath.FromSlash(a.Name)) || strings.ContainsRune(a.Name, 0)) {
		return fmt.Errorf("name %q is not a path inside the run directory", a.Name)
	}
	if !IsSHA256(a.SHA256) && !(a.SHA256 == "" && WallClock(a.Name)) {
		return fmt.Errorf("%s: sha256 %q is not 64 hex digits", a.Name, a.SHA256)
	}
	if a.Bytes < 0 || a.Rows < 0 {
		return fmt.Errorf("%s: negative bytes %d or rows %d", a.Name, a.Bytes, a.Rows)
	}
	return nil
}

// IsSHA256 reports whether s is a sha256 as schedlab writes it: 64
// lower-case hex digits.
func IsSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
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
