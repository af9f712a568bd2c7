//go:build linux

package pipeline

import (
	"io/fs"
	"syscall"
)

// ctimeOf is fi's change time in nanoseconds since the epoch.
func ctimeOf(fi fs.FileInfo) (int64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Ctim.Sec*1e9 + st.Ctim.Nsec, true
}
