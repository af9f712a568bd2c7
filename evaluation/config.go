package evaluation

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/internal/didyoumean"
	"github.com/schedlab/schedlab/internal/section"
	"github.com/schedlab/schedlab/schedulers"
)

// Config is the eval section of a run's configuration (stages.Config.Eval):
// which experiments run and each experiment's section of knobs that make a
// preset quick or faithful. The sections' keys are a contract (presets,
// `schedlab config show`, the config hash): a new experiment declares its
// section with its registration (Experiment.Settings, a Section handle),
// named by its id (Experiment.ConfigKey), and reads it in its Configure
// and checks it in its CheckConfig through the handle. Config's own
// fields are the run-wide keys only: an experiment's section is never a
// field here (TestEverySectionIsAnExperiments).
type Config struct {
	// Experiments to run, by id; [] runs none.
	Experiments []string `mapstructure:"experiments" yaml:"experiments" json:"experiments"`
	// Seeds is the number of replicates per cell.
	Seeds int `mapstructure:"seeds" yaml:"seeds" json:"seeds"`

	// sections are the sections that experiments declare with their
	// registration (Experiment.Settings), by key; read and written
	// through their Section handles.
	sections section.Set
}

// ConfigKey is the experiment's section of the run configuration:
// eval.<its id, dashes as underscores> (eval.das_table1), the section its
// Settings declare and its Configure and CheckConfig read; "" when the
// experiment has none (derived experiments are configured by their
// parent's). TestEverySectionIsAnExperiments holds the registry to this
// one-to-one naming.
func (e Experiment) ConfigKey() string {
	if e.Settings == nil {
		return ""
	}
	return "eval." + sectionKey(e.ID)
}

// sectionType is the type of the experiment's section, nil when it has
// none.
func (e Experiment) sectionType() reflect.Type {
	if e.Settings == nil {
		return nil
	}
	return reflect.TypeOf(e.Settings.zero())
}

// MaxSeeds bounds eval.seeds: each replicate reruns every cell, and a
// thousand replicates narrow a 95 % interval to ±6 % of a standard
// deviation.
const MaxSeeds = 1000

// ResolveDerived replaces each derived experiment named in c.Experiments
// by the experiment it is derived from (das-wilcoxon by das-table1, whose
// run writes it), once however many derived ids name it: every id that
// `schedlab list experiments` shows may be named, and a derived one runs
// its parent. Unknown and repeated ids are kept, for Validate to name.
func (c *Config) ResolveDerived() {
	var out []string
	literal := map[string]bool{} // ids named as themselves, not through a derived one
	for _, id := range c.Experiments {
		if e, err := Lookup(id); err == nil && e.Derived() {
			if id = e.Derive.From; !slices.Contains(out, id) {
				out = append(out, id)
			}
			continue
		}
		// An id named twice as itself stays twice, for Validate to refuse
		// (a repeated experiment is a mistake, not a wish); one that a
		// derived id already brought in is not repeated.
		if literal[id] || !slices.Contains(out, id) {
			out = append(out, id)
		}
		literal[id] = true
	}
	c.Experiments = out
}

// Validate names the bad key in full: eval.experiments must name run or
// staged experiments (ResolveDerived replaces derived ones by their
// parents), and each registered experiment checks its own section.
func (c Config) Validate() error {
	var errs []error
	for i, id := range c.Experiments {
		e, err := Lookup(id)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("eval.experiments[%d]: unknown experiment %q%s (experiments: %s)", i, id, didyoumean.Suggest(id, IDs()), strings.Join(IDs(), ", ")))
		case e.Derived():
			errs = append(errs, fmt.Errorf("eval.experiments[%d]: %s is derived from %s: name %s, whose run writes it", i, id, e.Derive.From, e.Derive.From))
		}
		if j := slices.Index(c.Experiments[:i], id); j >= 0 {
			errs = append(errs, fmt.Errorf("eval.experiments[%d]: %q repeated (first at eval.experiments[%d])", i, id, j))
		}
	}
	if c.Seeds < 1 || c.Seeds > MaxSeeds {
		errs = append(errs, fmt.Errorf("eval.seeds: must be in [1, %d], got %d", MaxSeeds, c.Seeds))
	}
	for _, e := range Experiments() {
		if e.CheckConfig != nil {
			errs = append(errs, e.CheckConfig(&c, slices.Contains(c.Experiments, e.ID))...)
		}
	}
	if len(errs) == 0 {
		limit, from := memoryLimit()
		errs = checkMemory(&c, limit, from)
	}
	return errors.Join(errs...)
}

// checkSchedulers is the check of a section's schedulers key.
func checkSchedulers(key string, names []string) []error {
	var errs []error
	for i, n := range names {
		if _, err := schedulers.Canonical(n); err != nil {
			errs = append(errs, fmt.Errorf("%s[%d]: %w", key, i, err))
		}
	}
	return errs
}
