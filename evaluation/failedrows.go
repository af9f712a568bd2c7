package evaluation

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"os"

	"github.com/schedlab/schedlab/internal/csvtable"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers"
)

// FailedRowsFile is the name, in an experiment's eval/<id>/ directory, of
// the file that lists its failed rows (Report.Failed) when the experiment
// has a row that may fail alone (an external policy with on_error: row):
// what the claims and the exit status of `schedlab run` read, so that a
// row's failure outlives the stage that saw it (a cached rerun included).
const FailedRowsFile = "failed_rows.csv"

var failedRowsHeader = []string{"experiment", "scheduler", "cell", "error"}

// FailedRowsCSV is Report.Failed as FailedRowsFile holds it: a header,
// then one line per failed row (none when every row ran).
func (r *Report) FailedRowsCSV() []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(failedRowsHeader)
	for _, f := range r.FailedRecords() {
		w.Write([]string{f.Experiment, f.Scheduler, f.Cell, f.Err})
	}
	w.Flush()
	return b.Bytes()
}

// FailedRowRecord is one line of a FailedRowsFile.
type FailedRowRecord struct {
	Experiment, Scheduler, Cell, Err string
}

// FailedRecords is Report.Failed as the records of a FailedRowsFile.
func (r *Report) FailedRecords() []FailedRowRecord {
	var out []FailedRowRecord
	for _, f := range r.Failed {
		out = append(out, FailedRowRecord{Experiment: r.Spec.Experiment, Scheduler: string(f.Scheduler), Cell: f.Cell.Key(), Err: f.Err})
	}
	return out
}

// ReadFailedRows reads a FailedRowsFile; a file that does not exist is no
// failed row (nil, nil). Errors name the file and line.
func ReadFailedRows(path string) ([]FailedRowRecord, error) {
	var out []FailedRowRecord
	err := csvtable.Read(path, failedRowsHeader, func(rec []string, _ func(int) (int, int)) error {
		out = append(out, FailedRowRecord{Experiment: rec[0], Scheduler: rec[1], Cell: rec[2], Err: rec[3]})
		return nil
	})
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Message is the record in one line, for a log or an error.
func (f FailedRowRecord) Message() string {
	return fmt.Sprintf("row %s of %s failed at cell %s: %s", schedulers.Display(f.Scheduler), f.Experiment, f.Cell, f.Err)
}

func writeFailedRows(path string, r *Report) error {
	return pipeline.WriteFileAtomic(path, r.FailedRowsCSV())
}
