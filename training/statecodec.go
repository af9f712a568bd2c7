package training

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
)

// The resume state's encoding: a walk over the value in field order that
// writes every float64 as its IEEE bits (gob drops a struct field that is
// zero, and so turns −0 into +0; JSON has no NaN), integers as varints,
// strings and slices with their lengths. It encodes exported fields only
// and refuses a struct with unexported ones, which it could not restore.

func encodeState(b []byte, v reflect.Value) ([]byte, error) {
	switch v.Kind() {
	case reflect.Float64, reflect.Float32:
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Float())), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return binary.AppendVarint(b, v.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return binary.AppendUvarint(b, v.Uint()), nil
	case reflect.Bool:
		if v.Bool() {
			return append(b, 1), nil
		}
		return append(b, 0), nil
	case reflect.String:
		b = binary.AppendUvarint(b, uint64(v.Len()))
		return append(b, v.String()...), nil
	case reflect.Slice:
		if v.IsNil() {
			return append(b, 0), nil
		}
		b = append(b, 1)
		b = binary.AppendUvarint(b, uint64(v.Len()))
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return append(b, v.Bytes()...), nil
		}
		fallthrough
	case reflect.Array:
		var err error
		for i := range v.Len() {
			if b, err = encodeState(b, v.Index(i)); err != nil {
				return nil, err
			}
		}
		return b, nil
	case reflect.Pointer:
		if v.IsNil() {
			return append(b, 0), nil
		}
		return encodeState(append(b, 1), v.Elem())
	case reflect.Struct:
		t := v.Type()
		var err error
		for i := range t.NumField() {
			if !t.Field(i).IsExported() {
				return nil, fmt.Errorf("resume state: %s has the unexported field %s", t, t.Field(i).Name)
			}
			if b, err = encodeState(b, v.Field(i)); err != nil {
				return nil, err
			}
		}
		return b, nil
	}
	return nil, fmt.Errorf("resume state: cannot encode a %s", v.Type())
}

var errShort = errors.New("resume state: truncated")

type stateReader struct{ b []byte }

func (r *stateReader) next(n int) ([]byte, error) {
	if n < 0 || len(r.b) < n {
		return nil, errShort
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out, nil
}

func (r *stateReader) uvarint() (uint64, error) {
	x, n := binary.Uvarint(r.b)
	if n <= 0 {
		return 0, errShort
	}
	r.b = r.b[n:]
	return x, nil
}

func (r *stateReader) length() (int, error) {
	n, err := r.uvarint()
	if err != nil {
		return 0, err
	}
	if n > uint64(len(r.b)) { // every element takes a byte at least
		return 0, errShort
	}
	return int(n), nil
}

// present reads the flag written before a slice or pointer: false (and v
// set to its zero value) when it was nil, or on an error.
func (r *stateReader) present(v reflect.Value) (bool, error) {
	flag, err := r.next(1)
	if err != nil {
		return false, err
	}
	if flag[0] == 0 {
		v.SetZero()
		return false, nil
	}
	return true, nil
}

func decodeState(r *stateReader, v reflect.Value) error {
	switch v.Kind() {
	case reflect.Float64, reflect.Float32:
		b, err := r.next(8)
		if err != nil {
			return err
		}
		v.SetFloat(math.Float64frombits(binary.LittleEndian.Uint64(b)))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x, n := binary.Varint(r.b)
		if n <= 0 {
			return errShort
		}
		r.b = r.b[n:]
		v.SetInt(x)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		x, err := r.uvarint()
		if err != nil {
			return err
		}
		v.SetUint(x)
	case reflect.Bool:
		b, err := r.next(1)
		if err != nil {
			return err
		}
		v.SetBool(b[0] == 1)
	case reflect.String:
		n, err := r.length()
		if err != nil {
			return err
		}
		b, _ := r.next(n)
		v.SetString(string(b))
	case reflect.Slice:
		if ok, err := r.present(v); !ok {
			return err
		}
		n, err := r.length()
		if err != nil {
			return err
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			b, _ := r.next(n)
			v.SetBytes(append([]byte(nil), b...))
			return nil
		}
		v.Set(reflect.MakeSlice(v.Type(), n, n))
		for i := range n {
			if err := decodeState(r, v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Array:
		for i := range v.Len() {
			if err := decodeState(r, v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Pointer:
		if ok, err := r.present(v); !ok {
			return err
		}
		p := reflect.New(v.Type().Elem())
		if err := decodeState(r, p.Elem()); err != nil {
			return err
		}
		v.Set(p)
	case reflect.Struct:
		for i := range v.NumField() {
			if err := decodeState(r, v.Field(i)); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("resume state: cannot decode a %s", v.Type())
	}
	return nil
}

// marshalState encodes v (any value of the kinds above).
func marshalState(v any) ([]byte, error) {
	return encodeState(nil, reflect.ValueOf(v))
}

// unmarshalState decodes b into *v; every byte must be used.
func unmarshalState(b []byte, v any) error {
	p := reflect.ValueOf(v)
	if p.Kind() != reflect.Pointer || p.IsNil() {
		return fmt.Errorf("resume state: decode into %T, want a pointer", v)
	}
	r := &stateReader{b: b}
	if err := decodeState(r, p.Elem()); err != nil {
		return err
	}
	if len(r.b) != 0 {
		return fmt.Errorf("resume state: %d bytes left over", len(r.b))
	}
	return nil
}
