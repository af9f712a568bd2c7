package datasets

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/internal/parquettest"
)

// realParquet writes rows with the writer schedlab uses and returns the
// file's bytes: the seeds that corruption tests and fuzz targets damage.
func realParquet[T any](t testing.TB, rows []T) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "seed.parquet")
	if err := WriteParquet(path, FileMeta{Source: "test", ConfigHash: "0123"}, rows); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func seedArrivals() []Arrival {
	return []Arrival{{0, 0, 3}, {1, 1800, 0}, {2, 3600, 11}, {4, 7200, 2}}
}

// Readers of each entry point that reads a Parquet file: describe (what
// schedlab datasets describe does with it), jobs (eval --jobs, train
// --jobs, the pipeline's stages) and arrivals (the MARL workloads).
func readDescribe(path string) error {
	info, err := InspectTable(path)
	if err != nil {
		return err
	}
	switch info.Kind {
	case KindJobs:
		_, err = ReadParquet[Job](path)
	case KindArrivals:
		_, err = DescribeArrivals(path)
	}
	return err
}

func readJobsTable(path string) error {
	_, err := ReadParquet[Job](path)
	return err
}

func readArrivalsTable(path string) error {
	_, err := ReadArrivals(path)
	return err
}

// TestReadParquetCorruptFooters damages the footer of real jobs and
// arrivals files in 300 seeded ways each and reads every copy with every
// entry point: each must be read or refused with an error naming the file,
// never panic (parquet-go panicked on some, in File.ReadPageIndex).
//
// It also counts the process's open files: a refused file must be closed
// (the fuzz target ran out of descriptors when an error return left the
// file open).
func TestReadParquetCorruptFooters(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 5))
	dir := t.TempDir()
	openFiles := func() int {
		fds, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			return -1 // not Linux: no count
		}
		return len(fds)
	}
	// Up to 3 more: the runtime opens a few descriptors (epoll) lazily; a
	// leak is one per refused file, hundreds here.
	defer func(before int) {
		if after := openFiles(); after > before+3 {
			t.Errorf("%d files open after the reads, %d before", after, before)
		}
	}(openFiles())
	for _, seed := range []struct {
		name    string
		data    []byte
		readers []func(string) error
	}{
		{"jobs", realParquet(t, sampleJobs()), []func(string) error{readDescribe, readJobsTable}},
		{"arrivals", realParquet(t, seedArrivals()), []func(string) error{readDescribe, readArrivalsTable}},
	} {
		read := 0
		const n = 300
		for range n {
			bad := parquettest.CorruptFooter(rng, seed.data)
			for _, r := range seed.readers {
				if parquettest.Check(t, dir, seed.name+".parquet", bad, r) {
					read++
				}
			}
		}
		t.Logf("%s: %d corrupted copies, %d reads of %d succeeded", seed.name, n, read, n*len(seed.readers))
	}
}

// TestReadParquetFooterClaims gives every list of structs in a jobs file's
// footer a size of 2³¹−1: parquet-go allocates that many row groups or
// columns before reading one, which ended the process with a fatal "out
// of memory" that no recover catches. Each must be refused naming the file.
func TestReadParquetFooterClaims(t *testing.T) {
	seed := realParquet(t, sampleJobs())
	n := int(binary.LittleEndian.Uint32(seed[len(seed)-8:]))
	dir := t.TempDir()
	tried := 0
	for i := len(seed) - 8 - n; i < len(seed)-8-6; i++ {
		// A compact-protocol list header: size in the high nibble, element
		// type STRUCT (12) in the low one. Some matches are other bytes;
		// every one must be read or refused all the same.
		if seed[i]&0x0f != 12 || seed[i]>>4 == 0 {
			continue
		}
		b := append([]byte(nil), seed...)
		b[i] = 0xfc // size follows as a varint
		copy(b[i+1:], []byte{0xff, 0xff, 0xff, 0xff, 0x07})
		parquettest.Check(t, dir, "jobs.parquet", b, readDescribe)
		tried++
	}
	if tried < 3 {
		t.Fatalf("only %d list headers found in the footer", tried)
	}
}

func fuzzSeeds(f *testing.F, file []byte) { parquettest.AddSeeds(f, file, 1) }

// FuzzDescribe: schedlab datasets describe on any bytes reads or refuses
// them with an error naming the file.
func FuzzDescribe(f *testing.F) {
	fuzzSeeds(f, realParquet(f, sampleJobs()))
	fuzzSeeds(f, realParquet(f, seedArrivals()))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		parquettest.Check(t, dir, "describe.parquet", data, readDescribe)
	})
}

// FuzzReadJobs: a jobs table (eval --jobs, train --jobs, the stages).
func FuzzReadJobs(f *testing.F) {
	fuzzSeeds(f, realParquet(f, sampleJobs()))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		parquettest.Check(t, dir, "jobs.parquet", data, readJobsTable)
	})
}

// FuzzReadArrivals: an arrivals table (the MARL workloads' arrivals).
func FuzzReadArrivals(f *testing.F) {
	fuzzSeeds(f, realParquet(f, seedArrivals()))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		parquettest.Check(t, dir, "arrivals.parquet", data, readArrivalsTable)
	})
}
