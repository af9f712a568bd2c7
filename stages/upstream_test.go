package stages

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/pipeline/pipelinetest"
)

// The shared upstream: the data, profile, fit and calibrate stages of
// quickConfig's DAG, run once per seed into a directory under
// upstreamRoot the first time a test asks for that seed (withUpstream),
// and only read after that. A test whose run needs these stages copies
// them into its run directory: the runner finds their outputs intact (its
// cache is keyed by each stage's name, version, configuration, inputs and
// seed) and does not compute them again. Under the race detector
// calibrate alone took 3-5 s a run, and eleven runs of this package's
// tests each computed it afresh.
//
// What a test finds there is what the stages would have written in its
// own directory: a test whose configuration changes one of them (another
// fit, a DAS calibration) computes that stage itself, as before. Their
// own checks — byte-identical reruns, one worker against two — are
// TestStagesConformance's and TestCalibrateStage's, which never use it.
// A new test whose DAG includes these stages of quickConfig should call
// withUpstream on its run directory before running.
var upstreamRoot string

var upstreams = struct {
	sync.Mutex
	bySeed map[uint64]*upstreamRun
}{bySeed: map[uint64]*upstreamRun{}}

type upstreamRun struct {
	once sync.Once
	dir  string
	err  error
}

// upstreamStages are the shared upstream's stages.
var upstreamStages = []string{"synthetic-jobs", "jobs-summary", "profile-synth", "fit", "calibrate"}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "stages-upstream-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	upstreamRoot = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// withUpstream copies the shared upstream run at seed into run directory
// dir, making it first if no test has asked for seed yet.
func withUpstream(t *testing.T, dir string, seed uint64) {
	t.Helper()
	upstreams.Lock()
	u := upstreams.bySeed[seed]
	if u == nil {
		u = &upstreamRun{dir: filepath.Join(upstreamRoot, fmt.Sprint(seed))}
		upstreams.bySeed[seed] = u
	}
	upstreams.Unlock()
	u.once.Do(func() { u.err = makeUpstream(u.dir, seed) })
	if u.err != nil {
		t.Fatalf("shared upstream at seed %d: %v", seed, u.err)
	}
	if err := pipelinetest.CopyRun(u.dir, dir, []string{"manifest.json"}); err != nil {
		t.Fatalf("shared upstream at seed %d: %v", seed, err)
	}
}

// makeUpstream runs the shared upstream's stages at seed into dir and
// makes its files read-only, so that a test writing there fails.
func makeUpstream(dir string, seed uint64) error {
	dag, err := Build(quickConfig())
	if err != nil {
		return err
	}
	dag = slices.DeleteFunc(dag, func(s pipeline.Stage) bool { return !slices.Contains(upstreamStages, s.Name()) })
	if len(dag) != len(upstreamStages) {
		return fmt.Errorf("quickConfig's DAG has %d of the stages %v", len(dag), upstreamStages)
	}
	r := &pipeline.Runner{Dir: dir, Seed: seed, ConfigHash: "upstream", Workers: 2, Log: slog.New(slog.DiscardHandler)}
	if _, err := r.Run(context.Background(), dag); err != nil {
		return err
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chmod(p, 0o444)
	})
}
