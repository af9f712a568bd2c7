//go:build !race

package datasets

const googleRace = false
