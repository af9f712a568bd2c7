package schedulers

import (
	"github.com/schedlab/schedlab/sim"
)

// Durations is where a duration-aware policy (MALO, MOSA) gets a job's
// run time from. Observe is called at every decision, before any
// Duration or Remaining of that decision. A Durations must not read
// State.Since.Progress: the policies that use one promise
// sim.ProgressBlind.
type Durations interface {
	// Observe learns from what the decision's state shows.
	Observe(st *sim.State)
	// Duration is a pending job's standalone run time, seconds.
	Duration(st *sim.State, j *sim.JobState) float64
	// Remaining is a running job's time left, seconds.
	Remaining(st *sim.State, j *sim.JobState) float64
}

// DurationPrior is HistoryEstimator's estimate before any job has
// finished: every job gets the same one, so it orders nothing; it only
// weighs run time against waiting in the meta-heuristics' surrogate for
// the first minutes of a run.
const DurationPrior = 3600.0

// HistoryEstimator estimates a job's duration from the jobs that have
// finished so far, as a scheduler could at submission: the mean standalone
// duration of the same user's finished jobs, else the mean of all finished
// jobs, else DurationPrior (Alibaba's PAI simulator estimates a duration
// from the history of the job's group, Weng et al., NSDI 2022; our traces
// keep the user, not the group). A finished job's work is the past: its
// iterations times its profiled step time. A running job's remaining time
// is its estimate less the time it has run, at least zero. It reads no
// job's DurationS before the job has finished and never a running job's
// progress.
//
// One estimator follows one run: it remembers each job's user from the
// decision that saw it pending.
type HistoryEstimator struct {
	users map[string]*runningMean
	all   runningMean
	user  map[int]string // job index → user, for jobs not yet finished
}

type runningMean struct {
	n   int
	sum float64
}

func (m *runningMean) add(x float64) { m.n++; m.sum += x }

// NewHistoryEstimator returns an estimator that has seen nothing.
func NewHistoryEstimator() *HistoryEstimator {
	return &HistoryEstimator{users: map[string]*runningMean{}, user: map[int]string{}}
}

// Observe implements Durations: it notes the user of every pending and
// running job and learns the durations of the jobs finished since the
// previous decision.
func (h *HistoryEstimator) Observe(st *sim.State) {
	for _, js := range [2][]*sim.JobState{st.Pending, st.Running} {
		for _, j := range js {
			if _, ok := h.user[j.Index]; !ok {
				h.user[j.Index] = userOf(j)
			}
		}
	}
	for _, r := range st.Since.Finished {
		h.Finish(h.user[r.Index], r.DurationS)
		delete(h.user, r.Index)
	}
}

// Finish records that a job of user ran for durationS seconds.
func (h *HistoryEstimator) Finish(user string, durationS float64) {
	h.all.add(durationS)
	m := h.users[user]
	if m == nil {
		m = &runningMean{}
		h.users[user] = m
	}
	m.add(durationS)
}

// Estimate is the estimated duration of a job of user, seconds.
func (h *HistoryEstimator) Estimate(user string) float64 {
	if m := h.users[user]; m != nil && m.n > 0 {
		return m.sum / float64(m.n)
	}
	if h.all.n > 0 {
		return h.all.sum / float64(h.all.n)
	}
	return DurationPrior
}

// Duration implements Durations.
func (h *HistoryEstimator) Duration(_ *sim.State, j *sim.JobState) float64 {
	return h.Estimate(userOf(j))
}

// Remaining implements Durations.
func (h *HistoryEstimator) Remaining(st *sim.State, j *sim.JobState) float64 {
	return max(h.Estimate(userOf(j))-(st.Now-j.StartS), 0)
}

func userOf(j *sim.JobState) string {
	if j.Job == nil {
		return ""
	}
	return j.Job.User
}

// TrueDurations reads the simulator's truth: each job's standalone
// duration and each running job's finish time at its current rate. No real
// scheduler knows them; the oracle rows (malo-oracle, mosa-oracle) use it
// as an upper bound.
type TrueDurations struct{}

// Observe implements Durations.
func (TrueDurations) Observe(*sim.State) {}

// Duration implements Durations.
func (TrueDurations) Duration(_ *sim.State, j *sim.JobState) float64 { return j.DurationS }

// Remaining implements Durations.
func (TrueDurations) Remaining(st *sim.State, j *sim.JobState) float64 {
	return j.ExpectedFinishS(st.Now) - st.Now
}
