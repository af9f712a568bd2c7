package nn

import "fmt"

// This file exposes the state a training run needs to save between
// episodes and restore on a retry (a resume checkpoint), so that the
// resumed run computes exactly what the uninterrupted one would have.

// Values returns a copy of every parameter's values, in creation order.
func (ps *Params) Values() [][]float64 {
	out := make([][]float64, len(ps.list))
	for i, p := range ps.list {
		out[i] = append([]float64(nil), p.Data...)
	}
	return out
}

// SetValues overwrites the parameters' values with vs (from Values of a
// set of the same architecture). On a shape mismatch it returns an error
// wrapping ErrArchMismatch and leaves ps untouched.
func (ps *Params) SetValues(vs [][]float64) error {
	if len(vs) != len(ps.list) {
		return fmt.Errorf("%w: %d parameters saved, the model has %d", ErrArchMismatch, len(vs), len(ps.list))
	}
	for i, p := range ps.list {
		if len(vs[i]) != len(p.Data) {
			return fmt.Errorf("%w: %q has %d values saved, %d in the model", ErrArchMismatch, p.Name, len(vs[i]), len(p.Data))
		}
	}
	for i, p := range ps.list {
		copy(p.Data, vs[i])
	}
	return nil
}

// AdamState is Adam's state besides its configuration: the moment
// estimates and the step count.
type AdamState struct {
	M, V [][]float64
	T    int
}

// State returns a copy of a's moments and step count.
func (a *Adam) State() AdamState {
	s := AdamState{T: a.t, M: make([][]float64, len(a.m)), V: make([][]float64, len(a.v))}
	for i := range a.m {
		s.M[i] = append([]float64(nil), a.m[i]...)
		s.V[i] = append([]float64(nil), a.v[i]...)
	}
	return s
}

// SetState restores a state from State of an Adam over parameters of
// the same shapes; on a mismatch it returns an error wrapping
// ErrArchMismatch and leaves a untouched.
func (a *Adam) SetState(s AdamState) error {
	if len(s.M) != len(a.m) || len(s.V) != len(a.v) {
		return fmt.Errorf("%w: Adam state of %d/%d moments, the optimiser has %d", ErrArchMismatch, len(s.M), len(s.V), len(a.m))
	}
	for i := range a.m {
		if len(s.M[i]) != len(a.m[i]) || len(s.V[i]) != len(a.v[i]) {
			return fmt.Errorf("%w: Adam moment %d has %d/%d values saved, %d in the optimiser", ErrArchMismatch, i, len(s.M[i]), len(s.V[i]), len(a.m[i]))
		}
	}
	for i := range a.m {
		copy(a.m[i], s.M[i])
		copy(a.v[i], s.V[i])
	}
	a.t = s.T
	return nil
}
