package parquetfile

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Bounds on what one page may claim, checked before parquet-go reads a
// page: it sizes its buffers from a page header's sizes and value counts,
// so a header of a few bytes claiming 2³¹−1 values would have it ask for
// gigabytes. Writers cut pages far smaller: parquet-go, Arrow and DuckDB
// at about 1 MiB of data and at most a few hundred thousand values; a
// page of 1 MiB of bit-packed booleans holds 8 Mi values.
const (
	maxPageBytes  = 1 << 28 // uncompressed bytes of one page
	maxPageValues = 1 << 24 // values (nulls included) of one page
	// maxRowsPerByte bounds a table's rows by its file's size: even a
	// column of one repeated value, run-length encoded, takes a few bytes
	// a run, and a run of a page is at most maxPageValues long.
	maxRowsPerByte = 1 << 12
)

// checkRowCounts checks the footer's row counts: the file's is the sum of
// its row groups', none negative, and none more than a file of size bytes
// can hold (maxRowsPerByte), so that no reader sizes anything on a claim
// of 4.6·10¹⁸ rows.
func checkRowCounts(md *format.FileMetaData, size int64) error {
	limit := size * maxRowsPerByte
	var sum int64
	for i, rg := range md.RowGroups {
		if rg.NumRows < 0 || rg.NumRows > limit-sum {
			return fmt.Errorf("row group %d claims %d rows, more than a file of %d bytes holds", i, rg.NumRows, size)
		}
		sum += rg.NumRows
	}
	if md.NumRows != sum {
		return fmt.Errorf("the footer claims %d rows, its row groups %d", md.NumRows, sum)
	}
	return nil
}

// checkPages walks the page headers of every column chunk of pf (whose
// file, of size bytes, is r) and checks each before parquet-go reads it
// (checkPage).
func checkPages(r io.ReaderAt, pf *parquet.File) error {
	for i, rg := range pf.Metadata().RowGroups {
		for _, c := range rg.Columns {
			md := &c.MetaData
			start := md.DataPageOffset
			if md.DictionaryPageOffset > 0 {
				start = min(start, md.DictionaryPageOffset)
			}
			if err := checkChunkPages(r, start, md.TotalCompressedSize, md.NumValues); err != nil {
				return fmt.Errorf("row group %d, column %s: %w", i, strings.Join(md.PathInSchema, "."), err)
			}
		}
	}
	return nil
}

// errPageShort marks a page header that does not fit the bytes read.
var errPageShort = errors.New("page header runs past its column chunk")

// checkChunkPages checks the pages of the column chunk of n bytes at off
// in r, which claims values values: each header is sound thrift that
// claims no more than the chunk holds (checkPage), the pages fill the
// chunk exactly, and their values add up to no more than the chunk's.
func checkChunkPages(r io.ReaderAt, off, n, values int64) error {
	end := off + n
	var seen int64
	buf := make([]byte, 4<<10)
	for pos := off; pos < end; {
		hdr, hlen, err := readPageHeader(r, pos, end, buf)
		if err != nil {
			return fmt.Errorf("page at offset %d: %w", pos, err)
		}
		v, err := checkPage(hdr, end-pos-int64(hlen))
		if err != nil {
			return fmt.Errorf("page at offset %d: %w", pos, err)
		}
		if seen += v; seen > values {
			return fmt.Errorf("page at offset %d: its pages hold more values than the chunk's %d", pos, values)
		}
		pos += int64(hlen) + int64(hdr.CompressedPageSize)
	}
	return nil
}

// readPageHeader decodes the page header at pos (before end) and returns
// it and its length in bytes. buf is scratch; a header longer than it is
// read again into a larger one, up to 1 MiB.
func readPageHeader(r io.ReaderAt, pos, end int64, buf []byte) (*format.PageHeader, int, error) {
	for size := len(buf); ; size *= 16 {
		if size > len(buf) {
			buf = make([]byte, size)
		}
		b := buf[:min(int64(size), end-pos)]
		if k, err := r.ReadAt(b, pos); err != nil && !(errors.Is(err, io.EOF) && k == len(b)) {
			return nil, 0, err
		}
		w := thriftWalker{b: b}
		err := w.value(thriftStruct, 0)
		if errors.Is(err, errThriftShort) && len(b) == size && size < 1<<20 {
			continue // a longer header (statistics): read more
		}
		if err != nil {
			return nil, 0, fmt.Errorf("page header: %w", err)
		}
		hdr := new(format.PageHeader)
		if err := thrift.Unmarshal(new(thrift.CompactProtocol), b[:w.off], hdr); err != nil {
			return nil, 0, fmt.Errorf("page header: %w", err)
		}
		return hdr, w.off, nil
	}
}

// checkPage checks one page header whose page may take left bytes, and
// returns the values it holds.
func checkPage(h *format.PageHeader, left int64) (int64, error) {
	if h.CompressedPageSize < 0 || int64(h.CompressedPageSize) > left {
		return 0, fmt.Errorf("%d bytes claimed, %d left in the column chunk", h.CompressedPageSize, left)
	}
	if h.UncompressedPageSize < 0 || h.UncompressedPageSize > maxPageBytes {
		return 0, fmt.Errorf("%d bytes uncompressed, more than the %d a page may hold", h.UncompressedPageSize, maxPageBytes)
	}
	var values int64
	switch h.Type {
	case format.DataPage:
		d, ok := h.DataPageHeader.Get()
		if !ok {
			return 0, errors.New("a data page without its header")
		}
		values = int64(d.NumValues)
	case format.DataPageV2:
		d, ok := h.DataPageHeaderV2.Get()
		if !ok {
			return 0, errors.New("a data page without its header")
		}
		if d.NumNulls < 0 || d.NumRows < 0 || d.NumNulls > d.NumValues || d.NumRows > d.NumValues ||
			d.DefinitionLevelsByteLength < 0 || d.RepetitionLevelsByteLength < 0 ||
			int64(d.DefinitionLevelsByteLength)+int64(d.RepetitionLevelsByteLength) > int64(h.CompressedPageSize) {
			return 0, fmt.Errorf("a data page of %d values claims %d nulls, %d rows and %d + %d bytes of levels in %d bytes",
				d.NumValues, d.NumNulls, d.NumRows, d.DefinitionLevelsByteLength, d.RepetitionLevelsByteLength, h.CompressedPageSize)
		}
		values = int64(d.NumValues)
	case format.DictionaryPage:
		d, ok := h.DictionaryPageHeader.Get()
		if !ok {
			return 0, errors.New("a dictionary page without its header")
		}
		// Every dictionary value takes a byte at least.
		if d.NumValues < 0 || d.NumValues > h.UncompressedPageSize {
			return 0, fmt.Errorf("a dictionary of %d values in %d bytes", d.NumValues, h.UncompressedPageSize)
		}
		return 0, nil
	default:
		return 0, nil // an index page: parquet-go skips it
	}
	if values < 0 || values > maxPageValues {
		return 0, fmt.Errorf("%d values, more than the %d a page may hold", values, maxPageValues)
	}
	return values, nil
}
