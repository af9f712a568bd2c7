package evaluation

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/schedlab/schedlab/internal/didyoumean"
	"github.com/schedlab/schedlab/training"
)

// The papers whose experiments schedlab reproduces (Experiment.Paper).
const (
	PaperDAS  = "das"
	PaperMARL = "marl"
)

// Experiment is everything schedlab knows about one experiment of
// DESIGN.md §6, registered in one place (experiments.go) so that the DAG,
// the report and the CLI read it instead of switching on the id: what it
// reproduces, its documented spec and how the configuration's section
// changes it, its report section, the paper's figures it is compared with,
// and, for a derived table, how it is built from its parent's outputs.
//
// An experiment is either run (Spec is set: a matrix of simulations),
// derived (Derive is set: a table, and maybe a plot, built from the
// outputs of the run experiment Derive.From at no further simulation), or
// staged (Stage is set: its own stage writes its table and plot).
type Experiment struct {
	// ID names the experiment in configurations, stage names (eval-<ID>)
	// and, unless File says otherwise, its table and plot files.
	ID string
	// Paper is the paper whose measurements it reproduces (PaperDAS,
	// PaperMARL), "" for none: an experiment runs in its paper's calibrated
	// environment when the run asks for paper environments.
	Paper string
	// Reproduces is the paper's figure or table ("DAS Table 1").
	Reproduces string
	// Summary is the experiment's paragraph of `schedlab eval --help`:
	// what it runs, in a few lines.
	Summary string
	// File is the base name of its tables/<File>.{md,csv,tex} and
	// plots/<File>.{svg,png}; "" means ID. Tables built from wall-clock
	// timings carry "timings" in their names (DESIGN.md §2).
	File string
	// Section is its part of the run report.
	Section ReportSection
	// Reference holds the paper's figures shown beside ours, labelled; nil
	// when the table shows none.
	Reference *Reference
	// Plot draws the experiment's figure from its report, when its figure
	// is not Report.Plot's default (grouped bars, mean JCT above mean
	// fee): a line plot over the quantity its columns or rows vary.
	Plot func(r *Report) (svg, png []byte, err error)

	// Spec returns the documented spec (run experiments only).
	Spec func() Spec
	// Configure applies the experiment's section of the run configuration
	// (eval.<section>) to its documented spec, and reports whether cell
	// speeds come from the fitted interference model. Inputs that depend
	// on the run (job trace, arrivals table) are left to the caller.
	Configure func(c *Config, s *Spec) (fitted bool)
	// Defaults declares the experiment's section of the run configuration
	// (eval.<section>, ConfigKey): its keys with their default values and a
	// comment on each saying what it means, as YAML. The embedded defaults
	// of the configuration hold it under ConfigKey, and `schedlab config
	// defaults` prints it there. Required exactly when the experiment has a
	// section (Settings); the keys are those of the section's type.
	Defaults string
	// Settings is the handle of the experiment's section (NewSection),
	// which declares its type; nil when it has none. Config holds the
	// section's value; code reads and writes it through this handle.
	Settings SectionType
	// CheckConfig validates the experiment's section of the run
	// configuration, the one place each of its keys is range-checked;
	// listed says whether eval.experiments names it (some keys matter
	// only then). Errors name the key in full.
	CheckConfig func(c *Config, listed bool) []error

	// Derive builds a derived experiment (derived experiments only).
	Derive *Derivation

	// Stage names the pipeline stage that writes the experiment's tables
	// and plot itself from artifacts of its own (calibration: from the
	// calibrate stage's fit). Such an experiment is neither run nor
	// derived: configurations list it, `schedlab eval` cannot run it.
	Stage string
}

// ReportSection is an experiment's section of the run report: a title and
// a sentence on what the table shows.
type ReportSection struct {
	Title, Text string
}

// Name is the base name of the experiment's table and plot files.
func (e Experiment) Name() string {
	if e.File != "" {
		return e.File
	}
	return e.ID
}

// TableFiles are the experiment's table files, relative to a run
// directory: tables/<name>.md, .csv, .tex.
func (e Experiment) TableFiles() []string {
	n := e.Name()
	return []string{"tables/" + n + ".md", "tables/" + n + ".csv", "tables/" + n + ".tex"}
}

// PlotFiles are the experiment's plot files, relative to a run directory:
// plots/<name>.svg, .png; none when it draws no plot.
func (e Experiment) PlotFiles() []string {
	if e.Derive != nil && e.Derive.Plot == nil {
		return nil
	}
	n := e.Name()
	return []string{"plots/" + n + ".svg", "plots/" + n + ".png"}
}

// Derived reports whether the experiment is derived from another's
// outputs rather than run.
func (e Experiment) Derived() bool { return e.Derive != nil }

// Staged reports whether the experiment's own stage (Stage) writes it.
func (e Experiment) Staged() bool { return e.Stage != "" }

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// DerivedInput says which outputs of its parent a derived experiment reads.
type DerivedInput int

const (
	// FromResults: the parent's per-job results (ResultRow).
	FromResults DerivedInput = iota
	// FromTimings: the parent's per-cell wall-clock timings (TimingRow).
	FromTimings
	// FromCurves: the learning curves of the models of the parent's
	// learned schedulers, one per scheduler and cluster.
	FromCurves
)

// Derivation is how a derived experiment is made from its parent's
// outputs.
type Derivation struct {
	// From is the id of the run experiment it is derived from.
	From string
	// Reads is the parent output it is built from.
	Reads DerivedInput
	// Applies reports whether the parent's spec yields the table (e.g.
	// both schedulers it compares are rows); nil means always.
	Applies func(parent Spec) bool
	// Table builds the table.
	Table func(in DerivedData) (*Table, error)
	// Plot draws the figure as SVG and PNG; nil when there is none.
	Plot func(in DerivedData) (svg, png []byte, err error)
}

// DerivedData is what a derived experiment is built from: its parent's
// spec and the one input its Derivation reads.
type DerivedData struct {
	Parent Spec
	// Trace is the source of the parent's job trace (Reference.Comparable);
	// "" when not known.
	Trace   string
	Results []ResultRow
	Timings []TimingRow
	Curves  []LearningCurve
}

// LearningCurve is the learning curve of one learned scheduler's model on
// one cluster of the parent's spec.
type LearningCurve struct {
	Scheduler, Cluster string
	Rows               []training.Curve
}

var registry struct {
	sync.RWMutex
	list []Experiment
	byID map[string]int
}

// Register adds an experiment to the registry. Experiments list in
// registration order, which is DESIGN.md §6's. Like database/sql.Register
// it panics on a programming error: an empty or duplicate id, a value that
// is neither run nor derived, or a derived one whose parent is not
// registered yet.
func Register(e Experiment) {
	registry.Lock()
	defer registry.Unlock()
	switch {
	case e.ID == "" || strings.ContainsAny(e.ID, "/\\ ,"):
		panic(fmt.Sprintf("evaluation: Register: bad experiment id %q", e.ID))
	case registry.byID[e.ID] != 0:
		panic("evaluation: Register called twice for experiment " + e.ID)
	case btoi(e.Spec != nil)+btoi(e.Derive != nil)+btoi(e.Stage != "") != 1:
		panic("evaluation: Register: experiment " + e.ID + " needs exactly one of Spec (run), Derive (derived) and Stage (staged)")
	case e.Spec != nil && e.Configure == nil:
		panic("evaluation: Register: run experiment " + e.ID + " has no Configure")
	case (e.Settings != nil) != (e.Defaults != ""):
		panic("evaluation: Register: experiment " + e.ID + " declares Defaults exactly when it declares its section (Settings)")
	case e.Settings != nil && e.Settings.ID() != e.ID:
		panic("evaluation: Register: experiment " + e.ID + " declares the section of " + e.Settings.ID())
	case e.Derive != nil && e.Derive.Table == nil:
		panic("evaluation: Register: derived experiment " + e.ID + " has no Table")
	}
	if e.Derive != nil {
		i := registry.byID[e.Derive.From]
		if i == 0 || registry.list[i-1].Derive != nil {
			panic("evaluation: Register: derived experiment " + e.ID + " needs a registered run experiment, not " + e.Derive.From)
		}
	}
	if registry.byID == nil {
		registry.byID = map[string]int{}
	}
	registry.list = append(registry.list, e)
	registry.byID[e.ID] = len(registry.list) // 1-based: 0 is absent
}

// Lookup returns the registered experiment with the id; an unknown id is
// an error wrapping ErrUnknownExperiment that lists the run experiments.
func Lookup(id string) (Experiment, error) {
	registry.RLock()
	i := registry.byID[id]
	registry.RUnlock()
	if i == 0 {
		return Experiment{}, fmt.Errorf("evaluation: %w %q%s (experiments: %s)", ErrUnknownExperiment, id, didyoumean.Suggest(id, IDs()), strings.Join(IDs(), ", "))
	}
	registry.RLock()
	defer registry.RUnlock()
	return registry.list[i-1], nil
}

// Experiments lists every registered experiment, run and derived, in
// DESIGN.md §6 order.
func Experiments() []Experiment {
	registry.RLock()
	defer registry.RUnlock()
	return append([]Experiment(nil), registry.list...)
}

// IDs lists the id of every registered experiment (run, staged and
// derived), in registration order: what `schedlab list experiments` shows.
func IDs() []string {
	var ids []string
	for _, e := range Experiments() {
		ids = append(ids, e.ID)
	}
	return ids
}

// RunIDs lists the ids of the run experiments (those a configuration or
// `schedlab eval` can name), in DESIGN.md order.
func RunIDs() []string {
	var ids []string
	for _, e := range Experiments() {
		if e.Spec != nil {
			ids = append(ids, e.ID)
		}
	}
	return ids
}

// DerivedFrom lists the derived experiments of the run experiment id, in
// registration order.
func DerivedFrom(id string) []Experiment {
	var out []Experiment
	for _, e := range Experiments() {
		if e.Derive != nil && e.Derive.From == id {
			out = append(out, e)
		}
	}
	return out
}

// ErrUnknownExperiment: an id that no registered experiment has.
var ErrUnknownExperiment = errors.New("unknown experiment")

// ErrDerivedExperiment: a derived experiment was asked to run; it is made
// from its parent's outputs.
var ErrDerivedExperiment = errors.New("derived experiment")

// DefaultSpec returns the documented spec of the run experiment id
// (Experiment.Spec).
func DefaultSpec(id string) (Spec, error) {
	e, err := Lookup(id)
	if err != nil {
		return Spec{}, err
	}
	if e.Staged() {
		return Spec{}, fmt.Errorf("evaluation: %s is written by the %s stage and has no spec", id, e.Stage)
	}
	if e.Spec == nil {
		return Spec{}, fmt.Errorf("evaluation: %s is a %w, made from %s's outputs", id, ErrDerivedExperiment, e.Derive.From)
	}
	return e.Spec(), nil
}

// Reference is a paper's figures for an experiment's table, shown beside
// ours and labelled "(paper)". All papers' figures that tables show live in
// the registrations of experiments.go.
type Reference struct {
	// Note is the table's note saying where the figures come from and that
	// they are not our measurements.
	Note string
	// Groups are the column groups the figures are given for, in order.
	Groups []string
	// Rows maps a row key (a scheduler's registry name, or the derived
	// table's row label) to its figures, group-major: len(Groups) ×
	// metrics per group.
	Rows map[string][]float64
	// Traces are the sources of the job trace the paper measured on
	// (datasets' schedlab.source of a jobs table: pai-sim, pai-v2020); the
	// figures are set beside ours only when every trace workload of the
	// table read one of them. Empty: the workload is generated as the paper
	// describes (the MARL experiments), so the figures always compare.
	Traces []string
}

// PaperTraces is the DAS paper's workload: Alibaba's PAI trace, as the
// simulator's CSV subset or the raw 2020 tables.
var PaperTraces = []string{"pai-sim", "pai-v2020"}

// Comparable reports whether the figures were measured on a workload of
// trace source ("" when the caller does not know it: not checked); why
// says otherwise, for a table's notes and a claim.
func (r *Reference) Comparable(source string) (ok bool, why string) {
	if r == nil || len(r.Traces) == 0 || source == "" || slices.Contains(r.Traces, source) {
		return true, ""
	}
	return false, fmt.Sprintf("not comparable: trace %s (the paper measured on %s)", source, strings.Join(r.Traces, " or "))
}

// AverageGroup is the label of a table's column group of averages.
const AverageGroup = "Average"

// Values lays the figures of row key out for a table's groups: a group the
// reference does not give is NaN, and so is an Average group unless the
// table has as many groups as the reference (an average over other
// columns is not the paper's). ok is false when the reference has no such
// row.
func (r *Reference) Values(key string, groups []string, metrics int) (values []float64, ok bool) {
	p, ok := r.Rows[key]
	if !ok {
		return nil, false
	}
	values = make([]float64, len(groups)*metrics)
	for gi, g := range groups {
		c := slices.Index(r.Groups, g)
		for k := 0; k < metrics; k++ {
			if c < 0 || (g == AverageGroup && len(groups) != len(r.Groups)) {
				values[gi*metrics+k] = math.NaN()
			} else {
				values[gi*metrics+k] = p[c*metrics+k]
			}
		}
	}
	return values, true
}
