package external

import (
	"strconv"
	"unicode/utf8"

	"github.com/schedlab/schedlab/sim"
)

// Protocol is the newest version of docs/policy-protocol.md this package
// speaks; it accepts a policy that answers any version from 1 to it.
const Protocol = 3

// compact is the first version whose decide and end messages write
// arrivals and finishes as arrays and leave out empty lists.
const compact = 3

// The messages are written by hand rather than by encoding/json: they are
// the hot path of every decision (a few hundred bytes, no reflection), and
// the fields come out in the documented order.

func appendFloat(b []byte, x float64) []byte { return strconv.AppendFloat(b, x, 'g', -1, 64) }

func appendInt(b []byte, x int) []byte { return strconv.AppendInt(b, int64(x), 10) }

func appendKey(b []byte, key string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string; invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}

func appendResources(b []byte, r sim.Resources) []byte {
	b = append(b, `"gpu":`...)
	b = appendFloat(b, r.GPU)
	b = append(b, `,"cpu":`...)
	b = appendFloat(b, r.CPU)
	b = append(b, `,"mem_gib":`...)
	return appendFloat(b, r.MemGiB)
}

// appendAmounts writes r as protocol 3's arrays hold it: gpu,cpu,mem_gib.
func appendAmounts(b []byte, r sim.Resources) []byte {
	b = appendFloat(b, r.GPU)
	b = append(b, ',')
	b = appendFloat(b, r.CPU)
	b = append(b, ',')
	return appendFloat(b, r.MemGiB)
}

// appendCluster describes the servers: capacity, sockets and pod.
func appendCluster(b []byte, c *sim.Cluster) []byte {
	b = append(b, `{"name":`...)
	b = appendString(b, c.Name)
	b = append(b, `,"servers":[`...)
	for i := range c.Servers {
		if i > 0 {
			b = append(b, ',')
		}
		srv := &c.Servers[i]
		b = append(b, '{')
		b = appendResources(b, c.Capacity(i))
		b = append(b, `,"kind":`...)
		b = appendString(b, srv.Kind.Name)
		b = append(b, `,"pod":`...)
		b = appendInt(b, srv.Pod)
		b = append(b, `,"sockets":[`...)
		for k, so := range srv.Kind.Sockets {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"gpu":`...)
			b = appendFloat(b, so.GPUs)
			b = append(b, `,"cpu":`...)
			b = appendFloat(b, so.Cores)
			b = append(b, '}')
		}
		b = append(b, "]}"...)
	}
	return append(b, "]}"...)
}

// appendJob is an arrival: what a real scheduler sees of a submitted job,
// and its standalone duration only for an oracle.
func appendJob(b []byte, js *sim.JobState, oracle bool) []byte {
	j := js.Job
	b = append(b, `{"job":`...)
	b = appendInt(b, js.Index)
	b = append(b, `,"id":`...)
	b = appendString(b, j.JobID)
	b = append(b, `,"submit":`...)
	b = appendFloat(b, js.SubmitS)
	if j.User != "" {
		b = append(b, `,"user":`...)
		b = appendString(b, j.User)
	}
	if j.Model != "" {
		b = append(b, `,"model":`...)
		b = appendString(b, j.Model)
	}
	b = append(b, `,"tasks":[`...)
	for k, t := range j.Tasks {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"role":`...)
		b = appendString(b, t.Role)
		b = append(b, `,"instances":`...)
		b = appendInt(b, int(t.Instances))
		b = append(b, ',')
		b = appendResources(b, sim.Resources{GPU: t.GPU, CPU: t.CPU, MemGiB: t.MemGiB})
		b = append(b, '}')
	}
	b = append(b, ']')
	if oracle {
		b = append(b, `,"duration":`...)
		b = appendFloat(b, js.DurationS)
	}
	return append(b, '}')
}

// appendJob3 is appendJob's arrival in protocol 3's array form:
// [job, id, submit, [[role, instances, gpu, cpu, mem_gib], ...], user,
// model] and the standalone duration last, only for an oracle.
func appendJob3(b []byte, js *sim.JobState, oracle bool) []byte {
	j := js.Job
	b = append(b, '[')
	b = appendInt(b, js.Index)
	b = append(b, ',')
	b = appendString(b, j.JobID)
	b = append(b, ',')
	b = appendFloat(b, js.SubmitS)
	b = append(b, ',', '[')
	for k, t := range j.Tasks {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = appendString(b, t.Role)
		b = append(b, ',')
		b = appendInt(b, int(t.Instances))
		b = append(b, ',')
		b = appendAmounts(b, sim.Resources{GPU: t.GPU, CPU: t.CPU, MemGiB: t.MemGiB})
		b = append(b, ']')
	}
	b = append(b, ']', ',')
	b = appendString(b, j.User)
	b = append(b, ',')
	b = appendString(b, j.Model)
	if oracle {
		b = append(b, ',')
		b = appendFloat(b, js.DurationS)
	}
	return append(b, ']')
}

// appendFinish writes a finish in the form of version v.
func appendFinish(b []byte, r sim.JobResult, v int) []byte {
	if v < compact {
		return appendFinished(b, r)
	}
	b = append(b, '[')
	b = appendInt(b, r.Index)
	b = append(b, ',')
	b = appendFloat(b, r.FinishS)
	return append(b, ']')
}

func appendFinished(b []byte, r sim.JobResult) []byte {
	b = append(b, `{"job":`...)
	b = appendInt(b, r.Index)
	b = append(b, `,"finish":`...)
	b = appendFloat(b, r.FinishS)
	return append(b, '}')
}
