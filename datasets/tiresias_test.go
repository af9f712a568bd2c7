package datasets

import (
	"strings"
	"testing"
)

func TestTiresiasFixture(t *testing.T) {
	checkFixture(t, SourceTiresias, "testdata/tiresias/trace.csv", []Job{
		{JobID: "trace/0", Source: SourceTiresias, SubmitS: 0, DurationS: 164, Model: "vgg19", Tasks: []Task{{Role: RoleWorker, Instances: 1, GPU: 1}}},
		// The simulator truncates durations: int(float("147.9")) = 147.
		{JobID: "trace/1", Source: SourceTiresias, SubmitS: 30, DurationS: 147, Model: "vgg11", Tasks: []Task{{Role: RoleWorker, Instances: 8, GPU: 1}}},
		{JobID: "trace/2", Source: SourceTiresias, SubmitS: 53, DurationS: 127, Model: "inception4", Tasks: []Task{{Role: RoleWorker, Instances: 1}}},
	})
}

func TestTiresiasMalformed(t *testing.T) {
	checkMalformed(t, SourceTiresias, "trace.csv", "job_id,num_gpu,submit_time,iterations,model_name,duration,interval", "a,1,0,5,vgg19,10,1", []badRow{
		{"fractional submit", "b,1,2.5,5,vgg19,10,1", "submit_time", "whole number"},
		{"negative duration", "c,1,3,5,vgg19,-2,1", "duration", "negative"},
		{"fractional gpus", "d,0.5,3,5,vgg19,10,1", "num_gpu", "whole number"},
		{"text gpus", "e,two,3,5,vgg19,10,1", "num_gpu", "not a number"},
		{"empty id", ",1,3,5,vgg19,10,1", "job_id", "empty"},
		{"repeated id", "a,1,4,5,vgg19,10,1", "job_id", "duplicate"},
	})
}

func TestTiresiasCluster(t *testing.T) {
	c, err := ReadTiresiasCluster("testdata/tiresias/n2g4.csv")
	if err != nil {
		t.Fatal(err)
	}
	if want := (TiresiasCluster{Switches: 1, NodesPerSwitch: 2, GPUsPerNode: 4, CPUsPerNode: 40, MemPerNodeGiB: 256}); c != want {
		t.Fatalf("got %+v, want %+v", c, want)
	}
	dir := t.TempDir()
	for _, tc := range []struct{ name, content, want string }{
		{"zero gpus", "num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\n1,2,0,40,256\n", "bad.csv:2: num_gpu_p_node"},
		{"two rows", "num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\n1,2,4,40,256\n1,2,4,40,256\n", "bad.csv:3: a cluster spec has one data row"},
		{"missing column", "num_switch,num_node_p_switch,num_gpu_p_node\n1,2,4\n", "num_cpu_p_node"},
		{"no row", "num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\n", "no data row"},
	} {
		_, err := ReadTiresiasCluster(writeFile(t, dir, "bad.csv", tc.content))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want it to mention %q", tc.name, err, tc.want)
		}
	}
}

// TestTiresiasReal ingests the shared Tiresias traces: 60 and 500 jobs,
// none quarantined.
func TestTiresiasReal(t *testing.T) {
	got, _ := ingestReal(t, SourceTiresias, "tiresias/traces")
	if len(got.jobs) != 560 || got.rep.Total.Quarantined != 0 {
		t.Fatalf("%d jobs, %d quarantined; want 560, 0", len(got.jobs), got.rep.Total.Quarantined)
	}
}
