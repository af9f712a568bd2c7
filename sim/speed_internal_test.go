package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/schedlab/schedlab/datasets"
)

// TestServerSlowdownsExact checks, at every decision point of runs whose
// servers hold many instances, that the slowdown serverSlowdowns kept for
// each running instance is, to the bit, instanceSlowdown's: its sums over
// the co-runners taken afresh in srvInst's order. The loads mix whole
// cores (the exact path: a socket's total less the instance's own) with
// fractions of a core (the ordered path), with and without a GPU-sharing
// term; the test fails if either path went unchecked.
func TestServerSlowdownsExact(t *testing.T) {
	c, err := Flat(3, "pai-v100")
	if err != nil {
		t.Fatal(err)
	}
	share := SharingModel{Interference: DefaultInterference(), Sharing: ShareTerm{Form: ShareFormLinear, Params: []float64{0.9, -0.3, -0.4}},
		Profiles: []GPUProfile{{Model: "a", GPUUtil: 0.4}, {Model: "b", GPUUtil: 0.9}}}
	for _, tc := range []struct {
		name  string
		model Interference
		frac  bool // some loads are fractions of a core
	}{
		{"whole-cores", nil, false},
		{"fractions", nil, true},
		{"gpu-sharing", share, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(11, 12))
			cpus, fracs := []float64{1, 2, 3, 6, 16}, []float64{0.05, 0.1, 0.3, 0.7, 2.5}
			var jobs []datasets.Job
			for k := range 150 {
				jobs = append(jobs, datasets.Job{
					JobID: fmt.Sprintf("j%d", k), SubmitS: float64(k) * 40, DurationS: 300 + r.Float64()*3000,
					Model: MARLModels[r.IntN(len(MARLModels))],
					Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: int32(1 + r.IntN(4)),
						GPU: []float64{0, 0.25, 0.5, 1}[r.IntN(4)], CPU: cpus[r.IntN(len(cpus))], MemGiB: 4}},
				})
				if tc.frac && r.IntN(12) == 0 {
					jobs[k].Tasks[0].CPU = fracs[r.IntN(len(fracs))]
				}
			}
			s, err := New(c, jobs, DefaultConfig(), tc.model)
			if err != nil {
				t.Fatal(err)
			}
			if s.fromSums == nil {
				t.Fatal("the model has no form given the sums: serverSlowdowns is not used")
			}
			var exact, ordered int
			spreadAll(t, s, func() {
				for server, insts := range s.srvInst {
					whole := true
					for _, e := range insts {
						whole = whole && e.c == math.Trunc(e.c)
					}
					if len(insts) > 1 && whole {
						exact++
					} else if len(insts) > 1 {
						ordered++
					}
					for _, e := range insts {
						js := &s.jobs[e.job]
						if js.work == 0 {
							continue
						}
						got := js.instSlow[e.inst]
						want := s.instanceSlowdown(js.Instances[e.inst].Load, int(e.job), int(e.inst), server, int(e.socket), nil)
						if math.Float64bits(got) != math.Float64bits(want) {
							t.Fatalf("t=%g: server %d, job %d instance %d: kept slowdown %v, recomputed %v", s.now, server, e.job, e.inst, got, want)
						}
					}
				}
			})
			if exact == 0 || tc.frac && ordered == 0 {
				t.Fatalf("checked %d busy servers of whole cores and %d with fractions: a path went unchecked", exact, ordered)
			}
			t.Logf("%d busy servers of whole cores, %d with fractions", exact, ordered)
		})
	}
}
