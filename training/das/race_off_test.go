//go:build !race

package das

const raceEnabled = false
