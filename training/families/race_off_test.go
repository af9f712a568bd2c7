//go:build !race

package families_test

const raceEnabled = false
