//go:build !race

package fitting

const raceEnabled = false
