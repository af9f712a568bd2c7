package training

import (
	"errors"
	"fmt"
	"math/rand/v2"
)

// Resume is where a family's trainer keeps its state between episodes,
// so that a training cut short (its worker died) continues on a retry
// from the last episode it finished instead of from the first. The state
// is everything the rest of the training depends on (parameters,
// optimiser moments, random generators' states, curves so far), so the
// resumed training writes the same bytes as an uninterrupted one.
//
// A nil *Resume saves nothing and finds nothing: the trainer runs as it
// always did.
type Resume struct {
	// Load returns the state the last attempt saved, nil if there is
	// none.
	Load func() ([]byte, error)
	// Save keeps state, the trainer's after done of total episodes.
	Save func(done, total int, state []byte) error
}

// ErrResumeMismatch means a saved state is not one this trainer can
// continue from (another family or variant, or another architecture).
var ErrResumeMismatch = errors.New("resume checkpoint is of another training")

// resumeEnvelope tags a family's state with whose it is.
type resumeEnvelope struct {
	Family, Variant string
	Done            int
	State           []byte
}

// SaveState records v (a family's state struct of exported fields,
// encoded bit for bit: statecodec.go) as the state after done of total
// episodes of family's variant.
func (r *Resume) SaveState(family, variant string, done, total int, v any) error {
	if r == nil || r.Save == nil {
		return nil
	}
	st, err := marshalState(v)
	if err != nil {
		return fmt.Errorf("%s: resume checkpoint after episode %d: %w", family, done, err)
	}
	env, err := marshalState(resumeEnvelope{Family: family, Variant: variant, Done: done, State: st})
	if err != nil {
		return fmt.Errorf("%s: resume checkpoint after episode %d: %w", family, done, err)
	}
	if err := r.Save(done, total, env); err != nil {
		return fmt.Errorf("%s: resume checkpoint after episode %d: %w", family, done, err)
	}
	return nil
}

// LoadState decodes the saved state of family's variant into v and
// returns the episodes it had done; ok is false when there is nothing to
// resume from. A state of another family or variant, or one that does
// not decode, is an error wrapping ErrResumeMismatch.
func (r *Resume) LoadState(family, variant string, v any) (done int, ok bool, err error) {
	if r == nil || r.Load == nil {
		return 0, false, nil
	}
	b, err := r.Load()
	if err != nil || b == nil {
		return 0, false, err
	}
	var env resumeEnvelope
	if err := unmarshalState(b, &env); err != nil {
		return 0, false, fmt.Errorf("%s %s: %w: %v", family, variant, ErrResumeMismatch, err)
	}
	if env.Family != family || env.Variant != variant {
		return 0, false, fmt.Errorf("%s %s: %w: it is of %s %s", family, variant, ErrResumeMismatch, env.Family, env.Variant)
	}
	if err := unmarshalState(env.State, v); err != nil {
		return 0, false, fmt.Errorf("%s %s: %w: %v", family, variant, ErrResumeMismatch, err)
	}
	return env.Done, true, nil
}

// RandState is the state of a PCG source, for a resume checkpoint.
func RandState(src *rand.PCG) []byte {
	b, err := src.MarshalBinary()
	if err != nil { // PCG's MarshalBinary cannot fail
		panic(err)
	}
	return b
}

// SetRandState restores a state from RandState.
func SetRandState(src *rand.PCG, b []byte) error {
	if err := src.UnmarshalBinary(b); err != nil {
		return fmt.Errorf("%w: random state: %v", ErrResumeMismatch, err)
	}
	return nil
}
