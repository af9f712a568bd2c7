// Package parquetfile opens Parquet files that schedlab reads, whatever
// their bytes, without letting parquet-go crash the process: every reader
// (datasets.ReadParquet, datasets.InspectTable, the pipeline runner's row
// counts) opens through Open.
//
// Data enters as a path and leaves as an open *parquet.File, or as an
// error wrapping ErrNotParquet. Before parquet-go decodes anything, Open
// checks the trailer (magic, footer length within the file), walks the
// footer's thrift encoding to check that no length or count claims more
// than the footer holds (parquet-go allocates what they claim, and the
// runtime's out-of-memory is a fatal error), then checks that each column
// chunk lies inside the file and is not LZ4_RAW-compressed, that the row
// counts add up and fit the file's size, and that no page header claims
// more bytes or values than its chunk and a page can hold. Page indexes
// and bloom filters are not read: schedlab reads whole tables, and a
// corrupt page index is where parquet-go panics (slice bounds in
// File.ReadPageIndex). A panic that remains is recovered into an error.
package parquetfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// ErrNotParquet is wrapped by every error of Open that is about the
// file's content: not Parquet, corrupt, or using what schedlab cannot
// read safely.
var ErrNotParquet = errors.New("not a readable Parquet file")

// Open opens the Parquet file at path for reading. The caller closes the
// returned *os.File when done with the *parquet.File.
func Open(path string) (_ *os.File, _ *parquet.File, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if err != nil {
			f.Close() // f, not the result, which an error return sets to nil
		}
	}()
	defer Recover(&err)
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if err := checkFooter(f, st.Size()); err != nil {
		return nil, nil, fmt.Errorf("%w (%w)", ErrNotParquet, err)
	}
	pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, nil, fmt.Errorf("%w (%w)", ErrNotParquet, err)
	}
	if err := checkColumnChunks(pf, st.Size()); err != nil {
		return nil, nil, fmt.Errorf("%w (%w)", ErrNotParquet, err)
	}
	if err := checkRowCounts(pf.Metadata(), st.Size()); err != nil {
		return nil, nil, fmt.Errorf("%w (%w)", ErrNotParquet, err)
	}
	if err := checkPages(f, pf); err != nil {
		return nil, nil, fmt.Errorf("%w (%w)", ErrNotParquet, err)
	}
	return f, pf, nil
}

// Recover turns a panic inside parquet-go, which some corrupt files still
// cause, into an error wrapping ErrNotParquet. Defer it, as it is, around
// calls into parquet-go's reader.
func Recover(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%w (parquet-go panicked: %v)", ErrNotParquet, r)
	}
}

// checkFooter checks a Parquet file's trailer (footer length and magic)
// and the sizes its footer's metadata states (checkThrift) before
// parquet-go allocates what they claim.
func checkFooter(f io.ReaderAt, size int64) error {
	const magic = "PAR1"
	if size < 2*int64(len(magic))+4 {
		return fmt.Errorf("%d bytes, too short", size)
	}
	var tail [8]byte
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return err
	}
	if string(tail[4:]) != magic {
		return fmt.Errorf("no %s magic at its end", magic)
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n > size-12 {
		return fmt.Errorf("footer of %d bytes in a file of %d", n, size)
	}
	footer := make([]byte, n)
	if _, err := f.ReadAt(footer, size-8-n); err != nil {
		return err
	}
	return checkThrift(footer)
}

// checkColumnChunks checks what the footer says of each column chunk
// before parquet-go reads one: that it lies inside the file, and that it
// is not compressed with LZ4_RAW, whose decoder in parquet-go doubles its
// buffer without end on corrupt data until the process runs out of memory.
// Arrow and DuckDB write Snappy or ZSTD unless told otherwise; `COPY (FROM
// 'in.parquet') TO 'out.parquet' (COMPRESSION zstd)` in DuckDB rewrites a
// file.
func checkColumnChunks(pf *parquet.File, size int64) error {
	for i, rg := range pf.Metadata().RowGroups {
		for _, c := range rg.Columns {
			md := &c.MetaData
			col := strings.Join(md.PathInSchema, ".")
			if md.Codec == format.Lz4Raw {
				return fmt.Errorf("column %s: LZ4_RAW compression is not supported (rewrite the file with ZSTD or Snappy)", col)
			}
			start := md.DataPageOffset
			if md.DictionaryPageOffset > 0 {
				start = min(start, md.DictionaryPageOffset)
			}
			if start < 4 || md.TotalCompressedSize < 0 || md.TotalCompressedSize > size-start {
				return fmt.Errorf("row group %d, column %s: %d bytes at offset %d, outside the file of %d bytes", i, col, md.TotalCompressedSize, start, size)
			}
		}
	}
	return nil
}
