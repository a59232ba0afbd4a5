package transfer

import (
	"context"
	"fmt"
	"runtime"
)

// load seeds the pool with every page, times the loads of them all and,
// when asked, verifies what reached the GPU.
func (b *benchRun) load(ctx context.Context) ([]timedRun, error) {
	if err := b.seedPool(ctx); err != nil {
		return nil, err
	}
	if err := b.touchGPU(); err != nil {
		return nil, err
	}
	runtime.GC() // no collection of the setup's garbage while timing
	results, geo, runs, err := b.runLoad(ctx)
	if err != nil {
		return nil, err
	}
	b.res.Geometry = geo
	for _, r := range results {
		if r.Err != nil {
			return nil, fmt.Errorf("bench load request %s: %w", r.RequestID, r.Err)
		}
		b.res.Missing += len(r.Missing)
	}
	if b.o.Verify {
		return runs, b.verifyGPU()
	}
	return runs, nil
}

// runLoad times the loads of every page, synchronously or through an
// AsyncLoader, and returns the last one's results.
func (b *benchRun) runLoad(ctx context.Context) ([]LoadResult, Geometry, []timedRun, error) {
	var results []LoadResult
	if !b.o.Async {
		l, err := NewLoader(b.options())
		if err != nil {
			return nil, Geometry{}, nil, fmt.Errorf("bench: %w", err)
		}
		defer l.Close()
		calls := b.calls()
		load := func(ctx context.Context) error { return callAll(ctx, calls, &results, l.Load) }
		if err := b.warmUp(func() error { return load(ctx) }); err != nil {
			return nil, Geometry{}, nil, err
		}
		runs, err := b.repeat(ctx, b.zeroGPU, load)
		return results, l.Geometry(), runs, err
	}
	a, err := NewAsyncLoader(b.options())
	if err != nil {
		return nil, Geometry{}, nil, fmt.Errorf("bench: %w", err)
	}
	defer a.Close()
	jobs := b.jobs()
	load := func(ctx context.Context) error {
		err := submitAll(ctx, a, jobs)
		results = a.Finished()
		return err
	}
	if err := b.warmUp(func() error { return load(ctx) }); err != nil {
		return nil, Geometry{}, nil, err
	}
	runs, err := b.repeat(ctx, b.zeroGPU, load)
	return results, a.Geometry(), runs, err
}
