package engine

import (
	"errors"
	"slices"
	"testing"

	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/workload"
)

// reusingSource hands every request the same token buffer, overwritten by
// the next request (as workload.FileSource.ReuseTokens does), then fails
// with err when err is not nil.
type reusingSource struct {
	reqs []workload.Request
	err  error
}

func (s reusingSource) Name() string { return "reused tokens" }

func (s reusingSource) Each(fn func(workload.Request) error) error {
	var buf []int64
	for _, r := range s.reqs {
		buf = append(buf[:0], r.Tokens...)
		r.Tokens = buf
		if err := fn(r); err != nil {
			return err
		}
	}
	return s.err
}

// TestArrivalsHashAhead: requests read ahead carry the chain and decode
// seed of their own prompt, although the source reuses its token buffer,
// and the source's error comes after its requests.
func TestArrivalsHashAhead(t *testing.T) {
	k := keysWithDefaults(keys.Settings{})
	var reqs []workload.Request
	for i := range 3 * readAhead {
		reqs = append(reqs, workload.Request{ID: "r", Tokens: tokensOf(i, 40+i)})
	}
	srcErr := errors.New("line 9: bad json")
	in := newArrivals(reusingSource{reqs, srcErr}, 1, k)
	for i, want := range reqs {
		got, _, ok := in.due(0, 0)
		if !ok {
			t.Fatalf("due() of request %d = not ok, want ok", i)
		}
		wantHashes, err := k.Hashes(want.Scope(), want.Tokens)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.chain.Hashes(), wantHashes) || got.promptLen != len(want.Tokens) || got.seed != decodeSeed(want.Tokens) {
			t.Errorf("request %d: hashes, length %d, seed %d differ from its prompt's (length %d)", i, got.promptLen, got.seed, len(want.Tokens))
		}
	}
	if _, _, ok := in.due(0, 0); ok {
		t.Errorf("due() after the last request = ok, want not ok")
	}
	in.stop()
	if err := in.err(); !errors.Is(err, srcErr) {
		t.Errorf("err() = %v, want %v", err, srcErr)
	}
}

// TestArrivalsStopEarly: stop ends a reader that is blocked ahead of the
// engine, and an early stop is not the source's error.
func TestArrivalsStopEarly(t *testing.T) {
	var reqs []workload.Request
	for i := range 4 * readAhead {
		reqs = append(reqs, workload.Request{ID: "r", Tokens: tokensOf(i, 8)})
	}
	in := newArrivals(sliceSource(reqs), 1, keysWithDefaults(keys.Settings{}))
	if _, _, ok := in.due(0, 0); !ok {
		t.Fatal("due() = not ok, want ok")
	}
	in.stop()
	if err := in.err(); err != nil {
		t.Errorf("err() after an early stop = %v, want nil", err)
	}
}
