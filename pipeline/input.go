package pipeline

import (
	"bytes"
	"fmt"
	"io"
)

// Bounds on a side input: a file a command reads beside its main tables
// (a profiler's text, Gavel's or Lucid's measurements, a model or
// environment JSON, an arrivals CSV). The largest real one is a few
// megabytes; a longer line than MaxInputLine is no line of any format
// schedlab reads (ingest's traces have the same bound).
const (
	MaxInputBytes = 256 << 20
	MaxInputLine  = 1 << 20
)

// OpenInput opens the regular file at path for reading as a side input:
// a FIFO or device is refused before the open can wait on it
// (OpenRegular), a file of more than max bytes (MaxInputBytes when max <=
// 0) is refused at once, and the reader refuses, with an error naming the
// file and the line, a line longer than MaxInputLine and any byte past
// max should the file grow while it is read.
func OpenInput(path string, max int64) (io.ReadCloser, error) {
	if max <= 0 {
		max = MaxInputBytes
	}
	f, st, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	if st.Size() > max {
		f.Close()
		return nil, fmt.Errorf("%s: %d bytes, more than the %d an input of its kind may hold", path, st.Size(), max)
	}
	return &boundedInput{f: f, path: path, left: max, line: 1}, nil
}

// ReadInput reads the side input at path whole (OpenInput).
func ReadInput(path string, max int64) ([]byte, error) {
	r, err := OpenInput(path, max)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return b, nil
}

// boundedInput is OpenInput's reader.
type boundedInput struct {
	f    io.ReadCloser
	path string
	left int64 // bytes it may still read
	line int64 // the line being read, from 1
	cur  int   // bytes of that line read so far
}

func (b *boundedInput) Read(p []byte) (int, error) {
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.f.Read(p)
	if int64(n) > b.left {
		return 0, fmt.Errorf("%s grew past the %d bytes it may hold while being read", b.path, b.left)
	}
	b.left -= int64(n)
	for chunk := p[:n]; ; {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			b.cur += len(chunk)
			break
		}
		if b.cur+i > MaxInputLine {
			b.cur += i
			break
		}
		b.cur, b.line, chunk = 0, b.line+1, chunk[i+1:]
	}
	if b.cur > MaxInputLine {
		return 0, fmt.Errorf("%s:%d: a line longer than %d bytes", b.path, b.line, MaxInputLine)
	}
	return n, err
}

func (b *boundedInput) Close() error { return b.f.Close() }
