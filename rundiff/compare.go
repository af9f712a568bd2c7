package rundiff

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/pipeline"
)

// Thresholds decide what counts as a significant difference.
type Thresholds struct {
	// Alpha is the family-wise significance level: p-values, adjusted over
	// all the tests of the comparison (Holm), must be below it.
	Alpha float64
	// MinDelta is the smallest relative difference |B−A|/|A| that counts
	// (0.01 is 1 %), so that a real but negligible change passes.
	MinDelta float64
}

// DefaultThresholds are those of `schedlab diff` without flags.
func DefaultThresholds() Thresholds { return Thresholds{Alpha: 0.01, MinDelta: 0.01} }

// Validate names a value out of range.
func (t Thresholds) Validate() error {
	var errs []error
	if !(t.Alpha > 0 && t.Alpha < 1) {
		errs = append(errs, fmt.Errorf("alpha: must be in (0, 1), got %v", t.Alpha))
	}
	if !(t.MinDelta >= 0) || math.IsInf(t.MinDelta, 0) {
		errs = append(errs, fmt.Errorf("min-delta: must be a finite value ≥ 0, got %v", t.MinDelta))
	}
	return errors.Join(errs...)
}

// Options parameterise Compare.
type Options struct {
	Thresholds Thresholds
	// Bytes makes any difference of an artifact outside the wall-clock
	// ones significant, for a job that expects byte-identical runs.
	Bytes bool
	// AllowUntested stops a difference that cannot be tested (a single
	// sample: one seed a side and different jobs) from counting. By
	// default a per-job metric of such a cell that moves by MinDelta or
	// more counts as a difference, since noise cannot be ruled out and
	// "no difference" would claim what was not shown.
	AllowUntested bool
	// StageConfigs, when set, returns each stage's own configuration (the
	// part of the run's configuration that enters its cache key) by stage
	// name, from a manifest's recorded configuration; Compare then names
	// the keys that explain a stage's change. An error is reported as a
	// note, not a failure: a configuration from another revision may not
	// build with this one.
	StageConfigs func(config json.RawMessage) (map[string]json.RawMessage, error)
}

// RunInfo identifies one side of the comparison.
type RunInfo struct {
	Dir, Status, Revision, Go, Preset string
	Seed                              uint64
	ConfigHash                        string
}

// ArtifactChange is an artifact whose sha256 differs, or that one run
// lacks (nil).
type ArtifactChange struct {
	Name string
	A, B *pipeline.Artifact
}

// Cause is one reason a stage's outputs may differ.
type Cause string

const (
	CauseOnlyA   Cause = "only in A"
	CauseOnlyB   Cause = "only in B"
	CauseStatus  Cause = "status"        // ran in one run, failed or skipped in the other
	CauseVersion Cause = "stage version" // the stage's Version was bumped
	CauseConfig  Cause = "configuration" // the stage's own configuration differs
	CauseInputs  Cause = "inputs"        // an input artifact differs
	CauseSeed    Cause = "run seed"      // the runs' seeds differ (part of every cache key)
	// CauseCode: same cache key and seed but different outputs, built
	// from different (or unknown, or modified) revisions: the code changed
	// what the stage writes without bumping its version.
	CauseCode Cause = "code change"
	// CauseNondeterminism: the same, from the same clean revision.
	CauseNondeterminism Cause = "nondeterminism"
	// CauseUnexplained: the same, where a run's revision is unknown, so
	// that code change and nondeterminism cannot be told apart.
	CauseUnexplained Cause = "code change or nondeterminism"
	// CauseKeyCode: the cache keys differ while the stage's version, its
	// configuration (rebuilt and compared key by key), inputs and seed are
	// the same, between two different revisions: the code changed how the
	// key is made (what enters it), not anything the stage reads.
	CauseKeyCode Cause = "cache key (code change)"
)

// StageChange is a stage whose cache key or outputs differ.
type StageChange struct {
	Name   string
	Causes []Cause
	// ConfigKeys are the stage's own configuration keys that differ, when
	// Options.StageConfigs could tell.
	ConfigKeys []KeyChange
	// Inputs and Outputs name the artifacts that differ; wall-clock
	// outputs are left out.
	Inputs, Outputs []string
}

// Unexplained says whether the stage wrote different outputs from the
// same configuration, inputs and seed: the case worth a look.
func (s StageChange) Unexplained() bool {
	return slices.ContainsFunc(s.Causes, func(c Cause) bool {
		return c == CauseCode || c == CauseNondeterminism || c == CauseUnexplained
	})
}

// Diff is the comparison of run A with run B; deltas are B − A.
type Diff struct {
	A, B          RunInfo
	Thresholds    Thresholds
	Bytes         bool
	AllowUntested bool

	// Config lists the configuration keys that differ; SameConfigHash
	// says the keys that can change an output are equal (then Config
	// holds only keys such as out or workers).
	Config         []KeyChange
	SameConfigHash bool

	Stages          []StageChange
	StagesUnchanged int

	// Artifacts differ (outside wall clock); ArtifactsSame are identical.
	Artifacts     []ArtifactChange
	ArtifactsSame int
	// WallClock lists every wall-clock artifact of either run with both
	// hashes: they are expected to differ.
	WallClock []ArtifactChange

	Cells []CellDiff
	// Tests is the number of tests Holm's adjustment ran over.
	Tests int
	Notes []string
}

// Compare reads the run directories a and b and compares them.
func Compare(ctx context.Context, a, b string, opt Options) (*Diff, error) {
	if err := opt.Thresholds.Validate(); err != nil {
		return nil, err
	}
	ra, err := loadRun(a)
	if err != nil {
		return nil, err
	}
	rb, err := loadRun(b)
	if err != nil {
		return nil, err
	}
	for _, r := range []*run{ra, rb} {
		if err := r.verify(); err != nil {
			return nil, err
		}
	}
	d := &Diff{A: info(ra), B: info(rb), Thresholds: opt.Thresholds, Bytes: opt.Bytes, AllowUntested: opt.AllowUntested}
	for _, r := range []*run{ra, rb} {
		if r.manifest.Status != "ok" {
			d.Notes = append(d.Notes, fmt.Sprintf("run %s has status %q (%s): only what it finished is compared", r.dir, r.manifest.Status, r.manifest.Error))
		}
	}
	if err := d.compareConfig(ra, rb); err != nil {
		return nil, err
	}
	d.compareArtifacts(ra, rb)
	d.compareStages(ra, rb, opt.StageConfigs)
	if err := d.compareCells(ctx, ra, rb); err != nil {
		return nil, err
	}
	var constant []string
	for _, c := range d.Cells {
		if c.ConstantSeeds && !slices.Contains(constant, c.Key.Experiment) {
			constant = append(constant, c.Key.Experiment)
		}
	}
	if len(constant) > 0 {
		d.Notes = append(d.Notes, fmt.Sprintf("in %s: every seed of a cell gave the same metrics (the seeds vary nothing there), so those cells were compared as single samples", strings.Join(constant, ", ")))
	}
	return d, nil
}

func info(r *run) RunInfo {
	m := &r.manifest
	i := RunInfo{Dir: r.dir, Status: m.Status, Revision: m.Versions.Revision(), Go: m.Versions.Go, Seed: m.Seed, ConfigHash: m.ConfigHash}
	var c struct {
		Preset string `json:"preset"`
	}
	if json.Unmarshal(r.config, &c) == nil {
		i.Preset = c.Preset
	}
	return i
}

func (d *Diff) compareConfig(a, b *run) error {
	fa, err := Flatten(a.config)
	if err != nil {
		return fmt.Errorf("%s: config: %w", a.dir, err)
	}
	fb, err := Flatten(b.config)
	if err != nil {
		return fmt.Errorf("%s: config: %w", b.dir, err)
	}
	d.Config = diffKeys(fa, fb)
	d.SameConfigHash = a.manifest.ConfigHash == b.manifest.ConfigHash
	return nil
}

func (d *Diff) compareArtifacts(a, b *run) {
	for _, n := range unionKeys(a.artifacts, b.artifacts) {
		c := ArtifactChange{Name: n}
		if x, ok := a.artifacts[n]; ok {
			c.A = &x
		}
		if x, ok := b.artifacts[n]; ok {
			c.B = &x
		}
		switch {
		case WallClock(n):
			d.WallClock = append(d.WallClock, c)
		case c.A != nil && c.B != nil && c.A.SHA256 == c.B.SHA256:
			d.ArtifactsSame++
		default:
			d.Artifacts = append(d.Artifacts, c)
		}
	}
	d.WallClock = append([]ArtifactChange{{Name: ManifestFile}}, d.WallClock...)
}

func (d *Diff) compareStages(a, b *run, stageConfigs func(json.RawMessage) (map[string]json.RawMessage, error)) {
	var ca, cb map[string]json.RawMessage
	if stageConfigs != nil {
		var errA, errB error
		ca, errA = stageConfigs(a.config)
		cb, errB = stageConfigs(b.config)
		if err := errors.Join(errA, errB); err != nil {
			d.Notes = append(d.Notes, fmt.Sprintf("the stages' own configurations could not be rebuilt (%v); a configuration cause is deduced from the cache keys", err))
			ca, cb = nil, nil
		}
	}
	va, vb := a.manifest.Versions, b.manifest.Versions
	knownRevisions := va.VCSRevision != "" && vb.VCSRevision != ""
	sameRevision := knownRevisions && va == vb && !va.VCSModified
	for _, n := range unionKeys(a.stages, b.stages) {
		sa, okA := a.stages[n]
		sb, okB := b.stages[n]
		c := StageChange{Name: n}
		switch {
		case !okB:
			c.Causes = []Cause{CauseOnlyA}
			d.Stages = append(d.Stages, c)
			continue
		case !okA:
			c.Causes = []Cause{CauseOnlyB}
			d.Stages = append(d.Stages, c)
			continue
		}
		c.Inputs = changedArtifacts(sa.Inputs, sb.Inputs, true)
		// A stage that reads wall-clock files (eval-collect gathers the
		// timings tables) has a cache key that differs between any two
		// runs; that alone explains nothing.
		wallClockInputs := len(changedArtifacts(sa.Inputs, sb.Inputs, false)) > len(c.Inputs)
		c.Outputs = changedArtifacts(sa.Outputs, sb.Outputs, true)
		if ca != nil {
			fa, errA := Flatten(ca[n])
			fb, errB := Flatten(cb[n])
			if errA == nil && errB == nil {
				c.ConfigKeys = diffKeys(fa, fb)
			}
		}
		seedDiffers := a.manifest.Seed != b.manifest.Seed
		if failed(sa) != failed(sb) {
			c.Causes = append(c.Causes, CauseStatus)
		}
		if seedDiffers && (sa.Key != sb.Key || len(c.Outputs) > 0) {
			c.Causes = append(c.Causes, CauseSeed)
		}
		if sa.Version != sb.Version {
			c.Causes = append(c.Causes, CauseVersion)
		}
		if len(c.ConfigKeys) > 0 || (ca == nil && !seedDiffers && sa.Key != sb.Key && sa.Version == sb.Version && len(c.Inputs) == 0 && !wallClockInputs) {
			c.Causes = append(c.Causes, CauseConfig)
		}
		if len(c.Inputs) > 0 {
			c.Causes = append(c.Causes, CauseInputs)
		}
		if sa.Key == sb.Key && len(c.Outputs) > 0 {
			switch {
			case seedDiffers: // a run from before the seed joined the key
			case sameRevision:
				c.Causes = append(c.Causes, CauseNondeterminism)
			case !knownRevisions:
				c.Causes = append(c.Causes, CauseUnexplained)
			default:
				c.Causes = append(c.Causes, CauseCode)
			}
		}
		if sa.Key != sb.Key && len(c.Causes) == 0 && !wallClockInputs {
			if ca != nil && knownRevisions && !sameRevision {
				// Everything the key is made from is the same; only the
				// code that makes it is not.
				c.Causes = append(c.Causes, CauseKeyCode)
			} else {
				// A key can differ for a reason the manifest does not
				// show (the stage's configuration when StageConfigs could
				// not rebuild it).
				c.Causes = append(c.Causes, CauseConfig)
			}
		}
		if len(c.Causes) == 0 && len(c.Outputs) == 0 {
			d.StagesUnchanged++
			continue
		}
		d.Stages = append(d.Stages, c)
	}
}

func failed(s pipeline.StageManifest) bool { return s.Status == "failed" || s.Status == "skipped" }

// changedArtifacts names the artifacts of either list that the other lacks
// or holds with another hash, sorted; wall-clock ones are skipped when
// skipWallClock is set.
func changedArtifacts(a, b []pipeline.Artifact, skipWallClock bool) []string {
	ha := map[string]string{}
	for _, x := range a {
		ha[x.Name] = x.SHA256
	}
	hb := map[string]string{}
	for _, x := range b {
		hb[x.Name] = x.SHA256
	}
	var out []string
	for _, m := range []map[string]string{ha, hb} {
		for n := range m {
			if (skipWallClock && WallClock(n)) || slices.Contains(out, n) {
				continue
			}
			if sa, ok := ha[n]; !ok || sa != hb[n] {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Significant is the verdict: a metric differs beyond the thresholds, a
// cell exists in one run only, or (with Options.Bytes) an artifact
// differs.
func (d *Diff) Significant() bool {
	if d.Bytes && len(d.Artifacts) > 0 {
		return true
	}
	for _, c := range d.Cells {
		if c.Significant() {
			return true
		}
	}
	return false
}

// Identical says whether nothing but wall-clock artifacts differs: no
// artifact, no stage, no output-changing configuration key, no metric.
func (d *Diff) Identical() bool {
	if len(d.Artifacts) > 0 || len(d.Stages) > 0 || !d.SameConfigHash {
		return false
	}
	for _, c := range d.Cells {
		if !c.Identical() {
			return false
		}
	}
	return true
}
