package sim_test

import (
	"context"
	"fmt"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
)

// spread places every instance of every pending job on its own server, in
// order, and prints the network load the placement will add.
type spread struct{}

func (spread) Name() string { return "spread" }

func (spread) Schedule(_ context.Context, st *sim.State) ([]sim.Placement, error) {
	var out []sim.Placement
	for _, js := range st.Pending {
		slots := make([]sim.Slot, len(js.Instances))
		for i := range slots {
			slots[i] = sim.Slot{Server: i, Socket: -1}
		}
		for _, dl := range st.Cluster.FlowLinks(nil, js, slots) {
			from, to := st.Cluster.Topology.Ends(dl)
			fmt.Printf("flow %s → %s\n", st.Cluster.Topology.Nodes[from].Name, st.Cluster.Topology.Nodes[to].Name)
		}
		out = append(out, sim.Placement{Job: js.Index, Slots: slots})
	}
	return out, nil
}

// A ResNet-50 job of two workers on two power8 servers behind one switch
// (10 Gbit/s links) all-reduces over a ring of two: each iteration every
// server sends G = 0.816 Gbit to the other while receiving as much, the
// links being full duplex, so an ideal 0.25 s iteration takes
// 0.25 + 0.816/10 s and the 1000 s job runs 1000·0.3316/0.25 = 1326.4 s.
func ExampleRun() {
	c, err := sim.Flat(2, "power8")
	if err != nil {
		panic(err)
	}
	jobs := []datasets.Job{{JobID: "resnet", DurationS: 1000, Model: "resnet-50",
		Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: 2, GPU: 1, CPU: 2, MemGiB: 8}}}}
	res, err := sim.Run(context.Background(), c, jobs, spread{}, sim.DefaultConfig(), nil)
	if err != nil {
		panic(err)
	}
	j := res.Jobs[0]
	fmt.Printf("%s: JCT %.1f s, %.4f× its standalone time\n", j.JobID, j.JCTS, j.Slowdown)
	// Output:
	// flow s0 → tor
	// flow tor → s1
	// flow s1 → tor
	// flow tor → s0
	// resnet: JCT 1326.4 s, 1.3264× its standalone time
}
