package evaluation

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/schedlab/schedlab/internal/didyoumean"
	"github.com/schedlab/schedlab/schedulers"
)

// Config is the eval section of a run's configuration (stages.Config.Eval):
// which experiments run and each experiment's section of knobs that make a
// preset quick or faithful. The sections' keys are a contract (presets,
// `schedlab config show`, the config hash): a new experiment declares its
// section with its registration (Experiment.Settings, a Section handle),
// named by its id (Experiment.ConfigKey), and reads it in its Configure
// through the handle. The fields below are the sections not yet declared
// that way.
type Config struct {
	// Experiments to run, by id; [] runs none.
	Experiments []string `mapstructure:"experiments" yaml:"experiments" json:"experiments"`
	// Seeds is the number of replicates per cell.
	Seeds int `mapstructure:"seeds" yaml:"seeds" json:"seeds"`

	// sections are the sections that experiments declare with their
	// registration (Experiment.Settings), by key; read and written
	// through their Section handles.
	sections map[string]any
}

// ConfigKey is the experiment's section of the run configuration:
// eval.<its id, dashes as underscores> (eval.das_table1), the section
// (Settings, or a field of Config) that its Configure and CheckConfig
// read; "" when the experiment has none (derived experiments are
// configured by their parent's).
// TestEverySectionIsAnExperiments holds Config's fields and the registry
// to this one-to-one naming.
func (e Experiment) ConfigKey() string {
	name := sectionKey(e.ID)
	if _, ok := sectionFields()[name]; !ok && e.Settings == nil {
		return ""
	}
	return "eval." + name
}

// sectionType is the type of the experiment's section, nil when it has
// none.
func (e Experiment) sectionType() reflect.Type {
	if e.Settings != nil {
		return reflect.TypeOf(e.Settings.zero())
	}
	if f, ok := reflect.TypeFor[Config]().FieldByNameFunc(func(n string) bool {
		f, _ := reflect.TypeFor[Config]().FieldByName(n)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		return name == sectionKey(e.ID) && sectionFields()[name]
	}); ok {
		return f.Type
	}
	return nil
}

// sectionFields are Config's fields by key (their json tag), but for the
// run-wide experiments and seeds.
var sectionFields = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	t := reflect.TypeFor[Config]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if t.Field(i).IsExported() && name != "experiments" && name != "seeds" {
			out[name] = true
		}
	}
	return out
})

// CalibrationConfig says which calibrated environments the calibrate stage
// fits besides marl-paper, which it always fits (a few dozen tiny
// scenarios, well under a second).
type CalibrationConfig struct {
	// DAS fits das-paper: some forty evaluations of five heuristic rows on
	// das-table1's three clusters and evaluated jobs, tens of seconds on
	// the nightly trace. Experiments run in das-paper (sim.environment)
	// need it.
	DAS bool `mapstructure:"das" yaml:"das" json:"das"`
}

// MARLGridConfig parameterises marl-servers, marl-topologies and
// marl-vs-single: their clusters (one column group each) at the paper's
// load per pod (MARLPaperLoad).
type MARLGridConfig struct {
	Schedulers []string  `mapstructure:"schedulers" yaml:"schedulers" json:"schedulers"`
	Clusters   []Cluster `mapstructure:"clusters" yaml:"clusters" json:"clusters"`
	Intervals  int       `mapstructure:"intervals" yaml:"intervals" json:"intervals"`
}

// SensitivityConfig parameterises the sensitivity experiment: a grid of
// multipliers on the communication and interference scales of each part's
// calibrated environment, a model trained per grid point.
type SensitivityConfig struct {
	// Parts to run: SensitivityMARLDevice, SensitivityDAS.
	Parts []string `mapstructure:"parts" yaml:"parts" json:"parts"`
	// CommScales and InterferenceScales multiply the environment's
	// comm_scale and interference_scale: the map's rows and columns, each
	// increasing.
	CommScales         []float64             `mapstructure:"comm_scales" yaml:"comm_scales" json:"comm_scales"`
	InterferenceScales []float64             `mapstructure:"interference_scales" yaml:"interference_scales" json:"interference_scales"`
	MARLDevice         SensitivityMARLConfig `mapstructure:"marl_device" yaml:"marl_device" json:"marl_device"`
	DAS                SensitivityDASConfig  `mapstructure:"das" yaml:"das" json:"das"`
}

// SensitivityMARLConfig sizes the marl-device part: marl-arrivals' uniform
// workload at the paper's load per pod on a fat-tree of power8 servers.
type SensitivityMARLConfig struct {
	// Heuristics the learned scheduler is compared with (MARLHeuristics).
	Heuristics []string `mapstructure:"heuristics" yaml:"heuristics" json:"heuristics"`
	// K of the fat-tree.
	K int `mapstructure:"k" yaml:"k" json:"k"`
	// Intervals of uniform arrivals evaluated.
	Intervals int `mapstructure:"intervals" yaml:"intervals" json:"intervals"`
	// Episodes of each grid point's training (0: the family's default),
	// over TrainIntervals intervals of uniform arrivals.
	Episodes       int `mapstructure:"episodes" yaml:"episodes" json:"episodes"`
	TrainIntervals int `mapstructure:"train_intervals" yaml:"train_intervals" json:"train_intervals"`
	// Loads multiply the paper's jobs per pod (MARLPaperLoad) and Sockets
	// are socket rules (sim.SocketRules): the map has one part per load
	// and rule, each its own grid. Loads [1] (or none) and Sockets [] (the
	// experiment's own rule) are one part, named as before. Left out of
	// the JSON when empty.
	Loads   []float64 `mapstructure:"loads" yaml:"loads" json:"loads,omitempty"`
	Sockets []string  `mapstructure:"sockets" yaml:"sockets" json:"sockets,omitempty"`
}

// SensitivityDASConfig sizes the das part: das-table1's trace (its
// max_jobs and test_fraction) on one cluster; the training reads
// train.das except for its episodes and cluster.
type SensitivityDASConfig struct {
	// Heuristics the learned scheduler is compared with (DASHeuristics).
	Heuristics []string `mapstructure:"heuristics" yaml:"heuristics" json:"heuristics"`
	// Cluster evaluated and trained on: small, medium or large.
	Cluster string `mapstructure:"cluster" yaml:"cluster" json:"cluster"`
	// Episodes per learning rate of each grid point's training.
	Episodes int `mapstructure:"episodes" yaml:"episodes" json:"episodes"`
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
