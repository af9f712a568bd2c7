package parquetfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

type row struct {
	ID    string  `parquet:"id"`
	Value float64 `parquet:"value"`
}

func write(t *testing.T, opts ...parquet.WriterOption) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf, opts...)
	if _, err := w.Write([]row{{"a", 1}, {"b", 2}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "t.parquet")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, buf.Bytes()
}

// TestOpen: a sound file opens; one whose footer claims more than it
// holds, one cut short and an LZ4_RAW one are refused with ErrNotParquet.
func TestOpen(t *testing.T) {
	path, b := write(t)
	f, pf, err := Open(path)
	if err != nil || pf.NumRows() != 2 {
		t.Fatalf("sound file: %v", err)
	}
	f.Close()

	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	footer := b[len(b)-8-n : len(b)-8]
	if err := checkThrift(footer); err != nil {
		t.Fatalf("sound footer: %v", err)
	}
	for _, cut := range []int{1, n / 2, n - 1} {
		if err := checkThrift(footer[:cut]); err == nil {
			t.Errorf("footer cut to %d of %d bytes passes", cut, n)
		}
	}
	// FileMetaData starts with field 1, version (0x15, a varint), then
	// field 2, the schema: a list (0x19) of structs whose header says how
	// many. Made to claim 2³¹−1 of them:
	if footer[0] != 0x15 || footer[2] != 0x19 || footer[3]&0x0f != 12 {
		t.Fatalf("footer starts % x, not version then the schema list", footer[:4])
	}
	huge := append([]byte(nil), b[:len(b)-8-n+3]...)
	huge = append(huge, 0xfc, 0xff, 0xff, 0xff, 0xff, 0x07)
	huge = append(huge, b[len(b)-8-n+4:]...)
	binary.LittleEndian.PutUint32(huge[len(huge)-8:], uint32(n+5))
	if err := os.WriteFile(path, huge, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Open(path); !errors.Is(err, ErrNotParquet) || !strings.Contains(err.Error(), "a size of 2147483647 claims more") {
		t.Errorf("a list of 2³¹−1: %v", err)
	}

	if err := os.WriteFile(path, b[:len(b)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Open(path); !errors.Is(err, ErrNotParquet) {
		t.Errorf("cut short: %v", err)
	}

	lz4, _ := write(t, parquet.Compression(&parquet.Lz4Raw))
	if _, _, err := Open(lz4); !errors.Is(err, ErrNotParquet) || !strings.Contains(err.Error(), "LZ4_RAW") {
		t.Errorf("LZ4_RAW: %v", err)
	}
}
