package datasets

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestAlibabaV2023Fixture(t *testing.T) {
	w := func(id string, submit, dur float64, status string, gpu, cpu, mem float64) Job {
		return Job{JobID: id, Source: SourceAlibabaV2023, SubmitS: submit, DurationS: dur, Status: status,
			Tasks: []Task{{Role: RoleWorker, Instances: 1, GPU: gpu, CPU: cpu, MemGiB: mem}}}
	}
	got := checkFixture(t, SourceAlibabaV2023, "testdata/alibaba-v2023", []Job{
		w("openb-pod-0000", 0, 12537496, "Running", 1, 12, 16),
		w("openb-pod-0001", 427061, 12902960-427061, "Running", 0.46, 6, 12),
		w("openb-pod-0017", 9437497, 10769854-9437497, "Succeeded", 8, 88, 320),
		w("openb-pod-0035", 9967058, 9968575-9967063, "Running", 1, 16, 32),
		w("openb-pod-0090", 10018225, 38, "Failed", 0, 4, 8),
	})
	if len(got.rejected) != 1 || got.rejected[0].Line != 6 || got.rejected[0].Field != "scheduled_time" || !strings.Contains(got.rejected[0].Reason, "never scheduled") {
		t.Errorf("quarantine %+v", got.rejected)
	}
	if got.rep.Total != (Accounting{Read: 9, Accepted: 8, Quarantined: 1}) {
		t.Errorf("accounting %+v", got.rep.Total)
	}
	var cluster Output
	for _, o := range got.rep.Outputs {
		if o.Table == "cluster" {
			cluster = o
		}
	}
	nodes, err := ReadParquet[ClusterNode](cluster.Path)
	if err != nil {
		t.Fatal(err)
	}
	wantNodes := []ClusterNode{
		{SourceAlibabaV2023, "openb_node_list_gpu_node", "openb-node-0000", 64, 256, 2, "P100"},
		{SourceAlibabaV2023, "openb_node_list_gpu_node", "openb-node-0227", 32, 256, 0, ""},
		{SourceAlibabaV2023, "openb_node_list_gpu_node", "openb-node-0228", 128, 768, 8, "G3"},
	}
	if !reflect.DeepEqual(nodes, wantNodes) || cluster.Rows != 3 {
		t.Fatalf("nodes %+v", nodes)
	}
}

// TestAlibabaV2023Malformed: a pod list's malformed rows, and a node
// list's, whose rows are held to what a pod row begins with (the name,
// cpu_milli, memory_mib, every column), are quarantined.
func TestAlibabaV2023Malformed(t *testing.T) {
	header := "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time"
	checkMalformed(t, SourceAlibabaV2023, "openb_pod_list_test.csv", header, "p0,1000,1024,1,500,,LS,Running,10,20,12", []badRow{
		{"never scheduled", "p1,1000,1024,1,500,,LS,Pending,10,20,", "scheduled_time", "never scheduled"},
		{"never deleted", "p2,1000,1024,1,500,,LS,Running,10,,12", "deletion_time", "never deleted"},
		{"end before start", "p3,1000,1024,1,500,,LS,Running,10,11,12", "deletion_time", "end before start"},
		{"scheduled before created", "p4,1000,1024,1,500,,LS,Running,10,20,5", "scheduled_time", "before created"},
		{"gpu share over one", "p5,1000,1024,1,1500,,LS,Running,10,20,12", "gpu_milli", "> 1000"},
		{"negative cpu", "p6,-1000,1024,1,500,,LS,Running,10,20,12", "cpu_milli", "negative"},
		{"text memory", "p7,1000,lots,1,500,,LS,Running,10,20,12", "memory_mib", "not a number"},
		{"NaN creation", "p8,1000,1024,1,500,,LS,Running,NaN,20,12", "creation_time", "not finite"},
		{"short row", "p9,1000,1024", "", "fields"},
	})
	checkMalformed(t, SourceAlibabaV2023, "openb_node_list_gpu_node.csv", "sn,cpu_milli,memory_mib,gpu,model", "n0,96000,786432,8,V100M32", []badRow{
		{"empty sn", " ,96000,786432,8,V100M32", "sn", "empty"},
		{"negative node cpu", "n1,-1,786432,8,V100M32", "cpu_milli", "negative"},
		{"text node memory", "n2,96000,lots,8,V100M32", "memory_mib", "not a number"},
		{"short node row", "n3,96000,786432", "", "fields"},
	})
}

func TestAlibabaV2023MissingColumn(t *testing.T) {
	p := writeFile(t, t.TempDir(), "openb_pod_list_x.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,deletion_time,scheduled_time\n")
	if ie := refusedFile(t, SourceAlibabaV2023, p); ie.Field != "pod_phase" {
		t.Fatalf("%v, want an InputError naming pod_phase", ie)
	}
}

// TestAlibabaV2023Real ingests the 2023 trace: 8,152 pods, of which the
// 897 "Pending" pods (never scheduled) are quarantined, and 1,523 + 1,213
// nodes.
func TestAlibabaV2023Real(t *testing.T) {
	got, dir := ingestReal(t, SourceAlibabaV2023, "alibaba-gpu-v2023")
	pods := got.rep.PerFile[filepath.Join(dir, "openb_pod_list_default.csv")]
	if pods != (Accounting{Read: 8152, Accepted: 7255, Quarantined: 897}) {
		t.Fatalf("pods %+v, want 8152 read, 7255 accepted, 897 quarantined", pods)
	}
	if a := got.rep.PerFile[filepath.Join(dir, "openb_node_list_all_node.csv")]; a != (Accounting{Read: 1523, Accepted: 1523}) {
		t.Errorf("all nodes %+v", a)
	}
	if a := got.rep.PerFile[filepath.Join(dir, "openb_node_list_gpu_node.csv")]; a != (Accounting{Read: 1213, Accepted: 1213}) {
		t.Errorf("gpu nodes %+v", a)
	}
	for _, r := range got.rejected {
		if r.Field != "scheduled_time" || !strings.Contains(r.Reason, "Pending") {
			t.Fatalf("unexpected quarantine row %+v", r)
		}
	}
	if len(got.jobs) != 7255 {
		t.Fatalf("%d jobs", len(got.jobs))
	}
}

func FuzzAlibabaV2023(f *testing.F) {
	f.Add([]byte("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\nopenb-pod-0000,12000,16384,1,1000,,LS,Running,0,12537496,0\nopenb-pod-0061,11908,47104,1,1000,,BE,Pending,10001278,10001403,\n"))
	f.Add([]byte("sn,cpu_milli,memory_mib,gpu,model\nopenb-node-0000,64000,262144,2,P100\nx,1,2,-3,\n"))
	fuzzReader(f, SourceAlibabaV2023, "openb_pod_list_default.csv", func(ji *JobsIngest, path string) error {
		return ingestV2023File(ji, path, func(rows []ClusterNode) error {
			for _, n := range rows {
				if n.Node == "" || !(n.CPU >= 0) || !(n.MemGiB >= 0) || n.GPUs < 0 {
					return fmt.Errorf("accepted node %+v", n)
				}
			}
			return nil
		})
	})
}
