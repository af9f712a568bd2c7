package schedulers

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
)

// Name is a scheduler's canonical name in the registry: lower case, with
// hyphens (fifo-firstfit, tetris-pack, das, marl-device). Canonical turns
// user input (any case, FIFO-FF-style aliases) into one.
type Name string

// Info describes a registered scheduler.
type Info struct {
	Name Name
	// Display is the papers' name (FIFO-FirstFit, DAS, MARL
	// (device-level)), the label of table rows.
	Display string
	// Doc is one line for --help and listings.
	Doc string
	// Family is the learned family that trains the scheduler's model (das,
	// marl, ...; see package training), "" for a heuristic.
	Family string
	// Aliases are further accepted spellings (fifo-ff, lb).
	Aliases []string
	// Trigger is the sim trigger the policy is defined with ("every" for
	// the Tiresias policies, which act at every arrival and completion);
	// "" leaves it to the experiment.
	Trigger string
	// Oracle marks a scheduler that reads what no real scheduler knows (a
	// job's true duration or remaining time): an upper bound, shown apart
	// in tables and never the baseline a claim is measured against.
	Oracle bool
	// Data are the files under the shared data directory the policy
	// reads (Options.Data): a run makes each an input of the stages that
	// evaluate the policy, so that their cache keys cover it.
	Data []DataFile
	// Tuning places a learned variant on an axis of a tuning experiment
	// (das-tuning, DAS Fig. 5), whose plot draws one panel per axis; nil
	// for none. The family declares it, so that the plot names no family.
	Tuning *Tuning
}

// Tuning is a variant's point on a tuning axis: the axis' label (one
// panel) and the variant's value on it.
type Tuning struct {
	Axis string
	X    float64
}

// TuningOf is the Tuning of the scheduler name, nil for none.
func TuningOf(name Name) *Tuning {
	e, ok := lookup(string(name))
	if !ok {
		return nil
	}
	return e.info.Tuning
}

// DataFile is a file under the shared data directory that a policy reads.
type DataFile struct {
	// Path is relative to the data directory (tiresias/yarn-gput1000.csv).
	Path string
	// Optional: the policy runs without it (how, its doc says); a file
	// that is not optional and absent leaves the policy's rows out, and
	// the tables say so.
	Optional bool
}

// Learned reports whether the scheduler needs a trained model.
func (i Info) Learned() bool { return i.Family != "" }

// OracleNote is the one line a table prints under its oracle rows.
const OracleNote = "Rows marked (oracle) read each job's true duration and remaining time, which no real scheduler knows: upper bounds shown apart, never the baseline a claim is measured against; the rows without the mark estimate durations from finished jobs."

// Learned reports whether n is a registered learned scheduler.
func (n Name) Learned() bool {
	e, ok := lookup(string(n))
	return ok && e.info.Learned()
}

// Oracle reports whether n is a registered scheduler that reads the
// future (Info.Oracle).
func (n Name) Oracle() bool {
	e, ok := lookup(string(n))
	return ok && e.info.Oracle
}

// Heuristic reports whether n is a registered scheduler that is neither
// learned nor an oracle: a candidate for a column's best heuristic, from
// which the headroom of a cell is measured.
func (n Name) Heuristic() bool {
	e, ok := lookup(string(n))
	return ok && !e.info.Learned() && !e.info.Oracle
}

// Stream names the random streams of schedulers at evaluation: a
// randomised scheduler draws from (Options.Seed, Stream, its name).
const Stream pipeline.Stream = "schedulers"

// The keys of MALO's and MOSA's streams under Stream, shared by each fair
// row and its oracle, which must draw alike.
const (
	maloKey pipeline.Key = "malo"
	mosaKey pipeline.Key = "mosa"
)

// Options configure one scheduler value. The zero value is valid for a
// heuristic: seed 0 and the simulator's default GPU price.
type Options struct {
	// Seed seeds the randomised schedulers through pipeline.Rand(Seed,
	// Stream, name); deterministic ones ignore it.
	Seed uint64
	// PriceGPUHour is the GPU price ($/GPU-hour) the fee-aware schedulers
	// (MALO, MOSA) optimise against: the evaluated experiment's
	// sim.Config.PriceGPUHour. 0 means sim.DefaultConfig's.
	PriceGPUHour float64
	// Model is the directory holding a learned scheduler's trained model
	// (see package training for how a run lays them out); required for a
	// learned scheduler, ignored by the others.
	Model string
	// DataDir is the shared data directory, where a policy that learns
	// from a data set finds it by default (the Gittins policy's job
	// GPU-time samples); "" for none.
	DataDir string
	// Data maps a file of Info.Data (its Path) to the path to read it
	// from, ahead of DataDir: a run's stage input.
	Data map[string]string
	// Tiresias holds the keys of the Tiresias policies (queue thresholds,
	// the promote knob, the Gittins samples); nil: Params' sched.tiresias.
	Tiresias *TiresiasConfig
	// Params are the heuristics' parameters (sched.<name>: MALOParams,
	// MOSAParams, TiresiasSection); a section it does not hold is at its
	// default.
	Params Params
	// RoundS is the round (lease) of the round-based policies, seconds:
	// 0 is each one's own (Gandiva 60, Gavel 360).
	RoundS float64
}

// Constructor builds one scheduler value from its options.
type Constructor func(Options) (sim.Scheduler, error)

type entry struct {
	info Info
	make Constructor
}

// The registry: heuristics register below, learned schedulers from their
// family's package (training.Register) when that package is linked in,
// and schedulers that the configuration declares (external:NAME) through
// the resolver of their prefix.
var (
	mu       sync.RWMutex
	entries  []entry          // registration order
	byName   = map[Name]int{} // names and aliases → index in entries
	prefixes = map[string]Resolver{}
)

// Resolver describes the scheduler a name under a registered prefix
// stands for, or says why there is none (an error naming what is
// declared).
type Resolver func(name Name) (Info, Constructor, error)

// RegisterPrefix makes every name that starts with prefix (external:)
// a scheduler that r resolves when it is looked up: a kind whose members
// the configuration declares rather than the code. Listings (Names) do
// not include them. It panics if the prefix is taken, as Register does.
func RegisterPrefix(prefix string, r Resolver) {
	mu.Lock()
	defer mu.Unlock()
	if prefix == "" || prefix != normalise(prefix) || r == nil {
		panic(fmt.Sprintf("schedulers: RegisterPrefix %q: empty, not canonical, or nil resolver", prefix))
	}
	if _, dup := prefixes[prefix]; dup {
		panic("schedulers: RegisterPrefix: " + prefix + " registered twice")
	}
	prefixes[prefix] = r
}

// ErrUnknown: a name that no registered scheduler has.
var ErrUnknown = errors.New("unknown scheduler")

// Register adds a scheduler. It panics if the name or an alias is taken or
// malformed: registration is a programmer's act, done once in an init.
func Register(info Info, ctor Constructor) {
	mu.Lock()
	defer mu.Unlock()
	if ctor == nil {
		panic("schedulers: Register " + string(info.Name) + ": nil constructor")
	}
	for _, n := range append([]string{string(info.Name)}, info.Aliases...) {
		if n == "" || n != normalise(n) {
			panic(fmt.Sprintf("schedulers: Register: name %q is not canonical (lower case, hyphens)", n))
		}
		if _, dup := byName[Name(n)]; dup {
			panic("schedulers: Register: " + n + " registered twice")
		}
		byName[Name(n)] = len(entries)
	}
	entries = append(entries, entry{info: info, make: ctor})
}

func normalise(s string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-")
}

func lookup(s string) (entry, bool) {
	e, err := resolve(s)
	return e, err == nil
}

// resolve finds a registered name, else a name under a prefix; the error
// is the prefix resolver's, or nil with ok false.
func resolve(s string) (entry, error) {
	n := normalise(s)
	mu.RLock()
	i, ok := byName[Name(n)]
	var e entry
	var r Resolver
	if ok {
		e = entries[i]
	} else {
		// The longest matching prefix wins, so that the choice does not
		// depend on map order once two prefixes overlap.
		best := ""
		for p, pr := range prefixes {
			if strings.HasPrefix(n, p) && len(p) > len(best) {
				best, r = p, pr
			}
		}
	}
	mu.RUnlock()
	switch {
	case ok:
		return e, nil
	case r != nil:
		info, ctor, err := r(Name(n))
		if err != nil {
			return entry{}, err
		}
		return entry{info: info, make: ctor}, nil
	}
	return entry{}, ErrUnknown
}

// Canonical maps a name or alias, in any case, to its registered name; an
// unknown name is an error (wrapping ErrUnknown) that lists the known ones.
func Canonical(s string) (Name, error) {
	e, err := resolve(s)
	if err != nil {
		if !errors.Is(err, ErrUnknown) {
			return "", fmt.Errorf("schedulers: %w %q: %v", ErrUnknown, s, err)
		}
		return "", fmt.Errorf("schedulers: %w %q (heuristics: %s; learned: %s)", ErrUnknown, s,
			join(Heuristics()), join(LearnedNames()))
	}
	return e.info.Name, nil
}

// Lookup returns a registered scheduler's description by name or alias.
func Lookup(s string) (Info, bool) {
	e, ok := lookup(s)
	return e.info, ok
}

// Display is the papers' name of a registered scheduler, or s itself.
func Display(s string) string {
	if e, ok := lookup(s); ok && e.info.Display != "" {
		return e.info.Display
	}
	return s
}

// Describe is a one-line description of a registered scheduler, "" for
// an unknown name.
func Describe(s string) string {
	e, _ := lookup(s)
	return e.info.Doc
}

func names(keep func(Info) bool) []Name {
	mu.RLock()
	defer mu.RUnlock()
	var out []Name
	for _, e := range entries {
		if keep(e.info) {
			out = append(out, e.info.Name)
		}
	}
	return out
}

// Heuristics lists the schedulers that need no model, in registration
// order (DAS baselines, MARL baselines, meta-heuristics).
func Heuristics() []Name { return names(func(i Info) bool { return !i.Learned() }) }

// LearnedNames lists the learned schedulers that linked-in families
// registered, sorted.
func LearnedNames() []Name {
	out := names(Info.Learned)
	slices.Sort(out)
	return out
}

// Names lists every registered scheduler: heuristics in registration
// order, then the learned ones sorted.
func Names() []Name { return append(Heuristics(), LearnedNames()...) }

func join(ns []Name) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = string(n)
	}
	return strings.Join(s, ", ")
}

// New returns a fresh scheduler by name or alias (user input goes through
// Canonical, or New(Name(s), ...)). Each call returns an independent value:
// use one per run. A learned scheduler needs opt.Model.
func New(name Name, opt Options) (sim.Scheduler, error) {
	e, ok := lookup(string(name))
	if !ok {
		_, err := Canonical(string(name))
		return nil, err
	}
	if e.info.Learned() && opt.Model == "" {
		return nil, fmt.Errorf("schedulers: %s is learned (family %s): give the directory of its trained model", e.info.Name, e.info.Family)
	}
	if opt.PriceGPUHour == 0 {
		opt.PriceGPUHour = sim.DefaultConfig().PriceGPUHour
	}
	s, err := e.make(opt)
	if err != nil {
		return nil, fmt.Errorf("schedulers: %s: %w", e.info.Name, err)
	}
	return s, nil
}

func greedy(name string, order Order, place func() Placer) Constructor {
	return func(Options) (sim.Scheduler, error) { return NewGreedy(name, order, place()), nil }
}

func init() {
	for _, h := range []struct {
		info Info
		make Constructor
	}{
		{Info{Name: "fifo-firstfit", Display: "FIFO-FirstFit", Aliases: []string{"fifo-ff"},
			Doc: "DAS: submission order, lowest-index server that fits"},
			greedy("fifo-firstfit", FIFO, func() Placer { return FirstFit{} })},
		{Info{Name: "fifo-loadbalance", Display: "FIFO-Load Balance", Aliases: []string{"fifo-lb"},
			Doc: "DAS: submission order, server with the smallest GPU share in use"},
			greedy("fifo-loadbalance", FIFO, func() Placer { return LeastGPULoad{} })},
		{Info{Name: "drf-firstfit", Display: "DRF-FirstFit", Aliases: []string{"drf-ff"},
			Doc: "DAS: smallest dominant share first, first fit"},
			greedy("drf-firstfit", DRF, func() Placer { return FirstFit{} })},
		{Info{Name: "drf-loadbalance", Display: "DRF-Load Balance", Aliases: []string{"drf-lb"},
			Doc: "DAS: smallest dominant share first, least GPU load"},
			greedy("drf-loadbalance", DRF, func() Placer { return LeastGPULoad{} })},
		{Info{Name: "tetris", Display: "Tetris",
			Doc: "MARL/DAS: submission order, server best aligned with the demand"},
			greedy("tetris", FIFO, func() Placer { return Alignment{} })},
		{Info{Name: "load-balancing", Display: "Load Balancing", Aliases: []string{"lb", "loadbalancing"},
			Doc: "MARL: submission order, least normalised (GPU, CPU, memory) load"},
			greedy("load-balancing", FIFO, func() Placer { return &LeastLoad{} })},
		{Info{Name: "lif", Display: "LIF", Aliases: []string{"least-interference-first"},
			Doc: "MARL: submission order, server whose tasks' predicted slowdowns sum least with the new one (the paper's LIF)"},
			greedy("lif", FIFO, func() Placer { return &LeastInterference{AllTasks: true} })},
		{Info{Name: "lif-new", Display: "LIF (new task only)",
			Doc: "MARL: submission order, server where the new instance's own predicted slowdown is least"},
			greedy("lif-new", FIFO, func() Placer { return &LeastInterference{} })},
		{Info{Name: "tetris-pack", Display: "Tetris (packing)",
			Doc: "MARL: submission order, multi-resource bin packing with job locality (the MARL paper's Tetris)"},
			greedy("tetris-pack", FIFO, func() Placer { return &Packing{} })},
		{Info{Name: "malo", Display: "MALO", Doc: "DAS: ant-lion + elite differential evolution (T=400, P=0.99, I=50), durations estimated from finished jobs"},
			func(o Options) (sim.Scheduler, error) {
				return NewMALO(MALOParams.Of(o.Params), o.PriceGPUHour, pipeline.Rand(o.Seed, Stream, maloKey))
			}},
		{Info{Name: "mosa", Display: "MOSA", Doc: "DAS: multi-objective simulated annealing (I=100, S=50), durations estimated from finished jobs"},
			func(o Options) (sim.Scheduler, error) {
				return NewMOSA(MOSAParams.Of(o.Params), o.PriceGPUHour, pipeline.Rand(o.Seed, Stream, mosaKey))
			}},
		// The Tiresias simulator's policies, under the names its
		// --schedule flag takes as aliases.
		{Info{Name: "fifo-strict", Display: "FIFO (strict)", Aliases: []string{"fifo"}, Trigger: sim.TriggerEvery,
			Doc: "Tiresias: submission order with head-of-line blocking, never preempts"},
			func(Options) (sim.Scheduler, error) { return &FIFOStrict{}, nil }},
		{Info{Name: "smallest-first", Display: "Smallest GPU first", Aliases: []string{"sjf"}, Trigger: sim.TriggerEvery,
			Doc: "Tiresias sjf: fewest GPUs first, preemptive"},
			func(Options) (sim.Scheduler, error) { return SmallestFirst(), nil }},
		{Info{Name: "srtf", Display: "SRTF (oracle)", Oracle: true, Aliases: []string{"shortest"}, Trigger: sim.TriggerEvery,
			Doc: "Tiresias shortest: shortest remaining time first, preemptive; reads true durations (oracle)"},
			func(Options) (sim.Scheduler, error) { return SRTF(), nil }},
		{Info{Name: "srsf", Display: "SRSF (oracle)", Oracle: true, Aliases: []string{"shortest-gpu"}, Trigger: sim.TriggerEvery,
			Doc: "Tiresias shortest-gpu: least remaining GPU-time first, preemptive; reads true durations (oracle)"},
			func(Options) (sim.Scheduler, error) { return SRSF(), nil }},
		{Info{Name: "tiresias-las", Display: "2D-LAS (Tiresias)", Aliases: []string{"dlas-gpu", "2d-las"}, Trigger: sim.TriggerEvery,
			Doc: "Tiresias dlas-gpu: discretised 2D least attained service, 3 queues at 3250/7200 GPU-s"},
			func(o Options) (sim.Scheduler, error) { return NewLAS(tiresiasConfig(o)) }},
		{Info{Name: "tiresias-las-1d", Display: "LAS (Tiresias, 1D)", Aliases: []string{"dlas", "las"}, Trigger: sim.TriggerEvery,
			Doc: "Tiresias dlas: discretised least attained service in seconds, not GPU-seconds"},
			func(o Options) (sim.Scheduler, error) {
				c := tiresiasConfig(o)
				c.OneDimensional = true
				return NewLAS(c)
			}},
		{Info{Name: "tiresias-gittins", Display: "2D-Gittins (Tiresias)", Aliases: []string{"dlas-gpu-gittins"}, Trigger: sim.TriggerEvery, Data: gittinsData,
			Doc: "Tiresias dlas-gpu-gittins: 2D-LAS queues ordered by a Gittins index of past jobs' GPU-time"},
			func(o Options) (sim.Scheduler, error) {
				c := tiresiasConfig(o)
				if c.GittinsSamples == "" {
					c.GittinsSamples = o.dataPath(GittinsSamplesFile)
				}
				return NewGittins(c, o.DataDir)
			}},
		{Info{Name: "gandiva", Display: "Gandiva (time-slicing)", Trigger: sim.TriggerEvery,
			Doc: "Gandiva: suspend-resume time-slicing in 60 s rounds when the cluster is oversubscribed"},
			func(o Options) (sim.Scheduler, error) { return NewGandiva(o.RoundS) }},
		{Info{Name: "gavel-las", Display: "Max-min fairness (Gavel)", Aliases: []string{"max-min-fairness"}, Trigger: sim.TriggerEvery, Data: gavelData,
			Doc: "Gavel LAS: max-min fairness as a linear program, 360 s rounds, priority = allocation / time received"},
			func(o Options) (sim.Scheduler, error) {
				thr, err := GavelThroughputsAt(o.dataPath(GavelThroughputsFile))
				if err != nil {
					return nil, err
				}
				return NewGavelMaxMin(o.RoundS, thr)
			}},
		{Info{Name: "gavel-ftf", Display: "Finish-time fairness (Gavel)", Aliases: []string{"finish-time-fairness", "themis"}, Trigger: sim.TriggerEvery, Data: gavelData,
			Doc: "Themis' finish-time fairness as Gavel's policy, linear programs in 360 s rounds; remaining time estimated from finished jobs"},
			func(o Options) (sim.Scheduler, error) {
				thr, err := GavelThroughputsAt(o.dataPath(GavelThroughputsFile))
				if err != nil {
					return nil, err
				}
				return NewGavelFTF("gavel-ftf", o.RoundS, thr, NewHistoryEstimator())
			}},
		// The oracles draw from their fair rows' streams: the pair differs
		// only in what it knows of durations.
		{Info{Name: "malo-oracle", Display: "MALO (oracle)", Oracle: true, Doc: "MALO reading true durations and remaining times: an upper bound, not a baseline"},
			func(o Options) (sim.Scheduler, error) {
				return NewOracleMALO(MALOParams.Of(o.Params), o.PriceGPUHour, pipeline.Rand(o.Seed, Stream, maloKey))
			}},
		{Info{Name: "mosa-oracle", Display: "MOSA (oracle)", Oracle: true, Doc: "MOSA reading true durations and remaining times: an upper bound, not a baseline"},
			func(o Options) (sim.Scheduler, error) {
				return NewOracleMOSA(MOSAParams.Of(o.Params), o.PriceGPUHour, pipeline.Rand(o.Seed, Stream, mosaKey))
			}},
		{Info{Name: "gavel-ftf-oracle", Display: "Finish-time fairness (Gavel, oracle)", Oracle: true, Trigger: sim.TriggerEvery, Data: gavelData,
			Doc: "gavel-ftf reading true durations, as Gavel's simulator does: an upper bound, not a baseline"},
			func(o Options) (sim.Scheduler, error) {
				thr, err := GavelThroughputsAt(o.dataPath(GavelThroughputsFile))
				if err != nil {
					return nil, err
				}
				return NewGavelFTF("gavel-ftf-oracle", o.RoundS, thr, TrueDurations{})
			}},
	} {
		Register(h.info, h.make)
	}
}

func tiresiasConfig(o Options) TiresiasConfig {
	if o.Tiresias == nil {
		if ParamRegistry.AtDefault(o.Params.set, TiresiasSection.Key()) {
			return TiresiasConfig{} // the reference's, as it always was
		}
		return TiresiasSection.Of(o.Params).config()
	}
	return *o.Tiresias
}

// dataPath is where o says a data file (Info.Data's Path) is: Data's
// entry, else under DataDir; "" when neither is given.
func (o Options) dataPath(rel string) string {
	if p, ok := o.Data[rel]; ok {
		return p
	}
	if o.DataDir == "" {
		return ""
	}
	return filepath.Join(o.DataDir, filepath.FromSlash(rel))
}

// gittinsData and gavelData are the data files of the Gittins and Gavel
// policies.
var (
	gittinsData = []DataFile{{Path: GittinsSamplesFile}}
	gavelData   = []DataFile{{Path: GavelThroughputsFile, Optional: true}}
)
