package das

import (
	"testing"

	"github.com/schedlab/schedlab/schedulers"
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
