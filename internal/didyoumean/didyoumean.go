// Package didyoumean finds, for a name the user mistyped, the closest of
// the valid names by edit distance, so that an error can say "did you
// mean" instead of listing every name there is.
package didyoumean

import (
	"slices"
	"strings"
)

// Closest returns the names of among nearest to name by edit distance
// (Levenshtein, ignoring case), at most three, nearest first and in the
// order of among within a distance: only names within a third of the
// longer name's length (at least 2 edits) count, and so does one that
// contains the other or is contained in it (a missing section or suffix),
// when the shorter of the two has 4 letters or more. It returns nil when
// none is close.
func Closest(name string, among []string) []string {
	type cand struct {
		name string
		d, i int
	}
	lname := strings.ToLower(name)
	var cs []cand
	for i, a := range among {
		la := strings.ToLower(a)
		d := distance(lname, la)
		limit := max(2, max(len(lname), len(la))/3)
		contained := min(len(lname), len(la)) >= 4 && (strings.Contains(la, lname) || strings.Contains(lname, la))
		if d <= limit || contained {
			cs = append(cs, cand{a, d, i})
		}
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return a.d - b.d })
	var out []string
	for _, c := range cs[:min(3, len(cs))] {
		out = append(out, c.name)
	}
	return out
}

// Suggest is Closest as the end of an error message: "; did you mean X?"
// or "; did you mean X, Y or Z?", or "" when no name is close.
func Suggest(name string, among []string) string {
	c := Closest(name, among)
	switch len(c) {
	case 0:
		return ""
	case 1:
		return "; did you mean " + c[0] + "?"
	}
	return "; did you mean " + strings.Join(c[:len(c)-1], ", ") + " or " + c[len(c)-1] + "?"
}

// distance is the Levenshtein distance between a and b, in runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
