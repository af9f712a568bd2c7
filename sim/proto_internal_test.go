package sim

import (
	"math"
	"testing"

	"github.com/schedlab/schedlab/datasets"
)

// TestSharedInstances checks which jobs New lets share their instances
// and profile: the same tasks to the bit and the same model do; a −0
// request beside a +0 one, another model, or another task list do not
// (each keeps exactly what its own tasks give). Shared instance slices
// are capped, so an append cannot reach another job's.
func TestSharedInstances(t *testing.T) {
	c, err := Flat(2, "pai-v100")
	if err != nil {
		t.Fatal(err)
	}
	task := func(gpu float64) []datasets.Task {
		return []datasets.Task{{Role: datasets.RoleWorker, Instances: 2, GPU: gpu, CPU: 4, MemGiB: 16}}
	}
	jobs := []datasets.Job{
		{JobID: "a", Model: "resnet", DurationS: 10, Tasks: task(0)},
		{JobID: "b", Model: "resnet", DurationS: 20, SubmitS: 1, Tasks: task(0)},
		{JobID: "c", Model: "resnet", DurationS: 10, Tasks: task(math.Copysign(0, -1))},
		{JobID: "d", Model: "bert", DurationS: 10, Tasks: task(0)},
		{JobID: "e", Model: "resnet", DurationS: 10, Tasks: task(1)},
	}
	s, err := New(c, jobs, DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	same := func(i, k int) bool { return &s.jobs[i].Instances[0] == &s.jobs[k].Instances[0] }
	if !same(0, 1) || s.jobs[0].Profile != s.jobs[1].Profile {
		t.Error("jobs a and b (same tasks and model) do not share instances and profile")
	}
	for _, k := range []int{2, 3, 4} {
		if same(0, k) {
			t.Errorf("job a shares its instances with job %s", jobs[k].JobID)
		}
	}
	if g := s.jobs[2].Instances[0].Demand.GPU; !math.Signbit(g) {
		t.Errorf("job c's GPU demand is %v, want its own −0", g)
	}
	if s.jobs[3].Profile.Name != "bert" || s.jobs[0].Profile.Name != "resnet" {
		t.Errorf("profiles %q, %q; want resnet, bert", s.jobs[0].Profile.Name, s.jobs[3].Profile.Name)
	}
	if s.jobs[1].work != 20 || s.jobs[1].DurationS != 20 {
		t.Errorf("job b's work %v, duration %v; want its own 20", s.jobs[1].work, s.jobs[1].DurationS)
	}
	for i := range s.jobs {
		if in := s.jobs[i].Instances; cap(in) != len(in) {
			t.Errorf("job %s: instances capped at %d for %d", jobs[i].JobID, cap(in), len(in))
		}
	}
}
