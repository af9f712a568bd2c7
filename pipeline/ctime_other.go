//go:build !linux

package pipeline

import "io/fs"

// ctimeOf reports no change time where the stat's layout is not Linux's:
// SameVersion then compares file, size and modification time.
func ctimeOf(fs.FileInfo) (int64, bool) { return 0, false }
