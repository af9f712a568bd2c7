//go:build !linux

package profiling

import "errors"

func pinThread(int) error { return errors.New("thread affinity not supported on this OS") }

func allowedCPUs() []int { return nil }
