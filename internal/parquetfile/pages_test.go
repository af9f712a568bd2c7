package parquetfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

type oneColumn struct {
	V int64 `parquet:"v"`
}

// hostile writes a one-column table of three rows, uncompressed, then
// lets edit change its footer and its first page header (re-encoded in
// place, the chunk's sizes in the footer following its length).
func hostile(t *testing.T, edit func(md *format.FileMetaData, h *format.PageHeader)) string {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[oneColumn](&buf, parquet.Compression(&parquet.Uncompressed))
	w.Write([]oneColumn{{1}, {2}, {3}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	var md format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), b[len(b)-8-n:len(b)-8], &md); err != nil {
		t.Fatal(err)
	}
	cm := &md.RowGroups[0].Columns[0].MetaData
	h, hlen, err := readPageHeader(bytes.NewReader(b), cm.DataPageOffset, int64(len(b)), make([]byte, 64))
	if err != nil {
		t.Fatal(err)
	}
	edit(&md, h)
	hb, err := thrift.Marshal(new(thrift.CompactProtocol), h)
	if err != nil {
		t.Fatal(err)
	}
	delta := int64(len(hb) - hlen)
	cm.TotalCompressedSize += delta
	cm.TotalUncompressedSize += delta
	fb, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil {
		t.Fatal(err)
	}
	at := int(cm.DataPageOffset)
	out := append([]byte(nil), b[:at]...)
	out = append(out, hb...)
	out = append(out, b[at+hlen:len(b)-8-n]...)
	out = append(out, fb...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(fb)))
	out = append(out, "PAR1"...)
	path := filepath.Join(t.TempDir(), "t.parquet")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A page header or a footer that claims more than the file can hold is
// refused by Open, before parquet-go sizes a buffer on it: a page of
// 2³¹−1 values in a file of a few hundred bytes (parquet-go asked the
// runtime for 16 GiB), a page larger than its chunk, a footer claiming
// 4.6·10¹⁸ rows of a 3-row table. The same file re-encoded unchanged
// opens.
func TestOpenBoundsPagesAndRowCounts(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(md *format.FileMetaData, h *format.PageHeader)
		want string // "" for a sound file
	}{
		{"unchanged", func(*format.FileMetaData, *format.PageHeader) {}, ""},
		{"2^31-1 values", func(_ *format.FileMetaData, h *format.PageHeader) {
			if d, ok := h.DataPageHeaderV2.Get(); ok { // parquet-go's default
				d.NumValues, d.NumRows = math.MaxInt32, math.MaxInt32
				h.DataPageHeaderV2 = thrift.New(d)
			} else {
				d, _ := h.DataPageHeader.Get()
				d.NumValues = math.MaxInt32
				h.DataPageHeader = thrift.New(d)
			}
		}, "values"},
		{"2^31-1 bytes uncompressed", func(_ *format.FileMetaData, h *format.PageHeader) { h.UncompressedPageSize = math.MaxInt32 }, "uncompressed"},
		{"page past its chunk", func(_ *format.FileMetaData, h *format.PageHeader) { h.CompressedPageSize += 1000 }, "left in the column chunk"},
		{"footer row count", func(md *format.FileMetaData, _ *format.PageHeader) { md.NumRows = 4.6e18 }, "rows"},
		{"row group row count", func(md *format.FileMetaData, _ *format.PageHeader) {
			md.NumRows, md.RowGroups[0].NumRows = 4.6e18, 4.6e18
		}, "rows"},
	} {
		path := hostile(t, tc.edit)
		f, pf, err := Open(path)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want == "" && pf.NumRows() != 3:
			t.Errorf("%s: %d rows", tc.name, pf.NumRows())
		case tc.want != "" && (!errors.Is(err, ErrNotParquet) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want ErrNotParquet saying %q", tc.name, err, tc.want)
		}
		if err == nil {
			f.Close()
		}
	}
}

// FuzzPageHeaders: whatever the bytes of a column chunk, checkChunkPages
// returns (no panic, no allocation on a claimed size), and what it passes
// claims no page larger than the chunk or than a page may hold.
func FuzzPageHeaders(f *testing.F) {
	for _, v := range []int32{3, math.MaxInt32} {
		h := &format.PageHeader{Type: format.DataPage, UncompressedPageSize: 24, CompressedPageSize: 24,
			DataPageHeader: thrift.New(format.DataPageHeader{NumValues: v, Encoding: format.Plain})}
		b, _ := thrift.Marshal(new(thrift.CompactProtocol), h)
		f.Add(append(b, make([]byte, 24)...), int64(3))
	}
	f.Fuzz(func(t *testing.T, chunk []byte, values int64) {
		err := checkChunkPages(bytes.NewReader(chunk), 0, int64(len(chunk)), values)
		if err != nil {
			return
		}
		for pos := int64(0); pos < int64(len(chunk)); {
			h, n, err := readPageHeader(bytes.NewReader(chunk), pos, int64(len(chunk)), make([]byte, 64))
			if err != nil {
				t.Fatalf("passed, but the header at %d does not decode: %v", pos, err)
			}
			if h.UncompressedPageSize > maxPageBytes || pos+int64(n)+int64(h.CompressedPageSize) > int64(len(chunk)) {
				t.Fatalf("passed a page of %d/%d bytes at %d of %d", h.CompressedPageSize, h.UncompressedPageSize, pos, len(chunk))
			}
			pos += int64(n) + int64(h.CompressedPageSize)
		}
	})
}
