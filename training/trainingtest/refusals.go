package trainingtest

import "testing"

// Refusal is a change to a valid configuration and the one message its
// Validate must give for it.
type Refusal[C any] struct {
	Set  func(*C)
	Want string
}

// CheckRefusals fails t unless def() validates and, for each refusal, a
// fresh def() with the change made fails Validate with exactly that
// message: each bad key gets its own message naming it alone.
func CheckRefusals[C interface{ Validate() error }](t testing.TB, def func() C, refusals []Refusal[C]) {
	t.Helper()
	if err := def().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, r := range refusals {
		c := def()
		r.Set(&c)
		if err := c.Validate(); err == nil || err.Error() != r.Want {
			t.Errorf("got %v, want %q", err, r.Want)
		}
	}
}
