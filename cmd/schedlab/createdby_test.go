package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
)

// TestParquetCreatedBy: the created_by that datasets writes names the
// parquet-go version this binary is built with (a test binary of package
// main has the module build information that parquet-go's own default
// reads), and a file written carries it.
func TestParquetCreatedBy(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("no build information")
	}
	var version string
	for _, d := range bi.Deps {
		if d.Path == datasets.ParquetGoModule {
			version = d.Version
		}
	}
	if version == "" {
		t.Fatalf("%s is not among the binary's %d dependencies", datasets.ParquetGoModule, len(bi.Deps))
	}
	if version != "v"+datasets.ParquetGoVersion {
		t.Errorf("datasets.ParquetGoVersion is %s; the binary is built with %s %s", datasets.ParquetGoVersion, datasets.ParquetGoModule, version)
	}
	p := filepath.Join(t.TempDir(), "jobs.parquet")
	if err := datasets.WriteParquet(p, datasets.FileMeta{Source: "test"}, []datasets.Job{{JobID: "a"}}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := datasets.ParquetGoModule + " version " + datasets.ParquetGoVersion + "(build )"; !strings.Contains(string(b), want) {
		t.Errorf("the file does not say it was created by %q", want)
	}
}
