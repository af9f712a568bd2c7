package datasets

import (
	"github.com/schedlab/schedlab/pipeline"

	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Streaming reading of the delimited text formats the traces come in.
//
// A CSVFile reads one physical line per row: none of the trace formats
// quotes a line break into a field, and reading by line is what keeps every
// row's line number exact and its raw text at hand for the quarantine. A
// quoted field is still parsed (with encoding/csv's rules) when a line holds
// a double quote; a quote left open at the end of its line makes that row
// bad, not the file. Blank lines are not rows. Memory is bounded by
// MaxLineBytes whatever the file's size.

// MaxLineBytes bounds one input line. A longer line is a bad row (its first
// MaxRawBytes go to the quarantine); the reader skips to the next line.
const MaxLineBytes = 1 << 20

// CSVOptions says how a file is laid out. The zero value is a
// comma-separated file whose first line is a header.
type CSVOptions struct {
	// Comma is the field separator; 0 means ','.
	Comma rune
	// NoHeader says the file has no header row: columns are by position.
	NoHeader bool
	// Names, for a file without a header, names its columns by position
	// in quarantine reasons (a bad field of column i beyond Names is
	// "column i+1").
	Names []string
}

// CSVRow is one data row.
type CSVRow struct {
	Line   int64    // 1-based physical line number in the file
	Fields []string // reused by the next call to Next: copy what you keep
	Raw    string   // the line's text, without its line ending
}

// CSVFile streams the rows of one delimited text file.
type CSVFile struct {
	path   string
	f      *os.File
	br     *bufio.Reader
	comma  byte
	header []string
	cols   map[string]int
	line   int64
	offset int64 // bytes consumed
	fields []string
	long   []byte
	names  []string // column names for reasons: the header, or CSVOptions.Names
}

// OpenCSV opens path and, unless opt.NoHeader, reads its header row. A file
// that is not text (a NUL byte or invalid UTF-8 in its first 4 KiB: gzip,
// Parquet, an image) or, with a header, is empty, is an *InputError
// wrapping ErrFormat.
func OpenCSV(path string, opt CSVOptions) (*CSVFile, error) {
	comma := opt.Comma
	if comma == 0 {
		comma = ','
	}
	if comma >= utf8.RuneSelf || comma == '"' || comma == '\n' || comma == '\r' {
		panic(fmt.Sprintf("datasets: OpenCSV: unsupported separator %q", comma))
	}
	f, _, err := pipeline.OpenRegular(path) // a FIFO would block os.Open for good
	if err != nil {
		return nil, err
	}
	c := &CSVFile{path: path, f: f, br: bufio.NewReaderSize(f, 64<<10), comma: byte(comma), names: opt.Names}
	head, _ := c.br.Peek(4096)
	if !isText(head) {
		f.Close()
		return nil, &InputError{File: path, Err: fmt.Errorf("not a text file (binary content in its first bytes; a compressed or Parquet file?): %w", ErrFormat)}
	}
	if bytes.HasPrefix(head, []byte("\xef\xbb\xbf")) { // a UTF-8 byte-order mark
		c.br.Discard(3)
		c.offset = 3
	}
	if opt.NoHeader {
		return c, nil
	}
	row, err := c.Next()
	if errors.Is(err, io.EOF) {
		f.Close()
		return nil, &InputError{File: path, Line: 1, Err: fmt.Errorf("empty file: no header row: %w", ErrFormat)}
	}
	var bad *BadField
	if errors.As(err, &bad) {
		f.Close()
		return nil, &InputError{File: path, Line: row.Line, Err: fmt.Errorf("header row: %s: %w", bad.Reason, ErrFormat)}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	c.header = append([]string(nil), row.Fields...)
	c.names = c.header
	c.cols = make(map[string]int, len(c.header))
	for i, h := range c.header {
		h = strings.ToLower(strings.TrimSpace(h))
		if _, dup := c.cols[h]; !dup {
			c.cols[h] = i
		}
	}
	return c, nil
}

// isText reports whether the start of a file looks like text: no NUL byte
// and valid UTF-8 (allowing a rune cut at the end of the window).
func isText(b []byte) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return false
	}
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			return len(b) < utf8.UTFMax && !utf8.FullRune(b)
		}
		b = b[n:]
	}
	return true
}

// Path is the file's path as given to OpenCSV.
func (c *CSVFile) Path() string { return c.path }

// Header is the header row (nil with NoHeader).
func (c *CSVFile) Header() []string { return c.header }

// Offset is the number of bytes consumed so far.
func (c *CSVFile) Offset() int64 { return c.offset }

// HasColumn reports whether the header names column (case-insensitively).
func (c *CSVFile) HasColumn(name string) bool {
	_, ok := c.cols[strings.ToLower(name)]
	return ok
}

// Columns returns the positions of the named header columns, in order. A
// column that is missing is an *InputError naming the file and column,
// wrapping ErrFormat.
func (c *CSVFile) Columns(names ...string) ([]int, error) {
	idx := make([]int, len(names))
	for i, n := range names {
		k, ok := c.cols[strings.ToLower(n)]
		if !ok {
			return nil, &InputError{File: c.path, Line: 1, Field: n,
				Err: fmt.Errorf("missing column %q (header: %s): %w", n, strings.Join(c.header, ","), ErrFormat)}
		}
		idx[i] = k
	}
	return idx, nil
}

// Next returns the next row, or io.EOF after the last. A row that cannot be
// split into fields (a quote left open, a line over MaxLineBytes), one with
// bytes that are not UTF-8 (every string we write must be valid UTF-8), or
// one with more fields than the header comes back with the reason in the
// returned *BadField (naming the field at fault where there is one), so that
// the caller quarantines it and goes on; any other error is an I/O error.
func (c *CSVFile) Next() (CSVRow, error) {
	for {
		line, err := c.readLine()
		if err != nil {
			return CSVRow{}, err
		}
		c.line++
		if line == nil { // over MaxLineBytes
			return CSVRow{Line: c.line, Raw: string(c.long)}, &BadField{Reason: fmt.Sprintf("line longer than %d bytes", MaxLineBytes)}
		}
		if blankLine(line) {
			continue
		}
		raw := string(line)
		if !utf8.Valid(line) {
			return CSVRow{Line: c.line, Raw: raw}, c.badUTF8(raw)
		}
		if bytes.IndexByte(line, '"') < 0 {
			c.fields = splitFields(c.fields[:0], raw, c.comma)
			return c.row(raw)
		}
		r := csv.NewReader(strings.NewReader(raw))
		r.Comma = rune(c.comma)
		r.FieldsPerRecord = -1
		rec, err := r.Read()
		if err == nil {
			// A quoted field holding a line break is not supported:
			// the reader saw more than this line.
			if _, err2 := r.Read(); !errors.Is(err2, io.EOF) {
				err = errors.New("more than one record on the line")
			}
		}
		if err != nil {
			return CSVRow{Line: c.line, Raw: raw}, &BadField{Reason: "malformed quoting: " + err.Error()}
		}
		c.fields = append(c.fields[:0], rec...)
		return c.row(raw)
	}
}

// row returns the row just split into c.fields, or a *BadField when it has
// more fields than the header: the extra ones would otherwise be dropped
// unseen.
func (c *CSVFile) row(raw string) (CSVRow, error) {
	r := CSVRow{Line: c.line, Fields: c.fields, Raw: raw}
	if c.header != nil && len(c.fields) > len(c.header) {
		return CSVRow{Line: c.line, Raw: raw}, &BadField{Reason: fmt.Sprintf("%d fields, more than the header's %d", len(c.fields), len(c.header))}
	}
	return r, nil
}

// badUTF8 names the first field of raw (split without regard to quotes)
// that holds bytes that are not UTF-8.
func (c *CSVFile) badUTF8(raw string) *BadField {
	for i, f := range splitFields(nil, raw, c.comma) {
		if utf8.ValidString(f) {
			continue
		}
		at := 0
		for at < len(f) {
			r, n := utf8.DecodeRuneInString(f[at:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			at += n
		}
		name := fmt.Sprintf("column %d", i+1)
		if i < len(c.names) && c.names[i] != "" {
			name = c.names[i]
		}
		return &BadField{Field: name, Reason: fmt.Sprintf("invalid UTF-8 (byte 0x%02x at offset %d of the field)", f[at], at)}
	}
	return &BadField{Reason: "invalid UTF-8"} // not reached: some field is invalid
}

// ValidText returns s cut to at most max bytes (0: no limit) at a rune
// boundary, with every byte that is not part of valid UTF-8 written as
// \xNN: what the quarantine stores of a raw row, so that its string
// columns stay readable by Arrow and DuckDB. Valid text within the limit
// comes back unchanged.
func ValidText(s string, max int) string {
	if utf8.ValidString(s) {
		if max > 0 && len(s) > max {
			cut := max
			for cut > 0 && !utf8.RuneStart(s[cut]) {
				cut--
			}
			s = s[:cut]
		}
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		w := n
		if r == utf8.RuneError && n == 1 {
			w = 4
		}
		if max > 0 && b.Len()+w > max {
			break
		}
		if r == utf8.RuneError && n == 1 {
			fmt.Fprintf(&b, "\\x%02x", s[i])
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// readLine returns the next line without its ending, nil (and the line's
// start in c.long) for a line over MaxLineBytes, io.EOF at the end.
func (c *CSVFile) readLine() ([]byte, error) {
	c.long = c.long[:0]
	var n int // bytes of this line seen so far
	for {
		chunk, err := c.br.ReadSlice('\n')
		c.offset += int64(len(chunk))
		n += len(chunk)
		partial := errors.Is(err, bufio.ErrBufferFull)
		if err != nil && !partial && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read %s: %w", c.path, err)
		}
		if errors.Is(err, io.EOF) && n == 0 {
			return nil, io.EOF
		}
		if partial || len(c.long) > 0 {
			// The line spans buffers: keep at most one byte more
			// than the limit, enough to tell that it is too long.
			if room := MaxLineBytes + 2 - len(c.long); room > 0 {
				c.long = append(c.long, chunk[:min(len(chunk), room)]...)
			}
			if partial {
				continue
			}
			chunk = c.long
		}
		line := bytes.TrimSuffix(chunk, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if n-(len(chunk)-len(line)) > MaxLineBytes {
			c.long = append(c.long[:0], line[:MaxRawBytes]...)
			return nil, nil
		}
		if line == nil {
			line = []byte{}
		}
		return line, nil
	}
}

// splitFields splits an unquoted line at sep.
func splitFields(dst []string, s string, sep byte) []string {
	for {
		i := strings.IndexByte(s, sep)
		if i < 0 {
			return append(dst, s)
		}
		dst = append(dst, s[:i])
		s = s[i+1:]
	}
}

// Close closes the file.
func (c *CSVFile) Close() error { return c.f.Close() }

// BadField is a row-level problem: which field was wrong and why. Readers
// quarantine the row with it and go on.
type BadField struct {
	Field  string
	Reason string
}

func (b *BadField) Error() string {
	if b.Field == "" {
		return b.Reason
	}
	return b.Field + ": " + b.Reason
}

// Field returns field i of row, or a *BadField naming name when the row is
// too short. Field and the parsers below take the column's name so that a
// failure names it for the quarantine; each fails with a *BadField.
func (r *CSVRow) Field(i int, name string) (string, error) {
	if i < 0 || i >= len(r.Fields) {
		return "", &BadField{Field: name, Reason: fmt.Sprintf("row has %d fields, column %d missing", len(r.Fields), i+1)}
	}
	return r.Fields[i], nil
}

// Float parses field i as a finite float.
func (r *CSVRow) Float(i int, name string) (float64, error) {
	s, err := r.Field(i, name)
	if err != nil {
		return 0, err
	}
	return ParseFinite(s, name)
}

// NonNegative parses field i as a finite float ≥ 0.
func (r *CSVRow) NonNegative(i int, name string) (float64, error) {
	v, err := r.Float(i, name)
	if err != nil {
		return 0, err
	}
	if v < 0 {
		return 0, &BadField{Field: name, Reason: fmt.Sprintf("negative value %v", v)}
	}
	return v, nil
}

// Count parses field i as a whole number in [lo, hi]; a float with no
// fractional part ("12.0", as pandas writes integers) is accepted.
func (r *CSVRow) Count(i int, name string, lo, hi int64) (int64, error) {
	s, err := r.Field(i, name)
	if err != nil {
		return 0, err
	}
	s = strings.TrimSpace(s)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		v, ferr := ParseFinite(s, name)
		if ferr != nil {
			return 0, ferr
		}
		if v != math.Trunc(v) {
			return 0, &BadField{Field: name, Reason: fmt.Sprintf("%q is not a whole number", s)}
		}
		if v < float64(lo) || v > float64(hi) {
			return 0, &BadField{Field: name, Reason: fmt.Sprintf("%s out of range [%d, %d]", s, lo, hi)}
		}
		n = int64(v)
	}
	if n < lo || n > hi {
		return 0, &BadField{Field: name, Reason: fmt.Sprintf("%d out of range [%d, %d]", n, lo, hi)}
	}
	return n, nil
}

// ParseFinite parses s (spaces trimmed) as a float that is neither NaN nor
// infinite; it returns a *BadField naming field otherwise.
func ParseFinite(s, field string) (float64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, &BadField{Field: field, Reason: "empty"}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		if len(t) > 64 {
			t = t[:64] + "…"
		}
		if errors.Is(err, strconv.ErrRange) {
			return 0, &BadField{Field: field, Reason: fmt.Sprintf("%q is out of range (beyond ±%g)", t, math.MaxFloat64)}
		}
		return 0, &BadField{Field: field, Reason: fmt.Sprintf("%q is not a number", t)}
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, &BadField{Field: field, Reason: fmt.Sprintf("%q is not finite", t)}
	}
	return v, nil
}

// ExpandInputs turns a reader's inputs into files: a directory stands for
// its entries matching any of patterns (filepath.Match against the base
// name), sorted; a file stands for itself whatever its name. It is an
// error for an input not to exist, for the whole to name no file, or for
// it to name one file twice (by two paths, a link, or a file and its
// directory): its rows would be read twice.
func ExpandInputs(inputs []string, patterns ...string) ([]string, error) {
	files, err := expandInputs(inputs, patterns)
	if err != nil {
		return nil, err
	}
	infos := make([]os.FileInfo, len(files))
	for i, f := range files {
		if infos[i], err = os.Stat(f); err != nil {
			return nil, err
		}
		for j := range i {
			if os.SameFile(infos[i], infos[j]) {
				return nil, fmt.Errorf("%s and %s are the same file, named twice: its rows would be read twice", files[j], f)
			}
		}
	}
	return files, nil
}

// subdirHint names the subdirectories of dir (its entries ents) that hold
// files matching patterns, where a trace's tables are one level down (the
// Google 2011 trace's job_events/): "; they are in its subdirectory
// job_events: --input DIR/job_events", or "" when none does.
func subdirHint(dir string, ents []os.DirEntry, patterns []string) string {
	var hits []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		sub, err := os.ReadDir(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
	files:
		for _, f := range sub {
			for _, p := range patterns {
				if ok, _ := filepath.Match(p, f.Name()); ok && !f.IsDir() {
					hits = append(hits, e.Name())
					break files
				}
			}
		}
	}
	if len(hits) == 0 {
		return ""
	}
	return fmt.Sprintf("; such files are in its subdirectory %s: --input %s", strings.Join(hits, " and "), filepath.Join(dir, hits[0]))
}

func expandInputs(inputs []string, patterns []string) ([]string, error) {
	var files []string
	for _, in := range inputs {
		st, err := os.Stat(in)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, in)
			continue
		}
		ents, err := os.ReadDir(in)
		if err != nil {
			return nil, err
		}
		var found []string
		for _, e := range ents {
			if e.IsDir() {
				continue
			}
			for _, p := range patterns {
				if ok, _ := filepath.Match(p, e.Name()); ok {
					found = append(found, filepath.Join(in, e.Name()))
					break
				}
			}
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no file matching %s in the directory%s", in, strings.Join(patterns, " or "), subdirHint(in, ents, patterns))
		}
		sort.Strings(found)
		files = append(files, found...)
	}
	if len(files) == 0 {
		return nil, errors.New("no input files")
	}
	return files, nil
}

// blankLine reports whether line is empty or only spaces, tabs and
// carriage returns: a line that holds no row, skipped by every reader
// (neither read nor quarantined; a file of millions of them once gave as
// many quarantine rows). The first byte decides for almost every line.
func blankLine(line []byte) bool {
	for _, b := range line {
		if b != ' ' && b != '\t' && b != '\r' {
			return false
		}
	}
	return true
}
