// Package ordered runs work on several goroutines and hands the items back
// in the order they were submitted: the "fan out, deliver in order" shape
// of reading a requests file and of hashing its requests.
package ordered

import (
	"context"
	"sync"
)

// Pipeline is work in flight. Items are submitted one at a time, worked on
// by worker goroutines in any order, and emitted in submission order on the
// goroutine that calls Submit and Finish, never concurrently.
type Pipeline[T any] struct {
	ctx     context.Context
	work    chan *slot[T]
	pending []*slot[T] // submitted, not yet emitted, oldest first
	window  int
	emit    func(T) error
	wg      sync.WaitGroup
	stopped bool
}

// slot is one submitted item; done closes when a worker is through with it.
type slot[T any] struct {
	item T
	done chan struct{}
}

// Start starts workers goroutines (at least one) that call work on each
// submitted item; emit gets the items back in submission order. At most
// window items (at least workers) wait to be emitted: Submit then waits
// for the oldest. Once ctx ends, workers skip the work, nothing more is
// emitted, and Submit and Finish return ctx.Err(). The caller must call
// Finish or Stop.
func Start[T any](ctx context.Context, workers, window int, work func(T), emit func(T) error) *Pipeline[T] {
	workers = max(1, workers)
	p := &Pipeline[T]{ctx: ctx, work: make(chan *slot[T]), window: max(window, workers), emit: emit}
	for range workers {
		p.wg.Go(func() {
			for s := range p.work {
				if ctx.Err() == nil {
					work(s.item)
				}
				close(s.done)
			}
		})
	}
	return p
}

// Submit hands item to the workers, emitting the items that are done
// meanwhile. It returns the first error of emit, or ctx's; after an error
// the pipeline only wants Stop.
func (p *Pipeline[T]) Submit(item T) error {
	s := &slot[T]{item: item, done: make(chan struct{})}
	for {
		var oldest chan struct{} // nil, and so never ready, when none is pending
		if len(p.pending) > 0 {
			oldest = p.pending[0].done
		}
		select {
		case p.work <- s:
			p.pending = append(p.pending, s)
			return p.emitDone(p.window)
		case <-oldest:
			if err := p.emitOldest(); err != nil {
				return err
			}
		case <-p.ctx.Done():
			return p.ctx.Err()
		}
	}
}

// Finish emits every item still pending, in order, then stops the
// workers. It returns the first error of emit, or ctx's.
func (p *Pipeline[T]) Finish() error {
	defer p.Stop()
	return p.emitDone(0)
}

// Stop stops the workers without emitting what is pending and waits for
// them to return. It may be called more than once, and after Finish.
func (p *Pipeline[T]) Stop() {
	if p.stopped {
		return
	}
	p.stopped = true
	close(p.work)
	p.wg.Wait()
}

// emitDone emits the items at the head of the queue that are done, and
// waits for the oldest while more than most are pending.
func (p *Pipeline[T]) emitDone(most int) error {
	for len(p.pending) > 0 {
		select {
		case <-p.pending[0].done:
		default:
			if len(p.pending) <= most {
				return nil
			}
			select {
			case <-p.pending[0].done:
			case <-p.ctx.Done():
				return p.ctx.Err()
			}
		}
		if err := p.emitOldest(); err != nil {
			return err
		}
	}
	return nil
}

// emitOldest emits the oldest pending item, which is done.
func (p *Pipeline[T]) emitOldest() error {
	s := p.pending[0]
	p.pending[0] = nil
	p.pending = p.pending[1:]
	if err := p.ctx.Err(); err != nil { // the work may have been skipped
		return err
	}
	return p.emit(s.item)
}
