package schedulers_test

import (
	"context"
	"fmt"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
)

// Two 8-GPU jobs and a 4-GPU job arrive on two 8-GPU servers. FIFO with
// first fit starts the first two at once and the third when one finishes;
// the names a user types go through Canonical first.
func ExampleNew() {
	name, err := schedulers.Canonical("FIFO-FF")
	if err != nil {
		panic(err)
	}
	s, err := schedulers.New(name, schedulers.Options{})
	if err != nil {
		panic(err)
	}
	job := func(id string, submit, dur, gpus float64) datasets.Job {
		return datasets.Job{JobID: id, SubmitS: submit, DurationS: dur,
			Tasks: []datasets.Task{{Role: "worker", Instances: 1, GPU: gpus, CPU: 8, MemGiB: 32}}}
	}
	jobs := []datasets.Job{job("a", 0, 3600, 8), job("b", 0, 1800, 8), job("c", 60, 600, 4)}
	c, err := sim.Flat(2, "pai-v100")
	if err != nil {
		panic(err)
	}
	cfg := sim.DefaultConfig()
	cfg.Speed = "standalone" // a pure replay: jobs run for their durations
	res, err := sim.Run(context.Background(), c, jobs, s, cfg, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(schedulers.Display(string(name)))
	for _, j := range res.Jobs {
		fmt.Printf("%s start %4.0f s  JCT %4.0f s\n", j.JobID, j.StartS, j.JCTS)
	}
	// Output:
	// FIFO-FirstFit
	// a start    0 s  JCT 3600 s
	// b start    0 s  JCT 1800 s
	// c start 1800 s  JCT 2340 s
}
