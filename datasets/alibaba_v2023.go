package datasets

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
)

// AlibabaV2023Reader reads Alibaba's GPU cluster trace 2023
// (alibaba/clusterdata cluster-trace-gpu-v2023/csv/, the trace of the
// "Beware of Fragmentation" paper, ATC '23). Two kinds of CSV, told apart by
// their header (columns found by name):
//
// Pod lists (openb_pod_list_*.csv: name, cpu_milli, memory_mib, num_gpu,
// gpu_milli, pod_phase, creation_time, deletion_time, scheduled_time; qos
// and gpu_spec are not carried over) → jobs. Each pod is a job of one
// worker task of one instance: cpu = cpu_milli/1000 cores, mem_gib =
// memory_mib/1024, gpu = gpu_milli/1000 when num_gpu is 1 (a share of one
// GPU; the trace's GPU-sharing pods) and num_gpu otherwise (whole GPUs,
// gpu_milli then being 1000 or 0). submit_s = creation_time; status =
// pod_phase. duration_s = deletion_time − scheduled_time, the time the pod
// held its resources; creation_time is not used as the start because the
// gap to scheduled_time is queueing, not running. A pod with no
// scheduled_time (every "Pending" pod of the default list: created, never
// placed, deleted after a short wait) has no run time and is quarantined
// with reason "never scheduled"; one with no deletion_time likewise ("never
// deleted"). A deletion before the scheduled time is quarantined as "end
// before start". The other pod lists upstream are samples of the default
// one: ingest one of them at a time, or job ids repeat.
//
// Node lists (openb_node_list_*.csv: sn, cpu_milli, memory_mib, gpu, model)
// → cluster.parquet, one ClusterNode row per node. The upstream "all_node"
// and "gpu_node" lists are different samples whose node names overlap, so
// each row keeps its list's name.
//
// Every job is then checked against the plausible ranges of CheckJob
// (MaxSubmitS, MaxDurationS, ...) and for a job id already accepted; a job
// that fails is quarantined naming the field.
//
// Inputs: files, or directories standing for their openb_*.csv files.
type AlibabaV2023Reader struct{}

func init() { Register(AlibabaV2023Reader{}) }

// Source implements Reader.
func (AlibabaV2023Reader) Source() string { return SourceAlibabaV2023 }

// Tables: jobs, and the cluster when a node list (openb_node_list_*.csv)
// is among the inputs.
func (AlibabaV2023Reader) Tables(names []string) []string {
	return withCluster(names, "node_list")
}

// Describe implements Reader.
func (AlibabaV2023Reader) Describe() string {
	return "Alibaba GPU trace 2023 openb_pod_list_*.csv → jobs (duration = deletion − scheduled), openb_node_list_*.csv → cluster, quarantine"
}

// ClusterNode is one row of the cluster table: one server of a trace's
// cluster and its capacity.
type ClusterNode struct {
	Source   string  `parquet:"source" json:"source"`
	NodeList string  `parquet:"node_list" json:"node_list"` // the list it came from, e.g. "openb_node_list_gpu_node"
	Node     string  `parquet:"node" json:"node"`           // node name (sn)
	CPU      float64 `parquet:"cpu" json:"cpu"`             // cores
	MemGiB   float64 `parquet:"mem_gib" json:"mem_gib"`
	GPUs     int32   `parquet:"gpus" json:"gpus"`
	GPUModel string  `parquet:"gpu_model" json:"gpu_model"` // "" when the node has none or the trace does not say
}

// addClusterTable closes nodes, the cluster table an ingest wrote beside
// its jobs (nil: none), and lists it in rep right after the jobs table.
func addClusterTable(rep *Report, req Request, nodes *ParquetWriter[ClusterNode]) error {
	if nodes == nil {
		return nil
	}
	n := nodes.Rows()
	if err := nodes.Close(); err != nil {
		return err
	}
	rep.Outputs = append(rep.Outputs[:1], append([]Output{{Table: "cluster", Path: req.OutPath(ClusterFile), Rows: n}}, rep.Outputs[1:]...)...)
	return nil
}

var (
	v2023PodColumns  = []string{"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "pod_phase", "creation_time", "deletion_time", "scheduled_time"}
	v2023NodeColumns = []string{"sn", "cpu_milli", "memory_mib", "gpu", "model"}
)

// Ingest implements Reader.
func (AlibabaV2023Reader) Ingest(ctx context.Context, req Request) (*Report, error) {
	var nodes *ParquetWriter[ClusterNode]
	defer func() {
		if nodes != nil {
			nodes.Abort()
		}
	}()
	writeNodes := func(rows []ClusterNode) error {
		if nodes == nil {
			var err error
			nodes, err = CreateParquet[ClusterNode](req.OutPath(ClusterFile), FileMeta{Source: SourceAlibabaV2023, ConfigHash: req.Meta.ConfigHash})
			if err != nil {
				return err
			}
		}
		return nodes.Write(rows)
	}
	rep, err := IngestJobFiles(ctx, req, SourceAlibabaV2023, []string{"openb_*.csv"}, func(ji *JobsIngest, path string) error {
		return ingestV2023File(ji, path, writeNodes)
	})
	if err != nil {
		return nil, err
	}
	if err := addClusterTable(rep, req, nodes); err != nil {
		return nil, err
	}
	return rep, nil
}

// ingestV2023File reads one pod or node list, telling them apart by the
// header; node rows go to writeNodes in batches.
func ingestV2023File(ji *JobsIngest, path string, writeNodes func([]ClusterNode) error) error {
	c, err := OpenCSV(path, CSVOptions{})
	if err != nil {
		return err
	}
	defer c.Close()
	if c.HasColumn("sn") {
		return ingestV2023Nodes(ji, c, writeNodes)
	}
	return ingestV2023Pods(ji, c)
}

func ingestV2023Pods(ji *JobsIngest, c *CSVFile) error {
	col, err := c.Columns(v2023PodColumns...)
	if err != nil {
		return err
	}
	return ji.EachJob(c, func(row *CSVRow) (Job, error) { return parseV2023Pod(row, col) })
}

func parseV2023Pod(row *CSVRow, col []int) (Job, error) {
	f := func(k int) string {
		if col[k] < len(row.Fields) {
			return strings.TrimSpace(row.Fields[col[k]])
		}
		return ""
	}
	name, cpu, mem, err := parseV2023Head(row, col, "name")
	if err != nil {
		return Job{}, err
	}
	ngpu, err := row.Count(col[3], "num_gpu", 0, math.MaxInt32)
	if err != nil {
		return Job{}, err
	}
	gpu := float64(ngpu)
	if ngpu == 1 {
		milli, err := row.NonNegative(col[4], "gpu_milli")
		if err != nil {
			return Job{}, err
		}
		if milli > 1000 {
			return Job{}, &BadField{Field: "gpu_milli", Reason: fmt.Sprintf("%v > 1000 for a one-GPU pod", milli)}
		}
		gpu = milli / 1000
	}
	created, err := row.NonNegative(col[6], "creation_time")
	if err != nil {
		return Job{}, err
	}
	if f(8) == "" {
		return Job{}, &BadField{Field: "scheduled_time", Reason: fmt.Sprintf("never scheduled (pod_phase %s): no run time", f(5))}
	}
	if f(7) == "" {
		return Job{}, &BadField{Field: "deletion_time", Reason: fmt.Sprintf("never deleted (pod_phase %s): run time unknown", f(5))}
	}
	sched, err := row.NonNegative(col[8], "scheduled_time")
	if err != nil {
		return Job{}, err
	}
	del, err := row.NonNegative(col[7], "deletion_time")
	if err != nil {
		return Job{}, err
	}
	if del < sched {
		return Job{}, &BadField{Field: "deletion_time", Reason: fmt.Sprintf("end before start: deleted at %v, scheduled at %v", del, sched)}
	}
	if sched < created {
		return Job{}, &BadField{Field: "scheduled_time", Reason: fmt.Sprintf("scheduled at %v before created at %v", sched, created)}
	}
	return Job{JobID: name, SubmitS: created, DurationS: del - sched, Status: f(5),
		Tasks: []Task{{Role: RoleWorker, Instances: 1, GPU: gpu, CPU: cpu / 1000, MemGiB: mem / 1024}}}, nil
}

func maxIndex(col []int) int {
	m := -1
	for _, c := range col {
		m = max(m, c)
	}
	return m
}

func ingestV2023Nodes(ji *JobsIngest, c *CSVFile, write func([]ClusterNode) error) error {
	col, err := c.Columns(v2023NodeColumns...)
	if err != nil {
		return err
	}
	list := strings.TrimSuffix(filepath.Base(c.Path()), filepath.Ext(c.Path()))
	buf := make([]ClusterNode, 0, quarantineBatch)
	// A node list, even one with no good row, gives a cluster table.
	if err := write(buf); err != nil {
		return err
	}
	err = ji.EachRow(c, func(row CSVRow) error {
		n, err := parseV2023Node(&row, col)
		if err != nil {
			return ji.RejectRow(c.Path(), row, err)
		}
		n.NodeList = list
		if ok, err := ji.AcceptNodeRow(c.Path(), row, &n); !ok || err != nil {
			return err
		}
		buf = append(buf, n)
		if len(buf) == cap(buf) {
			err = write(buf)
			buf = buf[:0]
		}
		return err
	})
	if err != nil {
		return err
	}
	if len(buf) > 0 {
		return write(buf)
	}
	return nil
}

func parseV2023Node(row *CSVRow, col []int) (ClusterNode, error) {
	name, cpu, mem, err := parseV2023Head(row, col, "sn")
	if err != nil {
		return ClusterNode{}, err
	}
	gpus, err := row.Count(col[3], "gpu", 0, math.MaxInt32)
	if err != nil {
		return ClusterNode{}, err
	}
	return ClusterNode{Source: SourceAlibabaV2023, Node: name, CPU: cpu / 1000, MemGiB: mem / 1024,
		GPUs: int32(gpus), GPUModel: strings.TrimSpace(row.Fields[col[4]])}, nil
}

// parseV2023Head reads what a pod row and a node row begin with (their
// columns 0 to 2): the name (column nameColumn, not empty), cpu_milli and
// memory_mib, after checking that the row has every column of the header.
func parseV2023Head(row *CSVRow, col []int, nameColumn string) (name string, cpuMilli, memMiB float64, err error) {
	if len(row.Fields) <= maxIndex(col) {
		return "", 0, 0, &BadField{Reason: fmt.Sprintf("row has %d fields, the header %d or more", len(row.Fields), maxIndex(col)+1)}
	}
	name = strings.TrimSpace(row.Fields[col[0]])
	if name == "" {
		return "", 0, 0, &BadField{Field: nameColumn, Reason: "empty"}
	}
	if cpuMilli, err = row.NonNegative(col[1], "cpu_milli"); err != nil {
		return "", 0, 0, err
	}
	if memMiB, err = row.NonNegative(col[2], "memory_mib"); err != nil {
		return "", 0, 0, err
	}
	return name, cpuMilli, memMiB, nil
}
