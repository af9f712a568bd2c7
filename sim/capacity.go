package sim

// Capacity: the feasibility checks of placements (per server), the choice
// of home sockets, and the test that a job fits the empty cluster at all.

import (
	"fmt"
	"slices"

	"github.com/schedlab/schedlab/internal/sortorder"
)

// take is what one instance took from one socket.
type take struct {
	server, socket int32
	gpu, cpu       float64
}

// instRef is one instance homed on a server, as srvInst lists them: the
// co-runners interference is computed from.
type instRef struct {
	job      int32
	inst     int32
	socket   int32
	hasAlone bool
	c, p     float64 // the instance's Load.C and Load.P, read here without a visit to its job
	g, u     float64 // its GPU request and its job's standalone GPU utilisation (GPU sharing)
	alone    float64 // its standalone slowdown term when hasAlone (sumsSlowdown)
}

// fitsEmpty packs the job's instances first-fit-decreasing (by GPU, then
// CPU, then memory) on the empty cluster and returns why it cannot, or "".
func fitsEmpty(caps []Resources, js *JobState) string {
	var total, biggest Resources
	for _, c := range caps {
		total = total.Add(c)
		if c.GPU > biggest.GPU || (c.GPU == biggest.GPU && c.CPU > biggest.CPU) {
			biggest = c
		}
	}
	if js.Total.Fits(biggest) {
		return "" // all instances on the largest server
	}
	if !js.Total.Fits(total) {
		return fmt.Sprintf("requests %g GPU, %g cores, %g GiB in all; the cluster has %g, %g, %g",
			js.Total.GPU, js.Total.CPU, js.Total.MemGiB, total.GPU, total.CPU, total.MemGiB)
	}
	inst := make([]Resources, len(js.Instances))
	for i, in := range js.Instances {
		inst[i] = in.Demand
	}
	slices.SortStableFunc(inst, func(a, b Resources) int {
		switch {
		case a.GPU != b.GPU:
			return sortorder.Desc(a.GPU, b.GPU)
		case a.CPU != b.CPU:
			return sortorder.Desc(a.CPU, b.CPU)
		}
		return sortorder.Desc(a.MemGiB, b.MemGiB)
	})
	free := append([]Resources(nil), caps...)
	for _, d := range inst {
		ok := false
		for k := range free {
			if d.Fits(free[k]) {
				free[k] = free[k].Sub(d)
				ok = true
				break
			}
		}
		if !ok {
			return fmt.Sprintf("its %d instances (largest %g GPU, %g cores, %g GiB) cannot be packed on the empty cluster",
				len(inst), inst[0].GPU, inst[0].CPU, inst[0].MemGiB)
		}
	}
	return ""
}

func (s *Sim) check(d Decision) error {
	pl := d.Start
	s.scratch = append(s.scratch[:0], s.free...)
	s.checkStamp++
	if len(s.seen) != len(s.jobs) {
		s.seen = make([]uint32, len(s.jobs))
	}
	if err := s.checkPreempt(d.Preempt); err != nil {
		return err
	}
	if len(d.Preempt) > 0 {
		s.checkStamp++ // a job preempted here fails the start's status test
	}
	bad := func(p Placement, format string, a ...any) error {
		id := ""
		if p.Job >= 0 && p.Job < len(s.jobs) {
			id = s.jobs[p.Job].Job.JobID
		}
		return fmt.Errorf("sim: at t=%gs: job %q (index %d): %w: %s", s.now, id, p.Job, ErrInfeasible, fmt.Sprintf(format, a...))
	}
	for _, p := range pl {
		if p.Job < 0 || p.Job >= len(s.jobs) {
			return bad(p, "no such job")
		}
		js := &s.jobs[p.Job]
		if js.Status != StatusPending {
			return bad(p, "job is not pending (status %d)", js.Status)
		}
		if s.seen[p.Job] == s.checkStamp {
			return bad(p, "placed twice in one decision")
		}
		s.seen[p.Job] = s.checkStamp
		if len(p.Slots) != len(js.Instances) {
			return bad(p, "%d slots for %d instances", len(p.Slots), len(js.Instances))
		}
		for i, sl := range p.Slots {
			if sl.Server < 0 || sl.Server >= len(s.free) {
				return bad(p, "instance %d on server %d of %d", i, sl.Server, len(s.free))
			}
			if sl.Socket < -1 || sl.Socket >= len(s.sockFree[sl.Server]) {
				return bad(p, "instance %d on socket %d of server %d, which has %d", i, sl.Socket, sl.Server, len(s.sockFree[sl.Server]))
			}
			f := s.scratch[sl.Server]
			d := js.Instances[i].Demand
			if !d.Fits(f) {
				return bad(p, "instance %d needs %g GPU, %g cores, %g GiB on server %d, which has %g, %g, %g left",
					i, d.GPU, d.CPU, d.MemGiB, sl.Server, f.GPU, f.CPU, f.MemGiB)
			}
			s.scratch[sl.Server] = f.Sub(d)
		}
	}
	return nil
}

const (
	fitUnknown int8 = iota
	fitNo
	fitYes
)

// couldFit is a necessary condition for js to be placeable now: its total
// demand fits the total free resources and each instance fits some server's
// free resources on its own.
func (s *Sim) couldFit(js *JobState, freeTotal Resources) bool {
	if !js.Total.Fits(freeTotal) {
		return false
	}
	prev := Resources{GPU: -1}
	for _, in := range js.Instances {
		if in.Demand == prev {
			continue
		}
		prev = in.Demand
		ok := false
		for _, f := range s.free {
			if in.Demand.Fits(f) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

func (s *Sim) freeTotal() Resources {
	var t Resources
	for _, f := range s.free {
		t = t.Add(f)
	}
	return t
}

// Socket rules (Config.Socket): how the engine homes an instance that its
// placement leaves to it (Slot.Socket −1) on one of its server's sockets.
// The home socket is where the instance's co-runners interfere with it
// (DESIGN.md §3), so the rule is part of the environment.
const (
	// SocketMostFree homes it on the socket with the most free GPUs, then
	// cores: the engine's own choice, which spreads instances and so
	// helps every heuristic (the empty string means it).
	SocketMostFree = "most-free"
	// SocketFirstFit homes it on the lowest-index socket where its GPUs
	// and cores fit, as a framework that hands out the lowest free GPU
	// does; the most free socket when none fits whole.
	SocketFirstFit = "first-fit"
	// SocketRandom homes it on a socket where it fits, uniformly at
	// random from the run's socket stream (Config.SocketSeed); the most
	// free socket when none fits whole.
	SocketRandom = "random"
)

// SocketRules lists the socket rules, the default first.
var SocketRules = []string{SocketMostFree, SocketFirstFit, SocketRandom}

// chooseSocket picks the home socket for an instance with demand d by the
// configured rule (Config.Socket).
func (s *Sim) chooseSocket(server int, d Resources) int {
	sf := s.sockFree[server]
	switch s.cfg.Socket {
	case SocketFirstFit:
		for k, f := range sf {
			if d.GPU <= f.GPU && d.CPU <= f.CPU {
				return k
			}
		}
	case SocketRandom:
		n := 0
		for _, f := range sf {
			if d.GPU <= f.GPU && d.CPU <= f.CPU {
				n++
			}
		}
		if n > 0 {
			pick := s.sockRand.IntN(n)
			for k, f := range sf {
				if d.GPU <= f.GPU && d.CPU <= f.CPU {
					if pick == 0 {
						return k
					}
					pick--
				}
			}
		}
	}
	return mostFree(sf)
}

// predictSocket is the socket a scheduler's prediction (PredictSlowdown)
// assumes for an instance not yet placed: the rule's choice where it is
// deterministic (under first-fit, the first socket with a free GPU, else
// a free core); under random the most free one, without drawing from the
// run's stream.
func (s *Sim) predictSocket(server int) int {
	sf := s.sockFree[server]
	if s.cfg.Socket == SocketFirstFit {
		for k, f := range sf {
			if f.GPU > 0 {
				return k
			}
		}
		for k, f := range sf {
			if f.CPU > 0 {
				return k
			}
		}
	}
	return mostFree(sf)
}

// mostFree is the socket with the most free GPUs, then cores, the lowest
// index on ties.
func mostFree(sf []Resources) int {
	// The best so far is kept in registers, and socket 0 is not compared
	// with itself (it never beats itself).
	best, g, c := 0, sf[0].GPU, sf[0].CPU
	for k := 1; k < len(sf); k++ {
		if f := &sf[k]; f.GPU > g || (f.GPU == g && f.CPU > c) {
			best, g, c = k, f.GPU, f.CPU
		}
	}
	return best
}

// socketStream is the second word of the random socket rule's PCG state:
// a stable key ("sock"), so that the stream is a function of SocketSeed.
const socketStream = 0x736f636b
