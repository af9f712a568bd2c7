package temporaltest

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sourcegraph/conc"
)

// rolloutsConfig layers MARL training of two rollouts per update over the
// quick preset's marl-arrivals (issue 33, item 2): each training's
// episodes go in iterations of two, side by side on the workers its
// executor lends. The fat-tree is k = 8 and the episodes 20 intervals
// long, so that the training is most of the run and the logged wall
// times say what the workers buy (2 cores, two runs: 7.6–8.7 s on one
// worker, 4.7–4.8 s on two, 4.7–5.5 s through Temporal).
const rolloutsConfig = `eval:
  experiments: [marl-arrivals]
  marl_arrivals:
    k: 8
    intervals: 4
train:
  marl:
    episodes: 4
    rollouts: 2
    intervals: 20
`

// TestRolloutsSameBytesAcrossExecutors runs marl-arrivals with two
// rollouts per MARL update in process on one worker and on two, through
// the local executor on one and two, and through Temporal on two worker
// processes of two slots each. On an executor the training runs in the
// driver and each rollout's step from one decision point to the next is
// a task (train.step) on whichever worker takes it; a worker that did
// not run the rollout's last step replays the episode to it. Every
// output is byte-identical; the wall time of each run is logged, and how
// many steps each Temporal worker ran.
func TestRolloutsSameBytesAcrossExecutors(t *testing.T) {
	hp, ns := server(t)
	endpoint := "temporal://" + hp + "/" + ns
	dir := t.TempDir()
	cfg := filepath.Join(dir, "rollouts.yaml")
	if err := os.WriteFile(cfg, []byte(rolloutsConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	one, two, tem := filepath.Join(dir, "one"), filepath.Join(dir, "two"), filepath.Join(dir, "temporal")
	t0 := time.Now()
	schedlab(t, "run", "--preset", "quick", "--config", cfg, "--workers", "1", "--out", one)
	t.Logf("in process, 1 worker: %v", time.Since(t0).Round(time.Millisecond))
	t0 = time.Now()
	schedlab(t, "run", "--preset", "quick", "--config", cfg, "--workers", "2", "--out", two)
	t.Logf("in process, 2 workers: %v", time.Since(t0).Round(time.Millisecond))
	sameOutputs(t, one, two)
	for _, w := range []string{"1", "2"} {
		dir := filepath.Join(dir, "local-"+w)
		t0 = time.Now()
		schedlab(t, "run", "--preset", "quick", "--config", cfg, "--workers", w, "--executor", "local", "--out", dir)
		t.Logf("local executor, %s workers: %v", w, time.Since(t0).Round(time.Millisecond))
		sameOutputs(t, one, dir)
	}
	// The trainings did take two rollouts per update (the sidecar records
	// more than one).
	sidecars, err := filepath.Glob(filepath.Join(one, "models", "marl-*", "*", "policy.json"))
	if err != nil || len(sidecars) == 0 {
		t.Fatalf("no MARL model in %s (%v)", one, err)
	}
	for _, p := range sidecars {
		if b, err := os.ReadFile(p); err != nil || !strings.Contains(string(b), `"rollouts": 2`) {
			t.Errorf("%s does not record two rollouts (%v):\n%s", p, err, b)
		}
	}

	// Two worker processes; their logs, read to the end once they exit,
	// say where the trainings ran.
	var readers conc.WaitGroup
	var logs [2]strings.Builder
	var stop []func()
	for i := range 2 {
		w, out, r := workerProcess(t, hp, ns, "--slots", "2")
		readers.Go(func() {
			for out.Scan() {
				logs[i].WriteString(out.Text() + "\n")
			}
		})
		stop = append(stop, func() { w.Process.Signal(syscall.SIGTERM); w.Wait(); r.Close() })
	}
	defer func() {
		for _, f := range stop {
			f()
		}
		readers.Wait()
		for i := range logs {
			t.Logf("worker %d ran %d tasks, %d of them rollouts' steps", i+1, strings.Count(logs[i].String(), "task started"), strings.Count(logs[i].String(), "kind=train.step"))
		}
	}()
	time.Sleep(2 * time.Second)
	t0 = time.Now()
	out := schedlab(t, "run", "--preset", "quick", "--config", cfg, "--executor", endpoint, "--out", tem)
	t.Logf("temporal, 2 worker processes of 2 slots: %v", time.Since(t0).Round(time.Millisecond))
	if !strings.Contains(out, "stage on temporal") {
		t.Fatalf("no stage ran on temporal:\n%s", out)
	}
	sameOutputs(t, one, tem)
	// The logs are whole once the workers have stopped.
	for _, f := range stop {
		f()
	}
	stop = nil
	readers.Wait()
	if !strings.Contains(logs[0].String()+logs[1].String(), "kind=train.step") {
		t.Errorf("no worker ran a rollout's step (train.step)")
	}
}
