package profiling

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU is the CPU time the calling OS thread has used, user and
// system, from the kernel's per-thread clock: nanoseconds of scheduler
// accounting, where /proc/thread-self/stat counts 10 ms ticks (a 20 ms
// run read as 0, 1 or 2 of them).
func threadCPU() (time.Duration, error) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, fmt.Errorf("%w: clock_gettime(CLOCK_THREAD_CPUTIME_ID): %v", ErrNoProc, err)
	}
	return time.Duration(ts.Nano()), nil
}

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
