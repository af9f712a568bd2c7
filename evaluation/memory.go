package evaluation

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
)

// A configuration whose size keys are each inside their range can still
// ask for more memory than the host has (eval.marl_arrivals.k = 100: a
// fat-tree of 250,000 servers). Validate refuses it up front with the
// estimate, rather than let the run die of an out-of-memory crash.
//
// The estimate is a lower bound of what one cell holds at its peak, from
// the structures whose size the configuration fixes:
//   - the simulator's routing: one distance table per destination switch
//     (sim.Size.RouteTables) over every node of the topology;
//   - the jobs a cell holds (its jobs, their tasks and results);
//   - the training of a learned scheduler whose family declares what it
//     holds per server of the cluster it is trained on
//     (training.TrainBytesPerServer: the marl family's).
//
// Cells, stages and rollouts that run side by side each hold their own,
// so a run can need several times the estimate; refusing on a lower bound
// never refuses a run that fits.

// jobBytes is what a cell holds per job at least: the job, one task and
// its result (strings' bytes left out).
const jobBytes = int64(unsafe.Sizeof(datasets.Job{}) + unsafe.Sizeof(datasets.Task{}) + unsafe.Sizeof(sim.JobResult{}))

// memoryNeed is the estimate for one cluster of an experiment.
type memoryNeed struct {
	key string // the configuration section that sizes it
	// clusterKey and jobsKey are the keys that size its cluster and its
	// jobs: the refusal names the one whose part is the larger.
	clusterKey, jobsKey string
	cluster             string
	size                sim.Size
	routes              int64 // bytes of routing tables
	jobs                int64 // jobs one cell holds
	train               int64 // bytes of a marl-family training, 0 when none
}

func (m memoryNeed) bytes() int64 { return m.routes + m.jobs*jobBytes + m.train }

func (m memoryNeed) String() string {
	s := fmt.Sprintf("cluster %s of %d servers and %d nodes: routing tables %s, %d jobs per cell %s",
		m.cluster, m.size.Servers, m.size.Nodes, gib(m.routes), m.jobs, gib(m.jobs*jobBytes))
	if m.train > 0 {
		s += ", marl training " + gib(m.train)
	}
	return s
}

func gib(b int64) string { return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30)) }

// checkMemory refuses each listed experiment whose estimate exceeds limit
// bytes (limit <= 0: no check), naming its section, the estimate and the
// limit.
func checkMemory(c *Config, limit int64, limitFrom string) []error {
	var errs []error
	for _, need := range memoryNeeds(c) {
		if limit > 0 && need.bytes() > limit {
			key := need.clusterKey
			if need.jobs*jobBytes > need.routes+need.train {
				key = need.jobsKey
			}
			errs = append(errs, fmt.Errorf("%s: %s would need at least %s of memory (%v), more than the limit of %s (%s)",
				key, need.key, gib(need.bytes()), need, gib(limit), limitFrom))
		}
	}
	return errs
}

// memoryNeeds estimates, for each experiment c lists, its largest
// cluster's need (or an error's, for a cluster that cannot be sized).
func memoryNeeds(c *Config) []memoryNeed {
	var out []memoryNeed
	for _, id := range c.Experiments {
		e, err := Lookup(id)
		if err != nil {
			continue // Validate names it
		}
		switch {
		case e.Spec != nil && e.Configure != nil:
			s := e.Spec()
			e.Configure(c, &s)
			if need, ok := specNeed(e.ConfigKey(), s); ok {
				need.clusterKey, need.jobsKey = sizeKeys(e)
				out = append(out, need)
			}
		case e.ID == Sensitivity && slices.Contains(SensitivitySection.Get(c).Parts, SensitivityMARLDevice):
			m := SensitivitySection.Get(c).MARLDevice
			s := Spec{
				Clusters:   []Cluster{{Name: fmt.Sprintf("fattree-k%d", m.K), Spec: sim.ClusterSpec{Topology: "fattree", K: m.K, Servers: "power8"}}},
				Workloads:  []Workload{{Kind: KindUniform, Intervals: max(m.Intervals, m.TrainIntervals)}},
				Schedulers: []string{SensitivityMARLDevice},
			}
			if need, ok := specNeed("eval.sensitivity", s); ok {
				need.clusterKey, need.jobsKey = "eval.sensitivity.marl_device.k", "eval.sensitivity.marl_device.intervals"
				out = append(out, need)
			}
		}
	}
	return out
}

// sizeKeys are the keys of e's section (eval.marl_arrivals) that size
// its cluster (k, else clusters) and its jobs (max_jobs, else
// jobs_per_pod, else intervals); the DAS experiments, whose sections have
// neither, share das-table1's clusters and trace (configureDASTrace).
func sizeKeys(e Experiment) (cluster, jobs string) {
	cluster, jobs = dasTraceSection+".max_jobs", dasTraceSection+".max_jobs"
	st := e.sectionType()
	if st == nil {
		return cluster, jobs
	}
	section := e.ConfigKey()
	fields := map[string]bool{}
	for j := range st.NumField() {
		name, _, _ := strings.Cut(st.Field(j).Tag.Get("json"), ",")
		fields[name] = true
	}
	for _, k := range []string{"clusters", "k"} {
		if fields[k] {
			cluster = section + "." + k
		}
	}
	for _, k := range []string{"intervals", "jobs_per_pod", "max_jobs"} {
		if fields[k] {
			jobs = section + "." + k
		}
	}
	return cluster, jobs
}

// dasTraceSection is das-table1's section, whose trace keys the DAS
// experiments share (their clusters are fixed).
const dasTraceSection = "eval.das_table1"

// specNeed is the need of s's largest cluster; false when a cluster or
// scheduler is invalid (the experiment's own checks name it).
func specNeed(key string, s Spec) (memoryNeed, bool) {
	var perServer int64 // the most any learned row's training holds
	for _, n := range s.Schedulers {
		if info, ok := schedulers.Lookup(n); ok {
			perServer = max(perServer, training.TrainBytesPerServer(info.Name))
		}
	}
	var worst memoryNeed
	found := false
	for _, cl := range s.Clusters {
		size, err := cl.Spec.Size()
		if err != nil {
			return memoryNeed{}, false
		}
		need := memoryNeed{key: key, cluster: cl.Name, size: size,
			routes: int64(size.RouteTables) * sim.RouteTableBytes(size.Nodes)}
		for _, w := range s.Workloads {
			need.jobs = max(need.jobs, workloadJobs(w, size))
		}
		need.train = int64(size.Servers) * perServer
		if !found || need.bytes() > worst.bytes() {
			worst, found = need, true
		}
	}
	return worst, found
}

// workloadJobs is how many jobs one cell of w on a cluster of size holds:
// a trace's kept jobs (unknown for a jobs file: 0, as for a lower bound),
// or the mean arrivals per pod and interval over every pod and interval.
func workloadJobs(w Workload, size sim.Size) int64 {
	switch w.Kind {
	case KindTrace:
		if w.JobsFile != "" {
			return 0
		}
		return int64(min(w.MaxJobs, w.SyntheticJobs))
	default:
		perPod := w.JobsPerPod
		if perPod == 0 {
			perPod = 15 * float64(size.Servers) / float64(max(size.Pods, 1)) / 100 // MARLPaperLoad
		}
		n := perPod * float64(size.Pods) * float64(w.Intervals)
		if !(n < math.MaxInt64/2) {
			return math.MaxInt64 / 2 / jobBytes
		}
		return int64(n)
	}
}

// memoryLimit is the limit checkMemory holds configurations to: the Go
// runtime's (GOMEMLIMIT) when one is set, else the host's memory or its
// cgroup's limit, whichever is lower; 0 when none can be read.
var memoryLimit = sync.OnceValues(func() (int64, string) {
	if l := debug.SetMemoryLimit(-1); l < math.MaxInt64 {
		return l, "GOMEMLIMIT"
	}
	limit, from := int64(0), ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == "MemTotal:" {
				if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil && kb > 0 {
					limit, from = kb<<10, "the host's memory; set GOMEMLIMIT for another limit"
				}
			}
		}
	}
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && v > 0 && (limit == 0 || v < limit) {
			limit, from = v, "the cgroup's memory.max; set GOMEMLIMIT for another limit"
		}
	}
	return limit, from
})
