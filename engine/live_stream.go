package engine

import (
	"context"
	"errors"
	"sync"
)

// ErrCancelled is the error of a live request whose context ended before
// it completed; the engine freed it.
var ErrCancelled = errors.New("request cancelled")

// ErrStopped is the error of a live request still in flight when the
// engine stopped, and of Submit after it stopped.
var ErrStopped = errors.New("engine stopped")

// LiveUsage is what a live request used, known once it completed.
type LiveUsage struct {
	// PromptTokens and CompletionTokens are the prompt's and the
	// generated tokens.
	PromptTokens, CompletionTokens int
	// LocalHitTokens were reused from the local prefix cache and
	// PoolHitTokens loaded from the pool; each prompt token counts once,
	// by what served it first.
	LocalHitTokens, PoolHitTokens int
	// TTFTMS is the modelled time to first token (virtual milliseconds).
	TTFTMS float64
}

// CachedTokens is LocalHitTokens + PoolHitTokens.
func (u LiveUsage) CachedTokens() int { return u.LocalHitTokens + u.PoolHitTokens }

// LiveStream is the output of one live request: its generated tokens as
// they come, then its end. The engine goroutine writes it without ever
// blocking; one reader calls Next.
type LiveStream struct {
	mu     sync.Mutex
	tokens []int64 // generated, not yet taken
	done   bool
	err    error
	usage  LiveUsage
	notify chan struct{} // one pending wake-up
	// ttftMS is the modelled TTFT, set by the engine goroutine.
	ttftMS float64
	// release stops watching the request's context once it ended.
	release func() bool
}

func newLiveStream() *LiveStream { return &LiveStream{notify: make(chan struct{}, 1)} }

// Next waits until tokens were generated since the last call or the
// request ended, and returns those tokens (appended to buf[:0]) and
// whether the request ended. When it ended, err is nil for a completed
// request (see Usage), else why it failed: ErrCancelled, ErrStopped, a
// *RequestError, or the engine's error. A ctx that ends first returns
// ctx's error.
func (s *LiveStream) Next(ctx context.Context, buf []int64) (tokens []int64, done bool, err error) {
	for {
		s.mu.Lock()
		tokens = append(buf[:0], s.tokens...)
		s.tokens = s.tokens[:0]
		done, err = s.done, s.err
		s.mu.Unlock()
		if done && s.release != nil {
			s.release()
		}
		if len(tokens) > 0 || done {
			return tokens, done, err
		}
		select {
		case <-s.notify:
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	}
}

// Usage returns the request's usage; it is complete once Next reported
// the end without an error.
func (s *LiveStream) Usage() LiveUsage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.usage
}

// push appends generated tokens.
func (s *LiveStream) push(tokens ...int64) {
	s.mu.Lock()
	s.tokens = append(s.tokens, tokens...)
	s.mu.Unlock()
	s.wake()
}

// end marks the request ended with usage u and err (nil: completed); a
// second end is ignored.
func (s *LiveStream) end(u LiveUsage, err error) {
	s.mu.Lock()
	if !s.done {
		s.done, s.usage, s.err = true, u, err
	}
	s.mu.Unlock()
	s.wake()
}

func (s *LiveStream) wake() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// RequestError is the error of a live request the engine refused at
// arrival: an empty prompt, or one that can never fit in the KV cache.
type RequestError struct {
	ID  string
	Msg string
}

// Error returns the refusal.
func (e *RequestError) Error() string { return "request " + e.ID + ": " + e.Msg }
