//go:build !linux

package profiling

import (
	"errors"
	"time"
)

func pinThread(int) error { return errors.New("thread affinity not supported on this OS") }

func allowedCPUs() []int { return nil }

func threadCPU() (time.Duration, error) { return 0, ErrNoProc }
