//go:build !race

package marl_test

const raceEnabled = false
