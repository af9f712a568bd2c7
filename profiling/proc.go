package profiling

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// CPUTimes is one "cpu" or "cpuN" line of /proc/stat: cumulative clock
// ticks (USER_HZ) per state, in the kernel's order.
type CPUTimes struct {
	Line int
	CPU  string // "cpu" (all) or "cpu0", "cpu1", ...
	// User, Nice, System, Idle, IOWait, IRQ, SoftIRQ, Steal, Guest,
	// GuestNice; kernels before 2.6.33 print fewer (missing are 0).
	Ticks [10]uint64
}

// Busy is the ticks spent neither idle nor waiting for I/O. Guest time is
// already counted in User and Nice, so it is not added again.
func (c CPUTimes) Busy() uint64 {
	t := c.Ticks
	return t[0] + t[1] + t[2] + t[5] + t[6] + t[7]
}

// Total is all ticks except the guest ones (which User/Nice include).
func (c CPUTimes) Total() uint64 { return c.Busy() + c.Ticks[3] + c.Ticks[4] }

// ReadProcStat parses the cpu lines of a /proc/stat snapshot; other lines
// (intr, ctxt, btime, ...) are skipped.
func ReadProcStat(r io.Reader, name string) ([]CPUTimes, error) {
	ls := newLineScanner(r)
	var out []CPUTimes
	for {
		l, ok := ls.next()
		if !ok {
			break
		}
		f := strings.Fields(l)
		if len(f) == 0 || !strings.HasPrefix(f[0], "cpu") {
			continue
		}
		if f[0] != "cpu" {
			if _, err := strconv.Atoi(f[0][3:]); err != nil {
				return nil, parseErr(name, ls.line, f[0], "not a cpu line")
			}
		}
		if len(f) < 5 || len(f) > 11 {
			return nil, parseErr(name, ls.line, f[0], "%d tick fields, want 4 to 10", len(f)-1)
		}
		c := CPUTimes{Line: ls.line, CPU: f[0]}
		for i, s := range f[1:] {
			v, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				return nil, parseErr(name, ls.line, fmt.Sprintf("%s field %d", f[0], i+1), "not a tick count: %q", s)
			}
			c.Ticks[i] = v
		}
		out = append(out, c)
	}
	if err := ls.err(name); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, parseErr(name, 0, "", "no cpu lines: not /proc/stat")
	}
	return out, nil
}

// BusyCores is the average number of busy cores between two snapshots of
// the same cpu line: Δbusy/Δtotal × cpus (cpus = 1 for a cpuN line, the
// number of CPUs for the aggregate "cpu" line).
func BusyCores(before, after CPUTimes, cpus int) (float64, error) {
	if before.CPU != after.CPU {
		return 0, fmt.Errorf("profiling: comparing %s with %s", before.CPU, after.CPU)
	}
	if after.Total() < before.Total() || after.Busy() < before.Busy() {
		return 0, fmt.Errorf("profiling: %s ticks went backwards (a reboot between snapshots?)", after.CPU)
	}
	dt := after.Total() - before.Total()
	if dt == 0 {
		return 0, fmt.Errorf("profiling: %s: no ticks elapsed between snapshots", after.CPU)
	}
	return float64(after.Busy()-before.Busy()) / float64(dt) * float64(cpus), nil
}

// PidStat is what schedlab reads of /proc/<pid>/stat.
type PidStat struct {
	PID       int
	Comm      string // without the parentheses; may contain spaces and ')'
	State     byte
	UTime     uint64 // clock ticks in user mode (field 14)
	STime     uint64 // clock ticks in kernel mode (field 15)
	StartTime uint64 // ticks after boot (field 22)
	Processor int    // CPU last run on (field 39), -1 if absent
}

// ParsePidStat parses one /proc/<pid>/stat line. comm can hold spaces and
// parentheses, so the fields are counted after the last ')'.
func ParsePidStat(line, name string) (PidStat, error) {
	line = strings.TrimSpace(strings.TrimPrefix(line, "\ufeff"))
	open, close := strings.IndexByte(line, '('), strings.LastIndexByte(line, ')')
	if open < 0 || close < open {
		return PidStat{}, parseErr(name, 1, "comm", "no (comm) in %.40q", line)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line[:open]))
	if err != nil || pid <= 0 {
		return PidStat{}, parseErr(name, 1, "pid", "not a pid: %q", strings.TrimSpace(line[:open]))
	}
	f := strings.Fields(line[close+1:])
	// f[0] is field 3 (state), so field k is f[k-3].
	if len(f) < 20 {
		return PidStat{}, parseErr(name, 1, "", "%d fields after comm, want ≥ 20", len(f))
	}
	p := PidStat{PID: pid, Comm: line[open+1 : close], Processor: -1}
	if len(f[0]) != 1 {
		return PidStat{}, parseErr(name, 1, "state", "not a state letter: %q", f[0])
	}
	p.State = f[0][0]
	for _, x := range []struct {
		field int
		dst   *uint64
		name  string
	}{{14, &p.UTime, "utime"}, {15, &p.STime, "stime"}, {22, &p.StartTime, "starttime"}} {
		v, err := strconv.ParseUint(f[x.field-3], 10, 64)
		if err != nil {
			return PidStat{}, parseErr(name, 1, x.name, "not a tick count: %q", f[x.field-3])
		}
		*x.dst = v
	}
	if len(f) > 39-3 {
		if v, err := strconv.Atoi(f[39-3]); err == nil {
			p.Processor = v
		}
	}
	return p, nil
}

// ProcessCores is a process's average CPU use in cores between two
// snapshots of its stat taken wallSeconds apart; ticksPerSecond is USER_HZ
// (sysconf(_SC_CLK_TCK), 100 on Linux).
func ProcessCores(before, after PidStat, ticksPerSecond, wallSeconds float64) (float64, error) {
	if before.PID != after.PID || before.StartTime != after.StartTime {
		return 0, fmt.Errorf("profiling: pid %d/%d: not the same process", before.PID, after.PID)
	}
	b, a := before.UTime+before.STime, after.UTime+after.STime
	if a < b {
		return 0, fmt.Errorf("profiling: pid %d: cpu ticks went backwards", after.PID)
	}
	if !(wallSeconds > 0) || !(ticksPerSecond > 0) {
		return 0, fmt.Errorf("profiling: pid %d: wall time %g s, %g ticks/s", after.PID, wallSeconds, ticksPerSecond)
	}
	return float64(a-b) / ticksPerSecond / wallSeconds, nil
}
