//go:build !race

package external_test

const raceEnabled = false
