package server

import (
	"context"

	"github.com/kvctl/kvctl/engine"
)

// tokenCursor hands out a live request's tokens one by one, and knows
// which is the last: the request asked for want tokens, so before handing
// out the want-th it waits for the request's end (which the engine
// reports in the same pass).
type tokenCursor struct {
	ctx     context.Context
	s       *engine.LiveStream
	want    int
	pending []int64 // received, not handed out
	buf     []int64
	done    bool
	taken   int
	first   *int64 // when not nil, handed out instead of the first token
}

func newTokenCursor(ctx context.Context, s *engine.LiveStream, want int) *tokenCursor {
	return &tokenCursor{ctx: ctx, s: s, want: want}
}

// fill waits for the next tokens or the request's end; the error is the
// request's failure, or ctx's.
func (c *tokenCursor) fill() error {
	tokens, done, err := c.s.Next(c.ctx, c.buf)
	c.buf = tokens
	c.pending = append(c.pending, tokens...)
	c.done = done
	return err
}

// next returns the next token (none when the request ended with fewer
// tokens than it asked for) and whether the request ended with it.
func (c *tokenCursor) next() (tokens []int64, last bool, err error) {
	for len(c.pending) == 0 || c.taken+1 >= c.want && !c.done {
		if c.done {
			return nil, true, nil
		}
		if err := c.fill(); err != nil {
			return nil, false, err
		}
	}
	tok := c.pending[:1]
	if c.taken == 0 && c.first != nil {
		tok = []int64{*c.first}
	}
	c.pending = c.pending[1:]
	c.taken++
	return tok, c.done && len(c.pending) == 0, nil
}

// atHand reports whether tokens were received and not handed out yet:
// next returns without waiting.
func (c *tokenCursor) atHand() bool { return len(c.pending) > 0 }

// rest waits for the request's end and returns every token not handed
// out yet.
func (c *tokenCursor) rest() ([]int64, error) {
	for !c.done {
		if err := c.fill(); err != nil {
			return nil, err
		}
	}
	all := c.pending
	c.pending = nil
	if c.taken == 0 && c.first != nil && len(all) > 0 {
		all = append([]int64{*c.first}, all[1:]...)
	}
	c.taken += len(all)
	return all, nil
}
