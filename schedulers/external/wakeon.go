package external

import (
	"fmt"
	"math"

	"github.com/schedlab/schedlab/sim"
)

// wakeOn is what a policy declared, in its hello's wake_on (protocol 2),
// as the decision points it wants to be asked at. The zero value asks at
// every one, as protocol 1 does.
type wakeOn struct {
	filter  bool // wake_on was given: ask only when one of the below holds
	arrival bool // a job arrived since the last message
	finish  bool // a job finished since the last message
	fit     bool // one of those, and some pending job could start
}

// parseWakeOn reads a hello's wake_on list.
func parseWakeOn(version int, list []string) (wakeOn, error) {
	if version < 2 {
		return wakeOn{}, fmt.Errorf("%w: wake_on needs protocol 2, the policy speaks %d", ErrMalformed, version)
	}
	if len(list) == 0 {
		return wakeOn{}, fmt.Errorf(`%w: wake_on is empty: the policy would never be asked (leave it out to be asked at every decision point)`, ErrMalformed)
	}
	w := wakeOn{filter: true}
	for _, e := range list {
		switch e {
		case "arrival":
			w.arrival = true
		case "finish":
			w.finish = true
		case "fit":
			w.fit = true
		default:
			return wakeOn{}, fmt.Errorf(`%w: wake_on %q: want "arrival", "finish" or "fit"`, ErrMalformed, e)
		}
	}
	return w, nil
}

// wanted says whether the policy is asked at st. Besides what it
// declared, it is always asked at the time its last answer asked to be
// woken, and whenever jobs wait on an idle cluster (so that a skipped
// decision point can never be the one the engine calls a stall).
func (p *Policy) wanted(st *sim.State) bool {
	a := p.ask
	if !a.filter {
		return true
	}
	if len(st.Pending) > 0 && len(st.Running) == 0 {
		return true
	}
	if p.wake > 0 && st.Now >= p.wake {
		return true
	}
	arrived := len(st.Pending) > p.waiting // jobs pending that were never announced
	finished := len(p.held) > 0 || len(st.Since.Finished) > 0
	switch {
	case a.arrival && arrived, a.finish && finished:
		return true
	case a.fit && (arrived || finished):
		return anyFits(st)
	}
	return false
}

// anyFits says whether some pending job could start on what is free: its
// total fits the free total, and each run of its identical instances
// fits, copy for copy, in what the servers have free. Both are necessary
// for any placement (the copies are counted with a slack larger than the
// rounding of the engine's sums), so where no job passes, a policy that
// only starts jobs can start none.
func anyFits(st *sim.State) bool {
	var total sim.Resources
	for _, f := range st.Free {
		total = total.Add(f)
	}
	for _, shape := range st.PendingShapes() {
		if couldFit(shape[0], st.Free, total) {
			return true
		}
	}
	return false
}

// slack is added to each free amount when copies are counted: far above
// the engine's tolerance per placement (1e-9), far below any demand.
const slack = 1e-6

func couldFit(js *sim.JobState, free []sim.Resources, total sim.Resources) bool {
	if !js.Total.Fits(total) {
		return false
	}
	for i := 0; i < len(js.Instances); {
		d := js.Instances[i].Demand
		k := i + 1
		for k < len(js.Instances) && js.Instances[k].Demand == d {
			k++
		}
		need := k - i
		i = k
		for _, f := range free {
			need -= copies(d, f)
			if need <= 0 {
				break
			}
		}
		if need > 0 {
			return false
		}
	}
	return true
}

// copies is how many instances of demand d fit in free f, or a large
// number when d asks for nothing.
func copies(d, f sim.Resources) int {
	n := math.MaxInt32
	for _, p := range [3][2]float64{{d.GPU, f.GPU}, {d.CPU, f.CPU}, {d.MemGiB, f.MemGiB}} {
		if p[0] > 0 {
			n = min(n, int(math.Floor((p[1]+slack)/p[0])))
		}
	}
	return max(n, 0)
}
