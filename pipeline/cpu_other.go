//go:build !unix

package pipeline

import "time"

// processCPU reports that the process's CPU time cannot be read here; the
// stages' CPU figures are then 0.
func processCPU() (time.Duration, bool) { return 0, false }
