// Package sortorder holds the float comparison the simulator's packing check
// and the schedulers' priority sorts share.
package sortorder

// Desc orders a before b when a is larger, for slices.SortStableFunc.
// Unlike cmp.Compare(b, a) it calls a NaN equal to everything, so a NaN
// priority (a diverged policy) leaves a stable sort's order alone rather
// than moving that entry to the end.
func Desc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}
