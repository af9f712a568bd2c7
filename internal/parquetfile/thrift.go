package parquetfile

import (
	"errors"
	"fmt"
)

// checkThrift walks the thrift compact-protocol struct in b, a Parquet
// footer, without decoding it, and fails where a list, set, map or binary
// claims more elements or bytes than b has left. parquet-go's decoder
// allocates what a length claims before it reads: a corrupt list size
// (up to 2³¹ row groups or columns of a few hundred bytes each) makes it
// ask for hundreds of gigabytes, and the runtime's "out of memory" is a
// fatal error that no recover catches. Every element takes at least one
// byte in the compact protocol, so a sound footer never fails this.
func checkThrift(b []byte) error {
	w := thriftWalker{b: b}
	if err := w.value(thriftStruct, 0); err != nil {
		return fmt.Errorf("footer metadata at byte %d: %w", w.off, err)
	}
	return nil
}

// Compact-protocol type codes.
const (
	thriftTrue   = 1
	thriftFalse  = 2
	thriftByte   = 3
	thriftI16    = 4
	thriftI32    = 5
	thriftI64    = 6
	thriftDouble = 7
	thriftBinary = 8
	thriftList   = 9
	thriftSet    = 10
	thriftMap    = 11
	thriftStruct = 12
	thriftUUID   = 13
)

// maxThriftDepth bounds nesting: the Parquet footer nests about 6 deep.
const maxThriftDepth = 64

var errThriftShort = errors.New("claims more than the footer holds")

type thriftWalker struct {
	b   []byte
	off int
}

func (w *thriftWalker) left() int { return len(w.b) - w.off }

func (w *thriftWalker) byte() (byte, error) {
	if w.left() < 1 {
		return 0, errThriftShort
	}
	c := w.b[w.off]
	w.off++
	return c, nil
}

func (w *thriftWalker) uvarint() (uint64, error) {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		c, err := w.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, nil
		}
	}
	return 0, errors.New("varint longer than 10 bytes")
}

// count reads a size and checks that n elements of at least min bytes
// each fit in what is left.
func (w *thriftWalker) count(n uint64, min int) (int, error) {
	if n > uint64(w.left()/min) {
		return 0, fmt.Errorf("a size of %d %w (%d bytes left)", n, errThriftShort, w.left())
	}
	return int(n), nil
}

func (w *thriftWalker) skip(n int) error {
	if n > w.left() {
		return errThriftShort
	}
	w.off += n
	return nil
}

// element skips one element of a list, set or map: a boolean there is a
// byte of its own, where a struct field's is in the field header (value).
func (w *thriftWalker) element(typ byte, depth int) error {
	if typ == thriftTrue || typ == thriftFalse {
		return w.skip(1)
	}
	return w.value(typ, depth)
}

func (w *thriftWalker) value(typ byte, depth int) error {
	if depth > maxThriftDepth {
		return errors.New("nested too deep")
	}
	switch typ {
	case thriftTrue, thriftFalse:
		// In a struct the value is in the field header; in a list, one byte.
		return nil
	case thriftByte:
		return w.skip(1)
	case thriftI16, thriftI32, thriftI64:
		_, err := w.uvarint()
		return err
	case thriftDouble:
		return w.skip(8)
	case thriftUUID:
		return w.skip(16)
	case thriftBinary:
		n, err := w.uvarint()
		if err != nil {
			return err
		}
		k, err := w.count(n, 1)
		if err != nil {
			return err
		}
		return w.skip(k)
	case thriftList, thriftSet:
		h, err := w.byte()
		if err != nil {
			return err
		}
		n, elem := uint64(h>>4), h&0x0f
		if n == 15 {
			if n, err = w.uvarint(); err != nil {
				return err
			}
		}
		k, err := w.count(n, 1)
		if err != nil {
			return err
		}
		for range k {
			if err := w.element(elem, depth+1); err != nil {
				return err
			}
		}
		return nil
	case thriftMap:
		n, err := w.uvarint()
		if err != nil || n == 0 {
			return err
		}
		kv, err := w.byte()
		if err != nil {
			return err
		}
		k, err := w.count(n, 2)
		if err != nil {
			return err
		}
		for range k {
			for _, t := range []byte{kv >> 4, kv & 0x0f} {
				if err := w.element(t, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	case thriftStruct:
		for {
			h, err := w.byte()
			if err != nil {
				return err
			}
			if h == 0 { // stop
				return nil
			}
			if h>>4 == 0 { // long form: the field id follows as a varint
				if _, err := w.uvarint(); err != nil {
					return err
				}
			}
			if err := w.value(h&0x0f, depth+1); err != nil {
				return err
			}
		}
	}
	return fmt.Errorf("unknown thrift type %d", typ)
}
