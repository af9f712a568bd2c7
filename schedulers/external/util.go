package external

import (
	"errors"
	"strconv"
	"syscall"
)

func strconvAppendUint(b []byte, x uint64) []byte { return strconv.AppendUint(b, x, 10) }

func appendBool(b []byte, x bool) []byte { return strconv.AppendBool(b, x) }

func isBrokenPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }
