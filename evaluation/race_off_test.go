//go:build !race

package evaluation

const raceEnabled = false
