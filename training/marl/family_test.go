package marl_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/marl"
)

// marlFamily is the marl family as the registry serves it to the train
// stage.
func marlFamily(t testing.TB) training.Family {
	t.Helper()
	f, ok := training.Lookup("marl")
	if !ok {
		t.Fatal("marl family not registered")
	}
	return f
}

// TestPaperVariantTrainsAsThePaper trains each device-level variant for
// one episode through the family registry and reads back the sidecar: the
// paper variant must have been trained at the paper's learning rate with
// the progress reward, the tuned one with the defaults, and the two must
// differ in nothing else.
func TestPaperVariantTrainsAsThePaper(t *testing.T) {
	f := marlFamily(t)
	c, train, val := fatTreeSplit(t, 0.5, 12, 3)
	fc := f.Configure(training.Sections{}).(*marl.FamilyConfig)
	fc.Episodes = 1
	trained := map[schedulers.Name]marl.Config{}
	for _, v := range []schedulers.Name{"marl-device", marl.PaperVariantName} {
		dir := t.TempDir()
		spec := training.TrainSpec{Variant: v, Dir: dir, Cluster: c, ClusterName: "fattree-k4",
			Data: training.Data{Train: train, Val: val}, Sim: intervalConfig(), Seed: 1, Config: fc}
		if err := f.Train(context.Background(), spec); err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		b, err := os.ReadFile(filepath.Join(dir, marl.SidecarFile))
		if err != nil {
			t.Fatal(err)
		}
		var sc marl.Sidecar
		if err := json.Unmarshal(b, &sc); err != nil {
			t.Fatal(err)
		}
		trained[v] = sc.Config
	}
	paper, tuned := trained[marl.PaperVariantName], trained["marl-device"]
	if paper.LR != marl.PaperLR || paper.Reward != marl.RewardProgress || paper.Variant != marl.VariantDevice {
		t.Errorf("paper variant trained with lr %g, reward %q, variant %q; want %g, %q, %q", paper.LR, paper.Reward, paper.Variant, marl.PaperLR, marl.RewardProgress, marl.VariantDevice)
	}
	if tuned.LR == marl.PaperLR || tuned.Reward == marl.RewardProgress {
		t.Errorf("tuned variant trained with the paper's lr %g or reward %q", tuned.LR, tuned.Reward)
	}
	tuned.LR, tuned.Reward = paper.LR, paper.Reward
	if tuned != paper {
		t.Errorf("besides lr and reward the variants differ:\npaper %+v\ntuned %+v", paper, tuned)
	}
}
