package pipeline_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/schedlab/schedlab/pipeline"
)

// Two stages, numbers → sum, run three times in one run directory. The
// second run finds both cached. The third changes numbers' config, so
// numbers runs again; it writes the same bytes, so sum, whose cache key
// is its inputs' hashes, stays cached.
func ExampleRunner() {
	dir, err := os.MkdirTemp("", "pipeline-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	type numbersConfig struct{ N, Pad int }
	stages := func(cfg numbersConfig) []pipeline.Stage {
		numbers := &pipeline.Func{StageName: "numbers", StageVersion: "1", Out: []string{"numbers.txt"}, Cfg: cfg,
			Fn: func(ctx context.Context, env *pipeline.Env) error {
				var b strings.Builder
				for i := 1; i <= cfg.N; i++ {
					fmt.Fprintln(&b, i)
				}
				return os.WriteFile(env.Output("numbers.txt"), []byte(b.String()), 0o644)
			}}
		sum := &pipeline.Func{StageName: "sum", StageVersion: "1", In: []string{"numbers.txt"}, Out: []string{"sum.txt"},
			Fn: func(ctx context.Context, env *pipeline.Env) error {
				b, err := os.ReadFile(env.Input("numbers.txt"))
				if err != nil {
					return err
				}
				s := 0
				for _, f := range strings.Fields(string(b)) {
					v, err := strconv.Atoi(f)
					if err != nil {
						return fmt.Errorf("numbers.txt: %w", err)
					}
					s += v
				}
				return os.WriteFile(env.Output("sum.txt"), []byte(strconv.Itoa(s)), 0o644)
			}}
		return []pipeline.Stage{numbers, sum}
	}
	r := &pipeline.Runner{Dir: dir, Seed: 1, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, cfg := range []numbersConfig{{N: 4}, {N: 4}, {N: 4, Pad: 1}} {
		m, err := r.Run(context.Background(), stages(cfg))
		if err != nil {
			panic(err)
		}
		sum, _ := os.ReadFile(dir + "/sum.txt")
		fmt.Printf("%s: %s %s, %s %s; sum %s\n", m.Status, m.Stages[0].Name, m.Stages[0].Status, m.Stages[1].Name, m.Stages[1].Status, sum)
	}
	// Output:
	// ok: numbers ran, sum ran; sum 10
	// ok: numbers cached, sum cached; sum 10
	// ok: numbers ran, sum cached; sum 10
}

// A source streams Arrow batches of int64 to a sink over a bounded
// channel; Flow runs both and returns the first error.
func ExampleFlow() {
	schema := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	var total int64
	var batches int
	err := pipeline.Flow(context.Background(),
		func(ctx context.Context, out chan<- arrow.Record) error {
			b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
			defer b.Release()
			for i := int64(1); i <= 10; i++ {
				b.Field(0).(*array.Int64Builder).Append(i)
				if i%4 == 0 || i == 10 { // batches of 4, 4 and 2 rows
					if err := pipeline.SendRecord(ctx, out, b.NewRecord()); err != nil {
						return err
					}
				}
			}
			return nil
		}, nil,
		func(ctx context.Context, in <-chan arrow.Record) error {
			for {
				rec, ok, err := pipeline.Recv(ctx, in)
				if err != nil || !ok {
					return err
				}
				for _, v := range rec.Column(0).(*array.Int64).Int64Values() {
					total += v
				}
				batches++
				rec.Release()
			}
		})
	fmt.Println(err, batches, "batches, total", total)
	// Output: <nil> 3 batches, total 55
}
