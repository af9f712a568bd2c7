//go:build !race

package dl2

const raceEnabled = false
