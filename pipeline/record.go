package pipeline

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// MaxRecordBytes bounds every record schedlab reads back and trusts
// (manifest.json, a stage's record, a dataset's _dataset.json, a lock
// file): the largest a real run writes is a few hundred KiB, so a file past
// this is not one of ours, and reading it whole would only exhaust memory.
const MaxRecordBytes = 16 << 20

// OpenRegular opens path for reading and refuses anything but a regular
// file (after symbolic links): a FIFO would block the reader for good and
// /dev/zero never ends. The open itself does not wait on a FIFO.
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s is a %s, not a regular file", path, kindOf(st.Mode()))
	}
	return f, st, nil
}

// ReadRecord reads the regular file at path whole, refusing one of more
// than max bytes (MaxRecordBytes when max <= 0) without reading past the
// bound.
func ReadRecord(path string, max int64) ([]byte, error) {
	if max <= 0 {
		max = MaxRecordBytes
	}
	f, st, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > max {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d a record may hold: not a file schedlab wrote", path, st.Size(), max)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: more than the %d bytes a record may hold: not a file schedlab wrote", path, max)
	}
	return b, nil
}

// kindOf names a file mode's type for messages.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "regular file"
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}
