//go:build !race

package schedulers_test

const raceEnabled = false
