package training

import (
	"testing"

	"github.com/schedlab/schedlab/sim"
)

// TestCurveRow: Row keeps the run's identity and sets the episode's.
func TestCurveRow(t *testing.T) {
	base := Curve{Family: "dl2", Variant: "dl2", Cluster: "small", PolicyLoss: 9}
	got := base.Row(3, "validation", -1.5, sim.Metrics{MeanJCTS: 120, MeanFeeUSD: 2.5})
	want := Curve{Family: "dl2", Variant: "dl2", Cluster: "small", Episode: 3, Split: "validation", Return: -1.5, MeanJCT: 120, MeanFee: 2.5, PolicyLoss: 9}
	if got != want {
		t.Errorf("Row: %+v, want %+v", got, want)
	}
	if base.Episode != 0 || base.Split != "" {
		t.Errorf("Row changed its receiver: %+v", base)
	}
}
