package didyoumean

import (
	"slices"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "abc", 3}, {"abc", "abc", 0}, {"kitten", "sitting", 3},
		{"das-tabel1", "das-table1", 2}, {"sede", "seed", 2}, {"×2", "×3", 1},
	} {
		if got := distance(tc.a, tc.b); got != tc.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := distance(tc.b, tc.a); got != tc.want {
			t.Errorf("distance(%q, %q) = %d, want %d (symmetry)", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestClosest(t *testing.T) {
	keys := []string{"seed", "workers", "eval.seeds", "eval.experiments", "out", "data_dir"}
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"eval.seed", []string{"eval.seeds", "seed"}},
		{"SEDE", []string{"seed"}},
		{"wrokers", []string{"workers"}},
		{"nothing.like.it", nil},
		{"eval.experiment", []string{"eval.experiments"}},
	} {
		if got := Closest(tc.name, keys); !slices.Equal(got, tc.want) {
			t.Errorf("Closest(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
	ids := []string{"das-table1", "das-load", "das-tuning", "das-wilcoxon", "marl-arrivals"}
	if got := Closest("das-tabel1", ids); len(got) == 0 || got[0] != "das-table1" {
		t.Errorf("Closest(das-tabel1) = %q, want das-table1 first", got)
	}
	if got := Suggest("das-tabel1", ids[:1]); got != "; did you mean das-table1?" {
		t.Errorf("Suggest = %q", got)
	}
	if got := Suggest("zzz", ids); got != "" {
		t.Errorf("Suggest(zzz) = %q, want nothing", got)
	}
}
