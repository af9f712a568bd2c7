package evaluation

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
)

// Workload kinds.
const (
	// KindTrace replays a jobs table (a canonical jobs Parquet file, or the
	// seeded PAI-like generator when none is given): sorted by submission,
	// jobs too large for any cluster of the spec pruned, the first MaxJobs
	// kept, and the last TestFraction of them (by submission) evaluated.
	KindTrace = "trace"
	// KindUniform submits JobsPerPod jobs per pod in every interval.
	KindUniform = datasets.MARLUniform
	// KindPoisson submits Poisson(JobsPerPod) jobs per pod per interval.
	KindPoisson = datasets.MARLPoisson
	// KindGoogle follows an arrivals table (interval, start_s, jobs), e.g.
	// Google 2011 submissions per 30 minutes, scaled so that the mean is
	// JobsPerPod per pod per interval.
	KindGoogle = datasets.MARLGoogle
)

// Spec is one experiment: the matrix of cells cluster × workload ×
// scheduler × seed, and the simulator configuration they share. It is plain
// data; Validate checks it.
type Spec struct {
	// Experiment is the id (das-table1, marl-arrivals, ...); it names the
	// output tables and plots and is the first part of every cell key.
	Experiment string `mapstructure:"experiment" yaml:"experiment" json:"experiment"`
	// Clusters, in table order.
	Clusters []Cluster `mapstructure:"clusters" yaml:"clusters" json:"clusters"`
	// Workloads, in table order.
	Workloads []Workload `mapstructure:"workloads" yaml:"workloads" json:"workloads"`
	// Schedulers are registry names (schedulers.Names, aliases accepted).
	// Learned schedulers join the matrix by joining the registry.
	Schedulers []string `mapstructure:"schedulers" yaml:"schedulers" json:"schedulers"`
	// Seeds is the number of replicates per cell (seed column 0..Seeds-1).
	// Each replicate draws its own synthetic workload and scheduler
	// randomness from (run seed, cell key); a jobs file is the same in all.
	Seeds int `mapstructure:"seeds" yaml:"seeds" json:"seeds"`
	// Replicates gives a learned scheduler several independently trained
	// models on a cluster: "scheduler@cluster" (the canonical name and the
	// spec's cluster name) maps to the number of models, each a replicate
	// (replicate column 0..n-1) evaluated on every seed. Absent means one
	// model (replicate 0), as for every heuristic. Left out of the JSON
	// when empty, so that a spec without replicates hashes as before.
	Replicates map[string]int `mapstructure:"replicates" yaml:"replicates,omitempty" json:"replicates,omitempty"`
	// Sim configures every cell's simulation.
	Sim sim.Config `mapstructure:"sim" yaml:"sim" json:"sim"`
	// Notes are said under the experiment's tables: what the plan left
	// out of the matrix and why (a row whose data file the run lacks).
	// Left out of the JSON when empty, so that a spec without hashes as
	// before.
	Notes []string `mapstructure:"notes" yaml:"notes,omitempty" json:"notes,omitempty"`
	// Params are the heuristics' parameters the run sets (sched.<name>),
	// passed to every heuristic the cells build. Only sections away from
	// their defaults are written, and none at all when every one is at
	// its default, so that such a spec hashes as before.
	Params schedulers.Params `mapstructure:"-" yaml:"params,omitempty" json:"params,omitzero"`
}

// Cluster is a named cluster of the matrix.
type Cluster struct {
	Name string          `mapstructure:"name" yaml:"name" json:"name"`
	Spec sim.ClusterSpec `mapstructure:"spec" yaml:"spec" json:"spec"`
}

// Workload is a named workload of the matrix. Which fields matter depends
// on Kind; the others are ignored.
type Workload struct {
	Name string `mapstructure:"name" yaml:"name" json:"name"`
	Kind string `mapstructure:"kind" yaml:"kind" json:"kind"`

	// JobsFile (trace) is a canonical jobs Parquet file; "" means the
	// seeded PAI-like generator (datasets.GeneratePAILike) with
	// SyntheticJobs jobs.
	JobsFile      string `mapstructure:"jobs_file" yaml:"jobs_file" json:"jobs_file"`
	SyntheticJobs int    `mapstructure:"synthetic_jobs" yaml:"synthetic_jobs" json:"synthetic_jobs"`
	// MaxJobs (trace) keeps the first MaxJobs jobs by submission after
	// pruning (20,000 in the DAS paper); all of them when the data holds
	// fewer.
	MaxJobs int `mapstructure:"max_jobs" yaml:"max_jobs" json:"max_jobs"`
	// TestFraction (trace) is the share of the kept jobs, the last by
	// submission, that is simulated and evaluated (0.2: the DAS 8:2 split;
	// the first part is the training split of the learned schedulers).
	TestFraction float64 `mapstructure:"test_fraction" yaml:"test_fraction" json:"test_fraction"`
	// ArrivalRate (trace) multiplies the arrival rate of the evaluated
	// jobs: their submission times, measured from the first, are divided
	// by it (DAS Fig. 7: 0.5 low, 1 normal, 2 high). 0 means 1.
	ArrivalRate float64 `mapstructure:"arrival_rate" yaml:"arrival_rate" json:"arrival_rate"`
	// Source (trace), when set, names the ingested trace the workload
	// replays (a datasets source: philly-gavel, elasticflow, pai-sim): a
	// run gives it that source's jobs table as JobsFile when it ingests
	// the source, and none when it does not; then the workload's cells
	// are skipped, as the tables say, never drawn from the generator.
	Source string `mapstructure:"source" yaml:"source,omitempty" json:"source,omitempty"`
	// RestartS (trace), when > 0, is what resuming a preempted job costs
	// in this workload's cells, in place of sim.restart_s: one trace at
	// two restart costs is two workloads, side by side in one table.
	RestartS float64 `mapstructure:"restart_s" yaml:"restart_s,omitempty" json:"restart_s,omitempty"`

	// JobsPerPod (uniform, poisson, google) is the (mean) number of jobs
	// each pod receives per interval of Sim.IntervalS seconds; 0 means the
	// MARL paper's load scaled to each cluster's pods (MARLPaperLoad).
	JobsPerPod float64 `mapstructure:"jobs_per_pod" yaml:"jobs_per_pod" json:"jobs_per_pod"`
	// Intervals (uniform, poisson, google) is how many intervals receive
	// jobs; google uses the first Intervals rows of the arrivals table.
	Intervals int `mapstructure:"intervals" yaml:"intervals" json:"intervals"`
	// ArrivalsFile (google) is an arrivals table: Parquet or CSV with
	// columns interval, start_s, jobs. Without one the workload's cells are
	// skipped and the report says so.
	ArrivalsFile string `mapstructure:"arrivals_file" yaml:"arrivals_file" json:"arrivals_file"`
	// Shape (uniform, poisson, google) is the jobs' shape; the zero value
	// is the MARL paper's (datasets.DefaultMARLShape). The run-wide key
	// sim.job_shape sets it on every MARL workload. Left out of the JSON
	// when zero, so that a spec of the paper's shape hashes as before.
	Shape datasets.MARLShape `mapstructure:"job_shape" yaml:"job_shape,omitempty" json:"job_shape,omitzero"`
}

// MARLJobsPerPod is the MARL paper's 15 jobs per pod per interval (§VI-B),
// whose pods on the k=20 fat-tree hold 100 servers, scaled to the
// (k/2)² servers of a pod of a k-ary fat-tree so that a smaller cluster
// carries the same load per server.
func MARLJobsPerPod(k int) float64 { return 15 * float64(k*k/4) / 100 }

// MARLPaperLoad is the MARL paper's 15 jobs per pod of 100 servers per
// interval scaled to the mean pod of c (servers / pods), so that any
// topology carries the paper's load per server: 2.4 on a fat-tree k=8,
// 3 on VL2 k=4 (pods of 20), 4.8 on BCube(4,2) (pods of 32).
func MARLPaperLoad(c *sim.Cluster) float64 {
	return 15 * float64(len(c.Servers)) / float64(max(c.Pods, 1)) / 100
}

// LoadWorkloadName names das-load's workload at an arrival-rate factor:
// x0.5, x1, x2.
func LoadWorkloadName(rate float64) string { return "x" + strconv.FormatFloat(rate, 'g', -1, 64) }

// WithFiles is s with the jobs and arrivals file of every workload mapped
// by f (a file "" stays ""): an artifact name to its path in a run, a
// path to its base name. The workloads are copied; s is left as it is.
func (s Spec) WithFiles(f func(string) string) Spec {
	s.Workloads = slices.Clone(s.Workloads)
	for i := range s.Workloads {
		w := &s.Workloads[i]
		if w.JobsFile != "" {
			w.JobsFile = f(w.JobsFile)
		}
		if w.ArrivalsFile != "" {
			w.ArrivalsFile = f(w.ArrivalsFile)
		}
	}
	return s
}

// Validate checks the spec; messages name the field.
func (s Spec) Validate() error {
	if s.Experiment == "" || strings.ContainsAny(s.Experiment, "/\\ ") {
		return fmt.Errorf("experiment: want a non-empty id without slashes or spaces, got %q", s.Experiment)
	}
	err := validateNamed("clusters", s.Clusters, func(c Cluster) string { return c.Name }, func(i int, c Cluster) error {
		if err := c.Spec.Validate(); err != nil {
			return fmt.Errorf("clusters[%d] (%s): %w", i, c.Name, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = validateNamed("workloads", s.Workloads, func(w Workload) string { return w.Name }, func(i int, w Workload) error {
		if err := w.validate(s.Sim); err != nil {
			return fmt.Errorf("workloads[%d] (%s).%w", i, w.Name, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(s.Schedulers) == 0 {
		return errors.New("schedulers: none given")
	}
	names, err := s.SchedulerNames()
	if err != nil {
		return err
	}
	for i, n := range names {
		if slices.Index(names, n) < i {
			return fmt.Errorf("schedulers[%d]: %q given twice", i, n)
		}
	}
	if s.Seeds < 1 {
		return fmt.Errorf("seeds: must be >= 1, got %d", s.Seeds)
	}
	if err := s.validateReplicates(names); err != nil {
		return err
	}
	if err := s.Sim.Validate(); err != nil {
		return err
	}
	return nil
}

// validateNamed checks the entries of a named list of the spec (field:
// clusters, workloads): at least one, each named (checkName), no name
// twice, and each entry by check, in order; the first error is returned.
func validateNamed[T any](field string, entries []T, name func(T) string, check func(int, T) error) error {
	if len(entries) == 0 {
		return fmt.Errorf("%s: none given", field)
	}
	seen := map[string]bool{}
	for i, e := range entries {
		n := name(e)
		if err := checkName(n); err != nil {
			return fmt.Errorf("%s[%d].name: %w", field, i, err)
		}
		if seen[n] {
			return fmt.Errorf("%s[%d].name: %q given twice", field, i, n)
		}
		seen[n] = true
		if err := check(i, e); err != nil {
			return err
		}
	}
	return nil
}

// MaxReplicates bounds the trained models per learned scheduler and
// cluster (train.seeds): each is a full training.
const MaxReplicates = 100

// ReplicateKey is the key of Spec.Replicates for a scheduler (canonical
// name) on a cluster (the spec's name for it).
func ReplicateKey(scheduler schedulers.Name, cluster string) string {
	return string(scheduler) + "@" + cluster
}

// ReplicatesOf is the number of models of scheduler on cluster: 1 unless
// Replicates says more.
func (s Spec) ReplicatesOf(scheduler schedulers.Name, cluster string) int {
	if n, ok := s.Replicates[ReplicateKey(scheduler, cluster)]; ok {
		return n
	}
	return 1
}

// validateReplicates checks that every key of Replicates names a learned
// scheduler of the spec and one of its clusters, with 1 to MaxReplicates
// models (only a trained model can be replicated: a heuristic's
// replicates are its seeds).
func (s Spec) validateReplicates(names []schedulers.Name) error {
	for _, k := range slices.Sorted(maps.Keys(s.Replicates)) {
		n := s.Replicates[k]
		name, cluster, ok := strings.Cut(k, "@")
		switch {
		case !ok:
			return fmt.Errorf("replicates[%q]: want scheduler@cluster", k)
		case !slices.Contains(names, schedulers.Name(name)):
			return fmt.Errorf("replicates[%q]: %q is not a (canonical) scheduler of the spec", k, name)
		case !schedulers.Name(name).Learned():
			return fmt.Errorf("replicates[%q]: %s is a heuristic; only a learned scheduler has trained models to replicate", k, name)
		case !slices.ContainsFunc(s.Clusters, func(c Cluster) bool { return c.Name == cluster }):
			return fmt.Errorf("replicates[%q]: the spec has no cluster %q", k, cluster)
		case n < 1 || n > MaxReplicates:
			return fmt.Errorf("replicates[%q]: must be in [1, %d], got %d", k, MaxReplicates, n)
		}
	}
	return nil
}

func checkName(n string) error {
	if n == "" || strings.ContainsAny(n, "/\\ ,") {
		return fmt.Errorf("want a non-empty name without slashes, commas or spaces, got %q", n)
	}
	return nil
}

func (w Workload) validate(cfg sim.Config) error {
	switch w.Kind {
	case KindTrace:
		if w.JobsFile == "" && w.Source == "" && w.SyntheticJobs < 1 {
			return fmt.Errorf("synthetic_jobs: must be >= 1 when no jobs_file or source is given, got %d", w.SyntheticJobs)
		}
		if !(w.RestartS >= 0) || math.IsInf(w.RestartS, 0) {
			return fmt.Errorf("restart_s: must be >= 0 (0: sim.restart_s) and finite, got %v", w.RestartS)
		}
		if w.MaxJobs < 1 {
			return fmt.Errorf("max_jobs: must be >= 1, got %d", w.MaxJobs)
		}
		if !(w.TestFraction > 0 && w.TestFraction <= 1) {
			return fmt.Errorf("test_fraction: must be in (0, 1], got %v", w.TestFraction)
		}
		if !(w.ArrivalRate >= 0) || math.IsInf(w.ArrivalRate, 0) {
			return fmt.Errorf("arrival_rate: must be >= 0 (0: the trace's rate) and finite, got %v", w.ArrivalRate)
		}
	case KindUniform, KindPoisson, KindGoogle:
		if !(w.JobsPerPod >= 0) || math.IsInf(w.JobsPerPod, 0) {
			return fmt.Errorf("jobs_per_pod: must be >= 0 (0: the paper's load per pod) and finite, got %v", w.JobsPerPod)
		}
		if w.Intervals < 1 {
			return fmt.Errorf("intervals: must be >= 1, got %d", w.Intervals)
		}
		if !(cfg.IntervalS > 0) {
			return fmt.Errorf("kind: %s needs sim.interval_s > 0, got %v", w.Kind, cfg.IntervalS)
		}
		if err := w.Shape.Validate(); err != nil {
			return err
		}
	default:
		return fmt.Errorf("kind: unknown %q (want %s, %s, %s or %s)", w.Kind, KindTrace, KindUniform, KindPoisson, KindGoogle)
	}
	return nil
}

// Cell is one point of the matrix; its fields are the cell key.
type Cell struct {
	Experiment string
	Cluster    string
	Workload   string
	Scheduler  schedulers.Name
	Seed       int
	// Replicate is the trained model a learned scheduler's cell
	// evaluates (0..Spec.ReplicatesOf-1); 0 for every heuristic.
	Replicate int

	// positions in the spec, for ordering
	ci, wi, si int
}

// Key is "experiment/cluster/workload/scheduler/seed", and "/r<n>" for
// replicate n > 0: the name of the cell in errors and logs.
func (c Cell) Key() string {
	k := fmt.Sprintf("%s/%s/%s/%s/%d", c.Experiment, c.Cluster, c.Workload, c.Scheduler, c.Seed)
	if c.Replicate > 0 {
		k += fmt.Sprintf("/r%d", c.Replicate)
	}
	return k
}

// SchedulerNames are the canonical names of s.Schedulers, in order; an
// unknown name is an error naming its index.
func (s Spec) SchedulerNames() ([]schedulers.Name, error) {
	out := make([]schedulers.Name, len(s.Schedulers))
	for i, name := range s.Schedulers {
		n, err := schedulers.Canonical(name)
		if err != nil {
			return nil, fmt.Errorf("schedulers[%d]: %w", i, err)
		}
		out[i] = n
	}
	return out, nil
}

// cells enumerates the matrix in spec order (cluster, workload, scheduler,
// replicate, seed), with the canonical scheduler names of SchedulerNames.
func (s Spec) cells(names []schedulers.Name) []Cell {
	var out []Cell
	for ci, c := range s.Clusters {
		for wi, w := range s.Workloads {
			for si, canon := range names {
				for rep := 0; rep < s.ReplicatesOf(canon, c.Name); rep++ {
					for r := 0; r < s.Seeds; r++ {
						out = append(out, Cell{Experiment: s.Experiment, Cluster: c.Name, Workload: w.Name, Scheduler: canon, Seed: r, Replicate: rep, ci: ci, wi: wi, si: si})
					}
				}
			}
		}
	}
	return out
}
