package datasets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/parquet-go/parquet-go"
	"github.com/schedlab/schedlab/internal/parquetfile"
	"github.com/schedlab/schedlab/pipeline"
)

// Metadata keys written to every Parquet file schedlab produces.
const (
	MetaSchemaVersion = "schedlab.schema_version"
	MetaSource        = "schedlab.source"
	MetaConfigHash    = "schedlab.config_hash"
)

// FileMeta is the provenance written into a Parquet file's key-value
// metadata. It never holds a timestamp, so outputs stay byte-identical.
type FileMeta struct {
	Source     string // where the rows came from: a trace name or "synthetic"
	ConfigHash string // hash of the producing run's effective config
}

// The created_by of every Parquet file schedlab writes: parquet-go's own
// default as the schedlab binary writes it ("github.com/parquet-go/
// parquet-go version 0.32.0(build )"), set explicitly because parquet-go
// derives its default from the module build information of the running
// binary, which a test binary of a non-main package lacks (golang/go#33976,
// #76926): a Temporal worker inside such a test binary wrote
// "github.com/parquet-go/parquet-go" alone, and so other bytes than the
// schedlab binary's workers. ParquetGoVersion is the version go.mod
// requires; cmd/schedlab's TestParquetCreatedBy checks it against the
// binary's build information, so an upgrade cannot leave it behind.
const (
	ParquetGoModule  = "github.com/parquet-go/parquet-go"
	ParquetGoVersion = "0.32.0"
)

func (m FileMeta) options() []parquet.WriterOption {
	return []parquet.WriterOption{
		parquet.CreatedBy(ParquetGoModule, ParquetGoVersion, ""),
		parquet.KeyValueMetadata(MetaSchemaVersion, SchemaVersion),
		parquet.KeyValueMetadata(MetaSource, m.Source),
		parquet.KeyValueMetadata(MetaConfigHash, m.ConfigHash),
		parquet.Compression(&parquet.Zstd),
	}
}

// ParquetWriter writes rows of type T to a Parquet file atomically: the file
// appears under its name only after Close succeeds.
type ParquetWriter[T any] struct {
	f    *pipeline.AtomicFile
	w    *parquet.GenericWriter[T]
	rows int64
}

// CreateParquet starts a Parquet file of T rows at path.
func CreateParquet[T any](path string, meta FileMeta) (*ParquetWriter[T], error) {
	f, err := pipeline.CreateAtomic(path)
	if err != nil {
		return nil, err
	}
	return &ParquetWriter[T]{f: f, w: parquet.NewGenericWriter[T](f, meta.options()...)}, nil
}

// Write appends rows.
func (p *ParquetWriter[T]) Write(rows []T) error {
	if _, err := p.w.Write(rows); err != nil {
		return fmt.Errorf("write %s: %w", p.f.Path(), err)
	}
	p.rows += int64(len(rows))
	return nil
}

// Rows is the number of rows written so far.
func (p *ParquetWriter[T]) Rows() int64 { return p.rows }

// Close finishes the file and moves it into place.
func (p *ParquetWriter[T]) Close() error {
	if err := p.w.Close(); err != nil {
		p.f.Abort()
		return fmt.Errorf("write %s: %w", p.f.Path(), err)
	}
	return p.f.Commit()
}

// Abort discards the file; safe after Close.
func (p *ParquetWriter[T]) Abort() { p.f.Abort() }

// WriteParquet writes rows to path in one go.
func WriteParquet[T any](path string, meta FileMeta, rows []T) error {
	w, err := CreateParquet[T](path, meta)
	if err != nil {
		return err
	}
	defer w.Abort()
	if err := w.Write(rows); err != nil {
		return err
	}
	return w.Close()
}

// ReadParquet reads every row of a Parquet file of T rows. The file's
// schema must match T's (see schema.go): a column of T that the file lacks,
// names differently (nested ones included) or types differently is an
// *InputError naming the file and column, as is a null in a column T
// requires. A file that is not Parquet or is corrupt is an error naming it,
// never a panic.
//
// path may also be a partitioned dataset (IsDataset: its directory or its
// DatasetFile): then every partition of its table, in the record's order,
// each checked against its recorded sha256.
//
// Every row is held to the bounds of columnBounds, a jobs table to
// ingest's own (CheckJob) and to unique job ids: a row outside them is an
// *InputError naming the file, the row and the field.
func ReadParquet[T any](path string) (rows []T, err error) {
	return ReadParquetDefaults[T](path, nil)
}

// Defaults are the values of the columns that the older files of a table
// whose columns grew lack: by top-level column name, the function that
// sets a row's value of it. ReadParquetDefaults reads a file without such
// a column as though it held them; every other column must be there.
type Defaults[T any] map[string]func(*T)

// ReadParquetDefaults is ReadParquet of a table that older files hold with
// fewer columns: a column of d that a file lacks is set by d's function on
// each of its rows (before the rows are held to the bounds).
func ReadParquetDefaults[T any](path string, d Defaults[T]) (rows []T, err error) {
	check := newTableCheck[T]()
	check.defaults = d
	if dir, ok := IsDataset(path); ok {
		return readDatasetTable(dir, check)
	}
	rows, err = readParquetFile(path, check)
	if err != nil {
		return nil, err
	}
	if err := check.done(); err != nil {
		return nil, err
	}
	return rows, nil
}

// readParquetFile is ReadParquet of one file, its rows held to check (nil:
// none) as they are read.
func readParquetFile[T any](path string, check *tableCheck[T]) (rows []T, err error) {
	f, pf, err := openParquet(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	defer recoverCorrupt(path, &err)
	return readRows(path, pf, check)
}

// readChunk bounds the rows readRows reads between two checks: a table
// of repeated or out-of-bounds rows is refused after at most this many,
// however many its footer claims.
const readChunk = 16 << 10

// readRows reads every row of T (the file's schema, or a projection of
// it) from pf, holding each chunk of rows to check (nil: none) as it
// arrives. The caller recovers parquet-go's panics (recoverCorrupt).
func readRows[T any](path string, pf *parquet.File, check *tableCheck[T]) ([]T, error) {
	if check != nil && check.defaults != nil {
		_, missing, err := checkParquetSchemaAbsent(path, parquet.SchemaOf(new(T)), pf,
			func(name string) bool { return check.defaults[name] != nil })
		if err != nil {
			return nil, err
		}
		if len(missing) > 0 {
			return readOlderRows(path, pf, check, missing)
		}
	}
	var out []T
	var bad error
	err := scanRows(path, pf, func(r *parquet.GenericReader[T], numRows int64) error {
		// The footer's row count sizes the result, up to a bound and to
		// a row for every 8 bytes of the file (a jobs table takes about
		// 12): a file of millions of repeated rows in a few megabytes
		// allocates little before its second row is refused, and larger
		// tables grow as they are read.
		out = make([]T, 0, min(max(numRows, 0), maxPreallocRows, pf.Size()/8))
		if check != nil {
			check.expectRows(numRows)
		}
		for {
			if len(out) == cap(out) {
				out = slices.Grow(out, 1)
			}
			n, err := r.Read(out[len(out):min(cap(out), len(out)+readChunk)])
			if check != nil {
				if bad = check.check(path, out[len(out):len(out)+n], int64(len(out))); bad != nil {
					return bad
				}
			}
			out = out[:len(out)+n]
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
		}
	})
	if bad != nil {
		return nil, bad
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readKeys reads the rows of a partition file as R (its key columns) and
// returns the key of each.
func readKeys[R, K any](path string, pf *parquet.File, key func(R) K) ([]K, error) {
	rows, err := readRows[R](path, pf, nil)
	if err != nil {
		return nil, err
	}
	keys := make([]K, len(rows))
	for i, r := range rows {
		keys[i] = key(r)
	}
	return keys, nil
}

// scanParquetFile opens the Parquet file at path and scans it (scanRows);
// a panic of parquet-go's on a corrupt page is an error naming the file.
func scanParquetFile[T any](path string, read func(r *parquet.GenericReader[T], numRows int64) error) (err error) {
	f, pf, err := openParquet(path)
	if err != nil {
		return err
	}
	defer f.Close()
	defer recoverCorrupt(path, &err)
	return scanRows(path, pf, read)
}

// scanRows checks pf's schema against T's and its required columns for
// nulls (ReadParquet), and hands read a reader of its rows and the
// footer's row count. An error of the reader is an error naming the file.
func scanRows[T any](path string, pf *parquet.File, read func(r *parquet.GenericReader[T], numRows int64) error) error {
	checks, err := checkParquetSchema(path, parquet.SchemaOf(new(T)), pf)
	if err != nil {
		return err
	}
	if err := scanNulls(path, checks); err != nil {
		return err
	}
	r := parquet.NewGenericReader[T](pf)
	defer r.Close()
	if err := read(r, pf.NumRows()); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// WriteParquetRows writes to path the rows that fill hands to emit, in
// the order it hands them: byte for byte the file WriteParquet(path, meta,
// all of them) writes, holding a batch of rows at a time rather than all
// of them. emit does not keep its slice. An error of fill, or of emit,
// leaves no file.
//
// parquet-go's writer cuts the rows of each Write into chunks of 64 and
// may end a page after any chunk, so the rows go to it in batches of a
// multiple of 64 (the last excepted): its chunks, and so its pages, are
// those of one Write of every row.
func WriteParquetRows[T any](path string, meta FileMeta, fill func(emit func([]T) error) error) error {
	return writeParquetRows(path, meta, writeBatch, fill)
}

// writeBatch is WriteParquetRows' batch: a multiple of 64 rows.
const writeBatch = 64 << 10

func writeParquetRows[T any](path string, meta FileMeta, batch int, fill func(emit func([]T) error) error) error {
	w, err := CreateParquet[T](path, meta)
	if err != nil {
		return err
	}
	defer w.Abort()
	var pend []T // grows to at most batch rows, as the rows need
	err = fill(func(rows []T) error {
		for len(rows) > 0 {
			k := min(len(rows), batch-len(pend))
			pend = append(pend, rows[:k]...)
			rows = rows[k:]
			if len(pend) == batch {
				if err := w.Write(pend); err != nil {
					return err
				}
				clear(pend) // drop the rows' strings
				pend = pend[:0]
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(pend) > 0 {
		if err := w.Write(pend); err != nil {
			return err
		}
	}
	return w.Close()
}

// ConcatParquet writes the rows of the Parquet files (or datasets) at
// inputs, as ReadParquet reads them and in that order, to one Parquet file
// at path (WriteParquetRows: the bytes of one WriteParquet of them all).
func ConcatParquet[T any](ctx context.Context, path string, meta FileMeta, inputs []string) error {
	return concatParquet[T](ctx, path, meta, inputs, writeBatch)
}

func concatParquet[T any](ctx context.Context, path string, meta FileMeta, inputs []string, batch int) error {
	return writeParquetRows(path, meta, batch, func(emit func([]T) error) error {
		var buf []T // grows to at most batch rows, as the inputs need
		check := newTableCheck[T]()
		for _, in := range inputs {
			if err := ctx.Err(); err != nil {
				return err
			}
			if dir, ok := IsDataset(in); ok {
				rows, err := readDatasetTable(dir, check)
				if err == nil {
					err = emit(rows)
				}
				if err != nil {
					return err
				}
				continue
			}
			err := scanParquetFile(in, func(r *parquet.GenericReader[T], numRows int64) error {
				if n := int(min(max(numRows, 1), int64(batch))); len(buf) < n {
					buf = make([]T, n)
				}
				var done int64
				for {
					if err := ctx.Err(); err != nil {
						return err
					}
					clear(buf)
					n, err := r.Read(buf)
					if cerr := check.check(in, buf[:n], done); cerr != nil {
						return cerr
					}
					done += int64(n)
					if werr := emit(buf[:n]); werr != nil {
						return werr
					}
					if errors.Is(err, io.EOF) {
						return nil
					}
					if err != nil {
						return err
					}
				}
			})
			if err != nil {
				return err
			}
		}
		return check.done()
	})
}

// maxPreallocRows bounds the rows ReadParquet allocates on the word of a
// file's footer alone; larger tables grow as they are read.
const maxPreallocRows = 1 << 20

// openParquet opens a Parquet file for reading (parquetfile.Open): what
// is not a Parquet file, or is corrupt, is an *InputError naming path.
func openParquet(path string) (*os.File, *parquet.File, error) {
	// A FIFO would block the open below for good, and a device has no
	// footer to find: only a regular file is a table.
	f, _, err := pipeline.OpenRegular(path)
	if err != nil {
		return nil, nil, err
	}
	f.Close()
	f, pf, err := parquetfile.Open(path)
	if errors.Is(err, parquetfile.ErrNotParquet) {
		return nil, nil, &InputError{File: path, Err: fmt.Errorf("%w: %w", err, ErrFormat)}
	}
	return f, pf, err
}

// recoverCorrupt turns a panic inside parquet-go, which some corrupt files
// cause, into an error naming the file. It is deferred around every call
// into parquet-go's reader, and nowhere else.
func recoverCorrupt(path string, err *error) {
	if r := recover(); r != nil {
		*err = &InputError{File: path, Err: fmt.Errorf("corrupt Parquet file (parquet-go: %v): %w", r, ErrFormat)}
	}
}

// WriteJobsFrom drains a channel of jobs records into a Parquet file at
// path, releasing every record it receives. It returns the number of rows.
func WriteJobsFrom(ctx context.Context, path string, meta FileMeta, in <-chan arrow.Record) (int64, error) {
	w, err := CreateParquet[Job](path, meta)
	if err != nil {
		return 0, err
	}
	defer w.Abort()
	var buf []Job
	for {
		rec, ok, err := pipeline.Recv(ctx, in)
		if err != nil {
			return 0, err
		}
		if !ok {
			break
		}
		buf, err = JobsFromRecord(buf[:0], rec)
		rec.Release()
		if err != nil {
			return 0, err
		}
		if err := w.Write(buf); err != nil {
			return 0, err
		}
	}
	n := w.Rows()
	return n, w.Close()
}

// readOlderRows reads the rows of a file of an older layout of T, without
// the columns missing (ReadParquetDefaults), setting those by
// check.defaults. parquet-go cannot convert such a file to T's schema, so
// its rows are read as a struct of T's other fields, copied into T by
// field. Such files are small and old: this path is not the fast one.
func readOlderRows[T any](path string, pf *parquet.File, check *tableCheck[T], missing []string) ([]T, error) {
	fields := parquetfile.Without(reflect.TypeFor[T](), missing)
	older := reflect.StructOf(fields)
	schema := parquet.SchemaOf(reflect.New(older).Interface())
	checks, err := checkParquetSchema(path, schema, pf)
	if err != nil {
		return nil, err
	}
	if err := scanNulls(path, checks); err != nil {
		return nil, err
	}
	check.expectRows(pf.NumRows())
	r := parquet.NewReader(pf, schema)
	defer r.Close()
	out := make([]T, 0, min(max(pf.NumRows(), 0), maxPreallocRows, pf.Size()/8))
	for {
		v := reflect.New(older)
		if err := r.Read(v.Interface()); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		var row T
		dst := reflect.ValueOf(&row).Elem()
		for j, f := range fields {
			dst.FieldByIndex(f.Index).Set(v.Elem().Field(j))
		}
		for _, name := range missing {
			check.defaults[name](&row)
		}
		out = append(out, row)
	}
	if err := check.check(path, out, 0); err != nil {
		return nil, err
	}
	return out, nil
}
