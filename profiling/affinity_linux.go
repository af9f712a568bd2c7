package profiling

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// pinThread binds the calling OS thread (the caller must hold
// runtime.LockOSThread) to one CPU.
func pinThread(cpu int) error {
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("sched_setaffinity cpu %d: %w", cpu, err)
	}
	return nil
}

// allowedCPUs lists the CPUs this process may run on.
func allowedCPUs() []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil
	}
	var out []int
	for i := 0; i < 1024 && len(out) < set.Count(); i++ {
		if set.IsSet(i) {
			out = append(out, i)
		}
	}
	return out
}
