package pipeline_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/schedlab/schedlab/pipeline"
)

var intSchema = arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)

func intRecord(mem memory.Allocator, vals ...int64) arrow.Record {
	b := array.NewRecordBuilder(mem, intSchema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues(vals, nil)
	return b.NewRecord()
}

func flowWithTimeout(t *testing.T, f func() error) error {
	t.Helper()
	ch := make(chan error, 1)
	go func() { ch <- f() }()
	select {
	case err := <-ch:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("flow did not return within 10s")
		return nil
	}
}

func TestFlowSumsAndReleases(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	src := func(ctx context.Context, out chan<- arrow.Record) error {
		for i := int64(0); i < 100; i++ {
			if err := pipeline.SendRecord(ctx, out, intRecord(mem, i, i)); err != nil {
				return err
			}
		}
		return nil
	}
	double := func(ctx context.Context, in <-chan arrow.Record, out chan<- arrow.Record) error {
		for {
			rec, ok, err := pipeline.Recv(ctx, in)
			if err != nil || !ok {
				return err
			}
			col := rec.Column(0).(*array.Int64)
			vals := make([]int64, col.Len())
			for i := range vals {
				vals[i] = 2 * col.Value(i)
			}
			rec.Release()
			if err := pipeline.SendRecord(ctx, out, intRecord(mem, vals...)); err != nil {
				return err
			}
		}
	}
	var sum int64
	sink := func(ctx context.Context, in <-chan arrow.Record) error {
		for {
			rec, ok, err := pipeline.Recv(ctx, in)
			if err != nil || !ok {
				return err
			}
			for _, v := range rec.Column(0).(*array.Int64).Int64Values() {
				sum += v
			}
			rec.Release()
		}
	}
	err := flowWithTimeout(t, func() error {
		return pipeline.Flow(context.Background(), src, []pipeline.Transform{double}, sink)
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(2 * 2 * 99 * 100 / 2); sum != want {
		t.Fatalf("sum %d, want %d", sum, want)
	}
}

// TestFlowBackpressure checks that a producer facing a stalled consumer
// blocks after a bounded number of batches instead of buffering them all.
func TestFlowBackpressure(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sent := make(chan int, 1000)
	stall := errors.New("consumer gave up")
	src := func(ctx context.Context, out chan<- arrow.Record) error {
		for i := 0; i < 1000; i++ {
			if err := pipeline.SendRecord(ctx, out, intRecord(mem, int64(i))); err != nil {
				return err
			}
			sent <- i
		}
		return nil
	}
	sink := func(ctx context.Context, in <-chan arrow.Record) error {
		time.Sleep(200 * time.Millisecond) // never reads
		return stall
	}
	err := flowWithTimeout(t, func() error { return pipeline.Flow(context.Background(), src, nil, sink) })
	if !errors.Is(err, stall) {
		t.Fatalf("err = %v, want the sink's error", err)
	}
	if n := len(sent); n > pipeline.BatchBuffer+1 {
		t.Fatalf("producer sent %d batches to a consumer that read none; buffer is %d", n, pipeline.BatchBuffer)
	}
}

func TestFlowCancellation(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx, cancel := context.WithCancel(context.Background())
	src := func(ctx context.Context, out chan<- arrow.Record) error {
		for i := 0; ; i++ {
			if i == 10 {
				cancel()
			}
			if err := pipeline.SendRecord(ctx, out, intRecord(mem, int64(i))); err != nil {
				return err
			}
		}
	}
	sink := func(ctx context.Context, in <-chan arrow.Record) error {
		for {
			rec, ok, err := pipeline.Recv(ctx, in)
			if err != nil || !ok {
				return err
			}
			rec.Release()
		}
	}
	err := flowWithTimeout(t, func() error { return pipeline.Flow(ctx, src, nil, sink) })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}
