package das

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
	"github.com/schedlab/schedlab/training/das/dastest"
	"github.com/schedlab/schedlab/training/daspaper"
	"github.com/schedlab/schedlab/training/nn"
)

func trainTiny(t *testing.T, variant string, seed uint64) (*Result, daspaper.Split, *sim.Cluster) {
	t.Helper()
	c := simtest.Preset(t, "small")
	cfg := tinyConfig(variant)
	sp := prepare(t, c, cfg, contendedJobs(300, 7))
	res, err := Train(context.Background(), cfg, sp, TrainOptions{Cluster: c, ClusterName: "small", Sim: sim.DefaultConfig(), Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return res, sp, c
}

func TestTrainingIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	var files [2][]byte
	for i := range files {
		// The second run on one thread: gonum's BLAS splits large
		// products across goroutines, which must not change a bit.
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2 - i))
		res, _, _ := trainTiny(t, VariantDAS, 11)
		p := filepath.Join(dir, "run"+string(rune('a'+i))+".ckpt")
		if err := Save(p, res.Best().Model, Sidecar{Cluster: "small"}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[i] = b
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Fatal("two trainings with the same seed wrote different checkpoints")
	}
	// A different seed must change something, or the test proves nothing.
	res, _, _ := trainTiny(t, VariantDAS, 12)
	var buf bytes.Buffer
	if err := nn.WriteCheckpoint(&buf, res.Best().Model.Params()); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(buf.Bytes(), files[0]) {
		t.Fatal("seeds 11 and 12 gave identical checkpoints")
	}
}

// TestCheckpointRoundTrip: a saved policy loads back (Open) and, as a
// sim.Scheduler under sim.Run, reproduces exactly the validation metrics
// Train measured; a checkpoint of another variant does not load into a
// DAS model.
func TestCheckpointRoundTrip(t *testing.T) {
	res, sp, c := trainTiny(t, VariantDAS, 3)
	best := res.Best()
	dir := t.TempDir()
	p := filepath.Join(dir, "das.ckpt")
	if err := Save(p, best.Model, Sidecar{Cluster: "small", LR: best.LR, Norm: sp.Norm}); err != nil {
		t.Fatal(err)
	}
	dastest.CheckReplay(t, Open, p, c, sp.Val, best.FinalVal.Metrics)

	da, _, _ := trainTiny(t, VariantDA, 3)
	q := filepath.Join(dir, "da.ckpt")
	if err := Save(q, da.Best().Model, Sidecar{}); err != nil {
		t.Fatal(err)
	}
	err := LoadInto(q, best.Model)
	if !errors.Is(err, nn.ErrArchMismatch) {
		t.Fatalf("loading a DA checkpoint into a DAS model: %v, want ErrArchMismatch", err)
	}
	t.Log(err)

	// A sidecar edited to another architecture is caught by its hash.
	if err := os.WriteFile(SidecarPath(q), bytes.Replace(must(os.ReadFile(SidecarPath(q))), []byte(`"variant": "da"`), []byte(`"variant": "das"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(q); !errors.Is(err, ErrNotDAS) {
		t.Fatalf("edited sidecar: %v, want ErrNotDAS", err)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("default config: %v", err)
	}
	bad := DefaultConfig()
	bad.Variant, bad.Hidden, bad.Heads, bad.LearningRates = "dax", 10, 4, nil
	err := bad.Validate()
	for _, key := range []string{"das.variant", "das.hidden", "das.learning_rates"} {
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte(key)) {
			t.Errorf("Validate of a bad config does not name %s: %v", key, err)
		}
	}
	if DefaultConfig().Hash() == tinyConfig(VariantDAS).Hash() {
		t.Error("different configs hash alike")
	}
}
