package datasets

import (
	"fmt"
	"hash/maphash"
	"unicode/utf8"
)

// Plausible ranges of the jobs table's fields. Every reader that writes
// jobs checks each job against them (JobsIngest.AcceptRow) and quarantines
// a job outside them, naming the field: a value beyond them is a corrupt
// or misread row, and downstream it would turn into infinite fees, NaN
// utilisation or a job whose completion time rounds away. The bounds are
// generous on purpose (no real trace comes near them); the README's field
// table lists them.
const (
	// MaxSubmitS bounds submit_s (≥ 0): about 127 years, room for a trace
	// whose clock is Unix-epoch seconds, while a float64 submission still
	// resolves better than a microsecond (9.2e18 s would resolve 2048 s).
	MaxSubmitS = 4e9
	// MaxDurationS bounds duration_s (≥ 0; 0 is kept): ten years.
	MaxDurationS = 10 * 365 * 24 * 3600.0
	// MaxInstances bounds a task's instances (≥ 1) and a job's instances
	// summed over its tasks.
	MaxInstances = 1 << 20
	// MaxGPUPerInstance bounds a task's gpu per instance (≥ 0): the
	// largest servers hold 16 GPUs.
	MaxGPUPerInstance = 64.0
	// MaxCPUPerInstance bounds a task's cpu per instance (≥ 0), cores.
	MaxCPUPerInstance = 4096.0
	// MaxMemGiBPerInstance bounds a task's mem_gib per instance (≥ 0):
	// 64 TiB.
	MaxMemGiBPerInstance = 65536.0
)

// CheckJob returns a *BadField naming the first field of j outside its
// plausible range (the Max… constants above; every number ≥ 0 and finite,
// every job at least one task), or nil. Strings must be valid UTF-8 and the
// job id non-empty.
func CheckJob(j *Job) *BadField {
	switch {
	case j.JobID == "":
		return &BadField{Field: "job_id", Reason: "empty"}
	case !utf8.ValidString(j.JobID):
		return &BadField{Field: "job_id", Reason: "invalid UTF-8"}
	case !utf8.ValidString(j.User):
		return &BadField{Field: "user", Reason: "invalid UTF-8"}
	case !utf8.ValidString(j.Status):
		return &BadField{Field: "status", Reason: "invalid UTF-8"}
	case !utf8.ValidString(j.Model):
		return &BadField{Field: "model", Reason: "invalid UTF-8"}
	}
	if bf := inRange("submit_s", j.SubmitS, MaxSubmitS); bf != nil {
		return bf
	}
	if bf := inRange("duration_s", j.DurationS, MaxDurationS); bf != nil {
		return bf
	}
	if len(j.Tasks) == 0 {
		return &BadField{Field: "tasks", Reason: "no task"}
	}
	var inst int64
	for i := range j.Tasks {
		t := &j.Tasks[i]
		if t.Instances < 1 || t.Instances > MaxInstances {
			return &BadField{Field: "instances", Reason: fmt.Sprintf("%d outside the plausible range [1, %d]", t.Instances, MaxInstances)}
		}
		inst += int64(t.Instances)
		if !utf8.ValidString(t.Role) {
			return &BadField{Field: "role", Reason: "invalid UTF-8"}
		}
		if bf := inRange("gpu", t.GPU, MaxGPUPerInstance); bf != nil {
			return bf
		}
		if bf := inRange("cpu", t.CPU, MaxCPUPerInstance); bf != nil {
			return bf
		}
		if bf := inRange("mem_gib", t.MemGiB, MaxMemGiBPerInstance); bf != nil {
			return bf
		}
	}
	if inst > MaxInstances {
		return &BadField{Field: "instances", Reason: fmt.Sprintf("%d over all tasks, beyond the plausible %d", inst, MaxInstances)}
	}
	return nil
}

// inRange checks that v is in [0, max] (so neither NaN nor infinite).
func inRange(field string, v, max float64) *BadField {
	if v >= 0 && v <= max {
		return nil
	}
	return &BadField{Field: field, Reason: fmt.Sprintf("%g outside the plausible range [0, %g]", v, max)}
}

// jobIDs remembers the job ids an ingest accepted, to quarantine a repeat.
// A key is a 128-bit hash of the id (two independently seeded maphash
// values), not the string: 32 bytes an entry with where it was first seen, whatever the id's length and
// no allocation; among the few million ids of the largest trace a
// collision has a probability below 2⁻⁸⁰.
type jobIDs struct {
	seeds [2]maphash.Seed
	seen  map[[2]uint64]jobIDAt
	files []string // by jobIDAt.file
	index map[string]int32
}

// jobIDAt is where a job id was first accepted.
type jobIDAt struct {
	file int32
	line int64
}

func newJobIDs() *jobIDs {
	return &jobIDs{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()},
		seen: map[[2]uint64]jobIDAt{}, index: map[string]int32{}}
}

// add records key as accepted at file:line; when it was recorded before,
// it returns where instead (dup true).
func (s *jobIDs) add(key, file string, line int64) (where string, dup bool) {
	k := [2]uint64{maphash.String(s.seeds[0], key), maphash.String(s.seeds[1], key)}
	if at, dup := s.seen[k]; dup {
		return fmt.Sprintf("%s:%d", s.files[at.file], at.line), true
	}
	fi, ok := s.index[file]
	if !ok {
		fi = int32(len(s.files))
		s.files = append(s.files, file)
		s.index[file] = fi
	}
	s.seen[k] = jobIDAt{file: fi, line: line}
	return "", false
}

// check is CheckJob, then the duplicate check: nil means j is new and
// plausible, and is now recorded.
func (s *jobIDs) check(file string, line int64, j *Job) *BadField {
	if bf := CheckJob(j); bf != nil {
		return bf
	}
	if where, dup := s.add(j.JobID, file, line); dup {
		return &BadField{Field: "job_id", Reason: fmt.Sprintf("duplicate job id %q: first at %s", truncate(j.JobID, 64), where)}
	}
	return nil
}

// CheckNode returns a *BadField naming the first field of n outside its
// plausible range, or nil: a node (one server) holds at most
// MaxCPUPerInstance cores, MaxMemGiBPerInstance GiB and MaxGPUPerInstance
// GPUs, as one instance may ask for; its name is non-empty UTF-8.
func CheckNode(n *ClusterNode) *BadField {
	switch {
	case n.Node == "":
		return &BadField{Field: "node", Reason: "empty"}
	case !utf8.ValidString(n.Node) || !utf8.ValidString(n.GPUModel) || !utf8.ValidString(n.NodeList):
		return &BadField{Field: "node", Reason: "invalid UTF-8"}
	case n.GPUs < 0 || float64(n.GPUs) > MaxGPUPerInstance:
		return &BadField{Field: "gpus", Reason: fmt.Sprintf("%d outside the plausible range [0, %g]", n.GPUs, MaxGPUPerInstance)}
	}
	if bf := inRange("cpu", n.CPU, MaxCPUPerInstance); bf != nil {
		return bf
	}
	return inRange("mem_gib", n.MemGiB, MaxMemGiBPerInstance)
}

// checkNode is CheckNode, then the duplicate check on (node list, node):
// nil means n is new and plausible, and is now recorded.
func (s *jobIDs) checkNode(file string, line int64, n *ClusterNode) *BadField {
	if bf := CheckNode(n); bf != nil {
		return bf
	}
	if where, dup := s.add(n.NodeList+"\x00"+n.Node, file, line); dup {
		return &BadField{Field: "node", Reason: fmt.Sprintf("duplicate node %q of %s: first at %s", truncate(n.Node, 64), n.NodeList, where)}
	}
	return nil
}
