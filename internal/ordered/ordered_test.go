package ordered

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
)

// item is one unit of test work: its position, and the square the work
// computes.
type item struct {
	n, square int
}

// squareSlowly squares it.n after a random pause, so items finish out of
// order.
func squareSlowly(it *item) {
	time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond)
	it.square = it.n * it.n
}

func TestPipelineKeepsOrder(t *testing.T) {
	for _, tt := range []struct{ workers, window, items int }{
		{1, 1, 10}, {4, 4, 100}, {16, 64, 1000}, {8, 2, 200}, {0, 0, 5},
	} {
		var got []int
		p := Start(context.Background(), tt.workers, tt.window, squareSlowly, func(it *item) error {
			if it.square != it.n*it.n {
				t.Errorf("workers %d: item %d emitted before its work was done", tt.workers, it.n)
			}
			got = append(got, it.n)
			return nil
		})
		for i := range tt.items {
			if err := p.Submit(&item{n: i}); err != nil {
				t.Fatalf("Submit(%d) = %v", i, err)
			}
			if waiting := i + 1 - len(got); waiting > max(tt.window, tt.workers, 1) {
				t.Errorf("workers %d, window %d: %d items wait after Submit(%d), want at most the window", tt.workers, tt.window, waiting, i)
			}
		}
		if err := p.Finish(); err != nil {
			t.Fatalf("Finish() = %v", err)
		}
		if len(got) != tt.items {
			t.Fatalf("workers %d: emitted %d items, want %d", tt.workers, len(got), tt.items)
		}
		for i, n := range got {
			if n != i {
				t.Fatalf("workers %d: item %d emitted at position %d", tt.workers, n, i)
			}
		}
	}
}

func TestPipelineStopsAtEmitError(t *testing.T) {
	errFull := errors.New("disk full")
	var emitted []int
	p := Start(context.Background(), 4, 8, squareSlowly, func(it *item) error {
		if it.n == 5 {
			return errFull
		}
		emitted = append(emitted, it.n)
		return nil
	})
	defer p.Stop()
	var err error
	for i := 0; err == nil && i < 1000; i++ {
		err = p.Submit(&item{n: i})
	}
	if err == nil {
		err = p.Finish()
	}
	if !errors.Is(err, errFull) {
		t.Fatalf("Submit/Finish = %v, want %v", err, errFull)
	}
	if len(emitted) != 5 {
		t.Errorf("emitted %v before the error, want items 0..4", emitted)
	}
}

func TestPipelineCancel(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	block := make(chan struct{})
	worked := 0
	p := Start(ctx, 4, 4, func(it *item) {
		if it.n == 0 {
			<-block // the oldest never finishes until cancelled
		}
	}, func(*item) error { worked++; return nil })
	var err error
	go func() {
		time.Sleep(10 * time.Millisecond)
		cancel()
		close(block)
	}()
	for i := 0; err == nil && i < 1_000_000; i++ {
		err = p.Submit(&item{n: i})
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Submit after cancel = %v, want context.Canceled", err)
	}
	if err := p.Finish(); !errors.Is(err, context.Canceled) {
		t.Errorf("Finish after cancel = %v, want context.Canceled", err)
	}
	p.Stop() // again: a no-op
	if worked != 0 {
		t.Errorf("emitted %d items behind a blocked oldest, want 0", worked)
	}
	if n := settledGoroutines(before); n > before {
		t.Errorf("%d goroutines after Stop, want %d as before Start", n, before)
	}
}

// settledGoroutines waits a little for goroutines to exit and returns how
// many are left.
func settledGoroutines(want int) int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(time.Second); n > want && time.Now().Before(deadline); n = runtime.NumGoroutine() {
		time.Sleep(time.Millisecond)
	}
	return n
}
