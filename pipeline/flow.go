package pipeline

import (
	"context"
	"errors"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/sourcegraph/conc/pool"
)

// BatchBuffer is the capacity of the channels between streaming steps. It is
// small and fixed, never sized to the data: a slow consumer blocks its
// producer instead of letting batches pile up in memory.
const BatchBuffer = 4

// Send delivers v on ch unless ctx is cancelled first.
func Send[T any](ctx context.Context, ch chan<- T, v T) error {
	select {
	case ch <- v:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// Recv takes the next value from ch. ok is false when ch is closed; err is
// set when ctx was cancelled first.
func Recv[T any](ctx context.Context, ch <-chan T) (v T, ok bool, err error) {
	select {
	case v, ok = <-ch:
		return v, ok, nil
	case <-ctx.Done():
		return v, false, context.Cause(ctx)
	}
}

// SendRecord sends rec, releasing it when the send is cancelled so that no
// batch leaks.
func SendRecord(ctx context.Context, ch chan<- arrow.Record, rec arrow.Record) error {
	if err := Send(ctx, ch, rec); err != nil {
		rec.Release()
		return err
	}
	return nil
}

// A Source produces record batches on out. It must not close out; the Flow
// does that when the Source returns.
type Source func(ctx context.Context, out chan<- arrow.Record) error

// A Transform reads batches from in and writes batches to out. It owns (and
// must Release) what it receives, and must not close out.
type Transform func(ctx context.Context, in <-chan arrow.Record, out chan<- arrow.Record) error

// A Sink consumes every batch from in and releases it.
type Sink func(ctx context.Context, in <-chan arrow.Record) error

// Flow runs src → transforms... → sink concurrently over bounded channels.
// Every step runs in one goroutine owned by a conc pool; the first error
// cancels the others and is returned. Batches left in channels after a
// failure are released once every step has returned.
func Flow(ctx context.Context, src Source, transforms []Transform, sink Sink) error {
	p := pool.New().WithContext(ctx).WithCancelOnError().WithFirstError()
	ch := make(chan arrow.Record, BatchBuffer)
	chans := []chan arrow.Record{ch}
	p.Go(func(ctx context.Context) error {
		defer close(ch)
		return src(ctx, ch)
	})
	in := ch
	for _, tr := range transforms {
		tr, in0, out := tr, in, make(chan arrow.Record, BatchBuffer)
		chans = append(chans, out)
		p.Go(func(ctx context.Context) error {
			defer close(out)
			if err := tr(ctx, in0, out); err != nil {
				return err
			}
			return exhausted(in0)
		})
		in = out
	}
	last := in
	p.Go(func(ctx context.Context) error {
		if err := sink(ctx, last); err != nil {
			return err
		}
		return exhausted(last)
	})
	err := p.Wait()
	for _, c := range chans {
		drain(c)
	}
	return err
}

// exhausted checks that a step which returned nil read its input to the
// end; otherwise its producer would block for ever, so that is an error,
// and returning it cancels the producer.
func exhausted(in <-chan arrow.Record) error {
	select {
	case rec, ok := <-in:
		if !ok {
			return nil
		}
		rec.Release()
	default:
	}
	return errors.New("pipeline: a flow step returned before its input was closed")
}

// drain releases whatever is left in a channel whose producer has finished
// or will finish. It returns once the channel is closed.
func drain(ch <-chan arrow.Record) {
	for rec := range ch {
		rec.Release()
	}
}

// CountRows is a Transform that passes batches through unchanged, advancing
// bar by their row counts.
func CountRows(bar *Bar) Transform {
	return func(ctx context.Context, in <-chan arrow.Record, out chan<- arrow.Record) error {
		for {
			rec, ok, err := Recv(ctx, in)
			if err != nil || !ok {
				return err
			}
			bar.Add(rec.NumRows())
			if err := SendRecord(ctx, out, rec); err != nil {
				return err
			}
		}
	}
}
