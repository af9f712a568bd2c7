// Package parquettest damages Parquet files for the tests and fuzz targets
// of schedlab's Parquet readers, and checks that a reader given one returns
// an error naming the file rather than panicking; ReadTable reads a file
// schedlab wrote back with Arrow's own reader, for tests that hold a
// writer to "readable by other tools".
//
// Data enters as the bytes of a real file a schedlab writer produced and
// leaves as corrupted copies (CorruptFooter, seeded) or as a verdict on a
// reader (Check). The footer is where the damage goes because that is
// what parquet-go decodes before anything else, and where it has panicked
// (slice bounds in File.ReadPageIndex).
package parquettest

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// CorruptFooter returns a copy of file, a whole Parquet file, with one to
// three of its footer's bytes or fields damaged (bit flips, random bytes,
// extreme 32-bit values where thrift keeps lengths and offsets, a cut, an
// insertion), chosen by rng.
func CorruptFooter(rng *rand.Rand, file []byte) []byte {
	b := append([]byte(nil), file...)
	lo := footerStart(b)
	for range 1 + rng.IntN(3) {
		if len(b) <= lo {
			break
		}
		i := lo + rng.IntN(len(b)-lo)
		switch rng.IntN(6) {
		case 0:
			b[i] ^= 1 << rng.IntN(8)
		case 1:
			b[i] = byte(rng.IntN(256))
		case 2:
			if i+4 <= len(b) {
				extremes := []uint32{0, 1, 0x7f, 0xff, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, uint32(len(b)), rng.Uint32()}
				binary.LittleEndian.PutUint32(b[i:], extremes[rng.IntN(len(extremes))])
			}
		case 3:
			b = b[:i]
		case 4:
			ins := make([]byte, 1+rng.IntN(8))
			for k := range ins {
				ins[k] = byte(rng.IntN(256))
			}
			b = append(b[:i:i], append(ins, b[i:]...)...)
		case 5:
			// A varint's continuation bit: thrift lengths run on.
			b[i] |= 0x80
		}
	}
	return b
}

// footerStart is the offset of the footer's thrift metadata, as its
// trailer states it; the last 64 bytes when the trailer is not sound.
func footerStart(b []byte) int {
	if len(b) >= 12 && string(b[len(b)-4:]) == "PAR1" {
		n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
		if n <= len(b)-12 {
			return len(b) - 8 - n
		}
	}
	return max(len(b)-64, 0)
}

// AddSeeds adds file, a whole Parquet file, to f's corpus with eight
// copies of it that CorruptFooter damaged, drawn from PCG(16, stream): a
// fuzz target's own stream keeps its corpus apart from the others'.
func AddSeeds(f *testing.F, file []byte, stream uint64) {
	f.Add(file)
	rng := rand.New(rand.NewPCG(16, stream))
	for range 8 {
		f.Add(CorruptFooter(rng, file))
	}
}

// Check writes data to a file in dir named name and calls read on its
// path. It fails t when read panics, or returns an error that does not
// name the file. It reports whether read succeeded.
func Check(t testing.TB, dir, name string, data []byte, read func(path string) error) (ok bool) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(path)
	err := call(path, read)
	if p, isPanic := err.(panicked); isPanic {
		t.Fatalf("%s: reading %d bytes panicked: %v\n%s", name, len(data), p.value, p.stack)
	}
	if err != nil && !strings.Contains(err.Error(), path) {
		t.Fatalf("%s: error does not name the file %s: %v", name, path, err)
	}
	return err == nil
}

type panicked struct {
	value any
	stack []byte
}

func (p panicked) Error() string { return fmt.Sprint("panic: ", p.value) }

func call(path string, read func(string) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicked{r, debug.Stack()}
		}
	}()
	return read(path)
}
