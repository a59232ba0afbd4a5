package stats

import "sync"

// windowed is a running total (for metrics) and a window since the last
// take (for log lines), updated and read under one lock by goroutines
// that share them. The recorders build on it.
type windowed[T any] struct {
	mu            sync.Mutex
	total, window T
}

// update applies fn to the total and to the window under the lock. fn
// must not panic (no defer: the recorders' updates are on the transfer
// path).
func (w *windowed[T]) update(fn func(*T)) {
	w.mu.Lock()
	fn(&w.total)
	fn(&w.window)
	w.mu.Unlock()
}

// read returns what view makes of the total, under the lock.
func (w *windowed[T]) read(view func(*T) T) T {
	w.mu.Lock()
	defer w.mu.Unlock()
	return view(&w.total)
}

// take returns the window and starts the next one as next makes it from
// the window taken.
func (w *windowed[T]) take(next func(*T) T) T {
	w.mu.Lock()
	defer w.mu.Unlock()
	taken := w.window
	w.window = next(&taken)
	return taken
}
