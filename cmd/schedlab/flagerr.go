package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// flagError words a flag's parse error for the user. pflag says "must be a
// number" of a number too large for its type (1e400, or an integer past
// int64): that is a range error, and is said so.
func flagError(err error) error {
	var iv *pflag.InvalidValueError
	if !errors.As(err, &iv) {
		return err
	}
	s := strings.TrimSpace(iv.GetValue())
	name := "--" + iv.GetFlag().Name
	if _, perr := strconv.ParseFloat(s, 64); errors.Is(perr, strconv.ErrRange) {
		return fmt.Errorf("invalid argument %q for %q flag: out of range (beyond ±%g)", s, name, math.MaxFloat64)
	}
	if _, perr := strconv.ParseInt(s, 0, 64); errors.Is(perr, strconv.ErrRange) {
		return fmt.Errorf("invalid argument %q for %q flag: out of range", s, name)
	}
	return err
}
