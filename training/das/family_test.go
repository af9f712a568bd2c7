package das

import (
	"testing"

	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/training"
)

func TestTuningParams(t *testing.T) {
	for _, tc := range []struct {
		name    string
		h, tau  int
		ok      bool
		learned bool
	}{
		{"das-h1", 1, 8, true, true}, {"das-h8", 8, 8, true, true}, {"das-tau4", 4, 4, true, true}, {"das-tau10", 4, 10, true, true},
		{"das-h12", 12, 8, true, false}, {"das", 0, 0, false, false}, {"das-h", 0, 0, false, false}, {"das-h2x", 0, 0, false, false}, {"das-tau-1", 0, 0, false, false},
	} {
		h, tau, ok := TuningParams(tc.name)
		if h != tc.h || tau != tc.tau || ok != tc.ok {
			t.Errorf("%s: got %d, %d, %v; want %d, %d, %v", tc.name, h, tau, ok, tc.h, tc.tau, tc.ok)
		}
		if info, reg := schedulers.Lookup(tc.name); tc.ok && (reg && info.Family == "das") != tc.learned {
			t.Errorf("%s: registered as a das variant = %v", tc.name, !tc.learned)
		}
	}
	if got := schedulers.Display("das-tau6"); got != "DAS (h=4, τ=6)" {
		t.Errorf("display name: %q", got)
	}
}

// TestNotLearned: a DAS model learned only when its final validation's
// share of decisions unlike FIFO-FirstFit exceeds its untrained
// reference's by training.FIFOLike or more (the nightly's 47.3 % against
// 42.9 % did not); a curve without both shares cannot say.
func TestNotLearned(t *testing.T) {
	share := func(v float64) *float64 { return &v }
	curve := func(last, untrained *float64) []training.Curve {
		return []training.Curve{{Split: "validation", Episode: 0, NotFIFO: share(0.9), UntrainedNotFIFO: share(0.1)},
			{Split: "train", Episode: 1}, {Split: "validation", Episode: 1, NotFIFO: last, UntrainedNotFIFO: untrained}}
	}
	for _, c := range []struct {
		name string
		rows []training.Curve
		want string
	}{
		{"under the margin", curve(share(0.473), share(0.429)), "unlike FIFO-FirstFit on 47.3 % of validation decisions, the untrained reference 42.9 %"},
		{"below its reference", curve(share(0.18), share(0.2)), "unlike FIFO-FirstFit on 18.0 % of validation decisions, the untrained reference 20.0 %"},
		{"learned", curve(share(0.3), share(0.2)), ""},
		{"unmeasured", curve(nil, nil), ""},
		{"no validation", []training.Curve{{Split: "train"}}, ""},
	} {
		if got := training.NotLearned(VariantDAS, [][]training.Curve{c.rows}); got != c.want {
			t.Errorf("%s: NotLearned = %q, want %q", c.name, got, c.want)
		}
	}
	// Several models: those that did not learn, by their number.
	learned, notLearned, other := curve(share(0.6), share(0.2)), curve(share(0.473), share(0.429)), curve(share(0.18), share(0.2))
	for _, c := range []struct {
		models [][]training.Curve
		want   string
	}{
		{[][]training.Curve{learned, learned, learned}, ""},
		{[][]training.Curve{learned, notLearned, learned}, "model 2 of 3, unlike FIFO-FirstFit on 47.3 % of validation decisions, its untrained reference 42.9 %"},
		{[][]training.Curve{notLearned, learned, other}, "models 1 and 3 of 3, unlike FIFO-FirstFit on 47.3 and 18.0 % of validation decisions, their untrained references 42.9 and 20.0 %"},
		{[][]training.Curve{notLearned, other, notLearned}, "models 1, 2 and 3 of 3, unlike FIFO-FirstFit on 47.3, 18.0 and 47.3 % of validation decisions, their untrained references 42.9, 20.0 and 42.9 %"},
	} {
		if got := training.NotLearned(VariantDAS, c.models); got != c.want {
			t.Errorf("NotLearned = %q, want %q", got, c.want)
		}
	}
}
