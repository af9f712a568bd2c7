package main

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/schedlab/schedlab/internal/pythontest"
	"github.com/schedlab/schedlab/internal/shareddata"
)

// BenchmarkReplayCommand is issue 49's replay target as a user meets it:
// the whole `schedlab replay` of the PAI subset (6,000 jobs, DAS Small),
// a process of its own reading the trace, running and writing the CSV,
// with the built-in fifo-firstfit and with the Python FIFO-FirstFit
// example through --policy-cmd (its interpreter's start included), run
// alternately so that both meet the same load. It reports each one's
// wall and processor time (the command's and its policy's, both reaped)
// and the ratios, x-builtin-wall being the one the 5x is read
// against (docs/policy-protocol.md). The external package's
// BenchmarkPAIReplay times sim.Run alone.
func BenchmarkReplayCommand(b *testing.B) {
	py := pythontest.Interpreter(b)
	trace := shareddata.Path(b, "pai-v2020/operate_simulator_jobs_6000.csv")
	example, err := filepath.Abs(filepath.Join("..", "..", "python", "examples", "fifo_firstfit.py"))
	if err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(b.TempDir(), "out.csv")
	args := []string{"replay", "--trace", trace, "--format", "pai-sim", "--cluster", "small", "--seed", "1", "--out", out}
	run := func(policy ...string) (wall, cpu time.Duration) {
		c0 := childCPU()
		t0 := time.Now()
		_, stderr, code, err := runSchedlab(nil, append(args, policy...)...)
		wall = time.Since(t0)
		if err != nil || code != 0 {
			b.Fatalf("replay %v: exit %d, %v: %s", policy, code, err, stderr)
		}
		return wall, childCPU() - c0
	}
	var bw, bc, pw, pc time.Duration
	b.ResetTimer()
	for range b.N {
		w, c := run("--policy", "fifo-firstfit")
		bw, bc = bw+w, bc+c
		w, c = run("--policy-cmd", py+" "+example)
		pw, pc = pw+w, pc+c
	}
	n := float64(b.N)
	b.ReportMetric(bw.Seconds()/n, "builtin-wall-s/op")
	b.ReportMetric(bc.Seconds()/n, "builtin-cpu-s/op")
	b.ReportMetric(pw.Seconds()/n, "python-wall-s/op")
	b.ReportMetric(pc.Seconds()/n, "python-cpu-s/op")
	b.ReportMetric(float64(pw)/float64(bw), "x-builtin-wall")
	b.ReportMetric(float64(pc)/float64(bc), "x-builtin-cpu")
}

// childCPU is the user and system time of this process's reaped
// descendants.
func childCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
