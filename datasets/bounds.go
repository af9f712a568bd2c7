package datasets

import (
	"fmt"
	"hash/maphash"
	"math"
	"reflect"
	"strings"
	"sync"
)

// columnBounds is the one table of the plausible ranges of every numeric
// column schedlab's tables hold, by Parquet column name. Its ranges are the
// Max… constants that ingest holds each job to (CheckJob), so a table read
// back (ReadParquet, ConcatParquet: jobs, arrivals, profile samples,
// curves, results, metrics, history partitions) is held to the same
// bounds as one ingest wrote: no file can hand a command a task of two
// billion instances, a NaN or infinite duration or a negative time. A
// column not listed here is not bounded; a listed one is wherever it
// appears, nested columns (a job's tasks, a sample's co-runners) included.
// Read errors name the file, the row and the column.
var columnBounds = map[string]span{
	// Jobs (CheckJob's bounds, the same constants).
	"submit_s":   {0, MaxSubmitS},
	"duration_s": {0, MaxDurationS},
	"instances":  {1, MaxInstances},
	"gpu":        {0, MaxGPUPerInstance},
	"cpu":        {0, MaxCPUPerInstance},
	"mem_gib":    {0, MaxMemGiBPerInstance},
	// Per-job results: a job's GPUs, its simulated times, fee and slowdown.
	"gpus":     {0, MaxGPUPerInstance * MaxInstances},
	"start_s":  {0, math.MaxFloat64},
	"finish_s": {0, math.MaxFloat64},
	"jct_s":    {0, math.MaxFloat64},
	"queue_s":  {0, math.MaxFloat64},
	"run_s":    {0, math.MaxFloat64},
	"fee_usd":  {0, math.MaxFloat64},
	// A job's slowdown (results), or a profile sample's relative one,
	// which noise makes slightly negative where co-runners cost nothing:
	// S is a run time (1 + S)·t over the time alone t, so never below −1.
	"slowdown": {-1, math.MaxFloat64},
	// Per-cell metrics and history rows.
	"jobs":          {0, math.MaxFloat64},
	"pruned":        {0, math.MaxFloat64},
	"decisions":     {0, math.MaxFloat64},
	"mean_jct_s":    {0, math.MaxFloat64},
	"p50_jct_s":     {0, math.MaxFloat64},
	"p95_jct_s":     {0, math.MaxFloat64},
	"mean_fee_usd":  {0, math.MaxFloat64},
	"mean_queue_s":  {0, math.MaxFloat64},
	"mean_slowdown": {0, math.MaxFloat64},
	"makespan_s":    {0, math.MaxFloat64},
	"gpu_util":      {0, math.MaxFloat64},
	// Arrivals.
	"interval": {0, math.MaxFloat64},
	// Profile samples (a server's resources, as a node's).
	"cpu_cores":        {0, MaxCPUPerInstance},
	"cores_per_socket": {0, MaxCPUPerInstance},
	"pcie_gbps":        {0, math.MaxFloat64},
	"repetitions":      {0, math.MaxFloat64},
	// Training curves.
	"episode": {0, math.MaxFloat64},
	// GPU-sharing samples and profiles (gpu_share_samples): standalone
	// throughputs in iterations or samples a second (Gavel's and Lucid's
	// span 0.01 to a few thousand), utilisations as fractions, GPU memory
	// in MiB, and a job's speed beside a co-runner relative to alone,
	// which noise lifts a little above 1 but never by orders of magnitude.
	"job_solo":       {MinThroughput, MaxThroughput},
	"co_solo":        {MinThroughput, MaxThroughput},
	"solo":           {MinThroughput, MaxThroughput},
	"job_gpu_util":   {0, 1},
	"co_gpu_util":    {0, 1},
	"job_gmem_mib":   {0, MaxGMemMiB},
	"co_gmem_mib":    {0, MaxGMemMiB},
	"job_batch_size": {0, MaxBatchSize},
	"co_batch_size":  {0, MaxBatchSize},
	"speed":          {0, MaxShareSpeed},
	// Interference-model coefficients, read from files (fit/model.json,
	// an environment's GPU-sharing term) by fitting.InterferenceModel,
	// sim.ExpLinear and sim.ShareTerm: within these, a prediction over
	// loads inside their own bounds stays finite, where 1e308 gave +Inf.
	// alpha2 and alpha3 scale an exponent: the fit's own range.
	"alpha1":  {0, MaxCoefficient},
	"alpha2":  {-MaxExponent, MaxExponent},
	"alpha3":  {-MaxExponent, MaxExponent},
	"beta1":   {-MaxCoefficient, MaxCoefficient},
	"beta2":   {-MaxCoefficient, MaxCoefficient},
	"lambda":  {-MaxCoefficient, MaxCoefficient},
	"lambda1": {-MaxCoefficient, MaxCoefficient},
	"lambda2": {-MaxCoefficient, MaxCoefficient},
	// Every parameter and per-type effect of a GPU-sharing form (a speed
	// relative to alone, or its change per unit of utilisation), but the
	// saturating form's rate, which the fit holds to [0, 50].
	"gpu_share_param": {-MaxCoefficient, MaxCoefficient},
	"gpu_share_beta":  {0, MaxShareBeta},
}

// Bounds of the GPU-sharing columns (columnBounds).
const (
	MinThroughput = 1e-6 // iterations a second: one a fortnight
	MaxThroughput = 1e9
	MaxGMemMiB    = 1 << 20 // 1 TiB of GPU memory
	MaxBatchSize  = 1 << 24
	MaxShareSpeed = 100 // co-located throughput over standalone
)

// Bounds of the interference models' coefficients (columnBounds). Fitted
// ones are below 10 in magnitude (DefaultModel's below 0.4; Gavel's and
// Lucid's sharing terms about 1): MaxCoefficient leaves three orders of
// magnitude and keeps every prediction finite.
const (
	MaxCoefficient = 1e4
	MaxExponent    = 5  // per core share: exp(5) per core already dwarfs any measured slowdown
	MaxShareBeta   = 50 // the saturating form's rate over utilisations in [0, 2]
)

// CheckValue holds v, a value of the column named column, to its bounds
// in columnBounds; a column without bounds holds any value. The reason
// says which bound v breaks.
func CheckValue(column string, v float64) *BadField {
	if s, ok := columnBounds[column]; ok && !s.holds(v) {
		return &BadField{Field: column, Reason: fmt.Sprintf("%g outside %s", v, s)}
	}
	return nil
}

// CheckRow holds the numeric fields of *row, a struct with parquet tags,
// to columnBounds, as ReadParquet holds a table's rows: it returns the
// first field outside its bounds, or nil.
func CheckRow(row any) *BadField {
	v := reflect.ValueOf(row)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		panic("datasets: CheckRow of a non-pointer to struct")
	}
	return checkBounds(v.Elem(), planBounds(v.Elem().Type()))
}

// span is a closed range [lo, hi]; NaN is in none.
type span struct{ lo, hi float64 }

func (s span) holds(v float64) bool { return v >= s.lo && v <= s.hi }

func (s span) String() string {
	if s.lo == -math.MaxFloat64 && s.hi == math.MaxFloat64 {
		return "finite"
	}
	if s.hi == math.MaxFloat64 {
		return fmt.Sprintf("finite and ≥ %g", s.lo)
	}
	return fmt.Sprintf("the plausible range [%g, %g]", s.lo, s.hi)
}

// boundedField is a field of a row type that columnBounds bounds, or a
// slice of structs that holds some.
type boundedField struct {
	index  int
	column string
	span   span
	elem   []boundedField // for a slice of structs
}

var boundPlans sync.Map // reflect.Type → []boundedField

// planBounds lists the bounded fields of struct type t, once per type.
func planBounds(t reflect.Type) []boundedField {
	if p, ok := boundPlans.Load(t); ok {
		return p.([]boundedField)
	}
	var plan []boundedField
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("parquet"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		switch f.Type.Kind() {
		case reflect.Float32, reflect.Float64, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			if s, ok := columnBounds[name]; ok {
				plan = append(plan, boundedField{index: i, column: name, span: s})
			}
		case reflect.Slice:
			if et := f.Type.Elem(); et.Kind() == reflect.Struct {
				if elem := planBounds(et); len(elem) > 0 {
					plan = append(plan, boundedField{index: i, column: name, elem: elem})
				}
			}
		case reflect.Struct:
			if elem := planBounds(f.Type); len(elem) > 0 && f.Type.PkgPath() != "time" {
				plan = append(plan, boundedField{index: i, column: name, elem: elem})
			}
		}
	}
	boundPlans.Store(t, plan)
	return plan
}

// checkBounds returns a *BadField naming the first field of struct value v
// outside columnBounds, or nil.
func checkBounds(v reflect.Value, plan []boundedField) *BadField {
	for _, f := range plan {
		fv := v.Field(f.index)
		if f.elem != nil {
			if fv.Kind() == reflect.Struct {
				if bf := checkBounds(fv, f.elem); bf != nil {
					return bf
				}
				continue
			}
			for i := range fv.Len() {
				if bf := checkBounds(fv.Index(i), f.elem); bf != nil {
					return bf
				}
			}
			continue
		}
		var x float64
		switch {
		case fv.CanFloat():
			x = fv.Float()
		case fv.CanInt():
			x = float64(fv.Int())
		default:
			x = float64(fv.Uint())
		}
		if !f.span.holds(x) {
			return &BadField{Field: f.column, Reason: fmt.Sprintf("%g outside %s", x, f.span)}
		}
	}
	return nil
}

// tableCheck holds the rows of one table read (a file, or the partitions
// of a dataset, or the inputs of a concatenation) to columnBounds; a jobs
// table to CheckJob and to unique job ids, as ingest does.
type tableCheck[T any] struct {
	// defaults set the columns an older file lacks (ReadParquetDefaults).
	defaults Defaults[T]
	plan     []boundedField
	jobs     bool
	files    []checkedFile // the files checked, in order
	rows     int64         // rows checked so far, over every file

	// Jobs only: every job id, by row counted over every file, a 64-bit
	// hash of each, and an open-addressing table of the rows by hash
	// (slots hold row+1, 0 is empty), so that a repeated id is refused as
	// it streams in, not after every row is in memory.
	seed   maphash.Seed
	ids    []string
	hashes []uint64
	slots  []uint32
	expect int // rows the caller expects (expectRows), to size the table once
}

// checkedFile is a file whose rows, numbered over every file, start at
// first.
type checkedFile struct {
	name  string
	first int64
}

// where names the file and row of the row numbered n over every file.
func (c *tableCheck[T]) where(n int64) string {
	i := len(c.files) - 1
	for i > 0 && c.files[i].first > n {
		i--
	}
	return fmt.Sprintf("%s row %d", c.files[i].name, n-c.files[i].first+1)
}

func newTableCheck[T any]() *tableCheck[T] {
	c := &tableCheck[T]{}
	var zero T
	switch any(&zero).(type) {
	case *Job:
		c.jobs = true
	default:
		if t := reflect.TypeFor[T](); t.Kind() == reflect.Struct {
			c.plan = planBounds(t)
		}
	}
	return c
}

// check holds rows, the next rows of file (row numbers from 1 within it,
// after the first skipped), to the bounds. The error is an *InputError
// naming the file, the row and the field.
func (c *tableCheck[T]) check(file string, rows []T, skipped int64) error {
	if n := len(c.files); n == 0 || c.files[n-1].name != file {
		c.files = append(c.files, checkedFile{file, c.rows - skipped})
	}
	defer func() { c.rows += int64(len(rows)) }()
	if c.jobs {
		jobs := any(rows).([]Job)
		if c.ids == nil { // sized for the rows expected: no growth
			c.expect = max(c.expect, len(jobs))
			n := c.expect
			c.ids = make([]string, 0, n)
			c.hashes = make([]uint64, 0, n)
			c.seed = maphash.MakeSeed()
		}
		for i := range jobs {
			j := &jobs[i]
			row := skipped + int64(i) + 1
			if bf := CheckJob(j); bf != nil {
				return &InputError{File: file, Field: bf.Field, Err: fmt.Errorf("row %d (job %q): %s: %w", row, truncate(j.JobID, 64), bf.Reason, ErrFormat)}
			}
			h := maphash.String(c.seed, j.JobID)
			if at := c.insert(j.JobID, h); at >= 0 {
				return &InputError{File: file, Field: "job_id", Err: fmt.Errorf("row %d: duplicate job id %q: first at %s: %w",
					row, truncate(j.JobID, 64), c.where(at), ErrFormat)}
			}
		}
		return nil
	}
	if len(c.plan) == 0 {
		return nil
	}
	for i := range rows {
		if bf := checkBounds(reflect.ValueOf(&rows[i]).Elem(), c.plan); bf != nil {
			return &InputError{File: file, Field: bf.Field, Err: fmt.Errorf("row %d: %s: %w", skipped+int64(i)+1, bf.Reason, ErrFormat)}
		}
	}
	return nil
}

// expectRows tells the check how many rows are coming (a footer's count,
// already bounded by the file's size), so that its table of ids is sized
// once.
func (c *tableCheck[T]) expectRows(n int64) {
	c.expect = int(min(max(n, 0), maxPreallocRows))
}

// insert adds id, of hash h, as the next row, and returns -1; or, when id
// is already there, the row (over every file) where it first was, and
// adds nothing.
//
// This is a hot path of every read of a jobs table: a probe is one load
// from a table of 4 bytes a slot at most half full (1 MiB for 100 000
// ids), and ids are compared only when their 64-bit hashes are equal.
func (c *tableCheck[T]) insert(id string, h uint64) int64 {
	if 2*(len(c.hashes)+1) > len(c.slots) {
		c.grow()
	}
	mask := uint64(len(c.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := c.slots[i]
		if s == 0 {
			c.slots[i] = uint32(len(c.hashes) + 1)
			c.hashes = append(c.hashes, h)
			c.ids = append(c.ids, id)
			return -1
		}
		if c.hashes[s-1] == h && c.ids[s-1] == id {
			return int64(s - 1)
		}
	}
}

// grow doubles the table of ids (to hold twice the rows expected at
// first) and places every id again.
func (c *tableCheck[T]) grow() {
	n := 64
	for n < 2*max(len(c.hashes)+1, c.expect) {
		n <<= 1
	}
	if n <= len(c.slots) {
		n = 2 * len(c.slots)
	}
	c.slots = make([]uint32, n)
	mask := uint64(n - 1)
	for k, h := range c.hashes {
		i := h & mask
		for c.slots[i] != 0 {
			i = (i + 1) & mask
		}
		c.slots[i] = uint32(k + 1)
	}
}

// done finishes the check of a table once every row has passed check.
// Repeated job ids are found by check as rows arrive; nothing is left to
// do but for checks of the table as a whole.
func (c *tableCheck[T]) done() error {
	return nil
}
