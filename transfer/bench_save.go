package transfer

import (
	"context"
	"errors"
	"fmt"
	"runtime"
)

// save fills the GPU pages, times the saves of them all, forgetting the
// keys between runs, and, when asked, verifies what reached the pool.
func (b *benchRun) save(ctx context.Context) ([]timedRun, error) {
	ready, err := b.fillGPU()
	if err != nil {
		return nil, err
	}
	defer ready.Destroy()
	if err := b.warmPool(ctx); err != nil {
		return nil, err
	}
	if err := b.clearKeys(ctx); err != nil {
		return nil, err
	}
	runtime.GC()
	s, err := NewSaver(b.options())
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	defer s.Close()
	b.res.Geometry = s.Geometry()
	var calls [][]SaveJob
	for _, call := range b.calls() {
		var jobs []SaveJob
		for _, j := range call {
			jobs = append(jobs, SaveJob{RequestID: j.RequestID, Pages: j.Pages})
		}
		calls = append(calls, jobs)
	}
	var results []SaveResult
	save := func(ctx context.Context) error {
		return callAll(ctx, calls, &results, func(ctx context.Context, jobs []SaveJob) ([]SaveResult, error) {
			return s.SaveAll(ctx, jobs, ready)
		})
	}
	forget := func() error { return b.clearKeys(ctx) }
	if err := b.warmUp(func() error { return errors.Join(save(ctx), forget()) }); err != nil {
		return nil, err
	}
	runs, err := b.repeat(ctx, forget, save)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	for _, r := range results {
		b.res.Failed += r.Failed
	}
	if b.o.Verify {
		return runs, b.verifyPool(ctx)
	}
	return runs, nil
}
