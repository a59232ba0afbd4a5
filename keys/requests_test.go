package keys

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// testRequests returns n requests of 0 to 300 tokens with varied scopes.
func testRequests(n int) []Request {
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	reqs := make([]Request, n)
	for i := range reqs {
		tokens := make([]int64, rng.IntN(300))
		for j := range tokens {
			tokens[j] = rng.Int64N(150_000)
		}
		reqs[i] = Request{ID: fmt.Sprint("r", i), Tokens: tokens}
		if i%3 == 0 {
			reqs[i].Scope.CacheSalt = fmt.Sprint("salt", i%7)
		}
	}
	return reqs
}

// sliceSource yields reqs in order.
func sliceSource(reqs []Request) func(yield func(Request) error) error {
	return func(yield func(Request) error) error {
		for _, r := range reqs {
			if err := yield(r); err != nil {
				return err
			}
		}
		return nil
	}
}

// hashed is what the tests' each returns: the request and its hashes.
type hashed struct {
	id     string
	hashes []Hash
}

func hashedOf(r Request, c *Chain) hashed { return hashed{r.ID, c.Hashes()} }

func TestHashRequestsMatchesSequential(t *testing.T) {
	s := validSettings()
	s.Lookahead = 1
	for _, tt := range []struct{ requests, workers int }{
		{0, 4}, {1, 4}, {requestBatch - 1, 3}, {requestBatch, 2}, {requestBatch + 1, 1},
		{1000, 16}, {300, 0},
	} {
		reqs := testRequests(tt.requests)
		var got []hashed
		emit := func(h hashed) error { got = append(got, h); return nil }
		if err := HashRequests(context.Background(), s, tt.workers, sliceSource(reqs), hashedOf, emit); err != nil {
			t.Fatalf("HashRequests(%d requests, %d workers) = %v", tt.requests, tt.workers, err)
		}
		if len(got) != len(reqs) {
			t.Fatalf("HashRequests(%d requests, %d workers) emitted %d results", tt.requests, tt.workers, len(got))
		}
		for i, r := range reqs {
			want, err := s.Hashes(r.Scope, r.Tokens)
			if err != nil {
				t.Fatal(err)
			}
			if got[i].id != r.ID || fmt.Sprint(got[i].hashes) != fmt.Sprint(want) {
				t.Fatalf("HashRequests(%d requests, %d workers) result %d = %s %v, want %s %v",
					tt.requests, tt.workers, i, got[i].id, got[i].hashes, r.ID, want)
			}
		}
	}
}

func TestHashRequestsErrors(t *testing.T) {
	errSource := errors.New("line 40: bad json")
	errEmit := errors.New("broken pipe")
	reqs := testRequests(100)
	failAt := func(k int) func(yield func(Request) error) error {
		return func(yield func(Request) error) error {
			if err := sliceSource(reqs[:k])(yield); err != nil {
				return err
			}
			return errSource
		}
	}
	for _, tt := range []struct {
		name        string
		source      func(yield func(Request) error) error
		emitFailsAt int // -1: never
		want        error
		emitted     int
	}{
		{"source fails at 0", failAt(0), -1, errSource, 0},
		{"source fails at 37", failAt(37), -1, errSource, 37},
		{"source fails at a batch end", failAt(2 * requestBatch), -1, errSource, 2 * requestBatch},
		{"emit fails at 50", sliceSource(reqs), 50, errEmit, 50},
	} {
		var emitted []hashed
		emit := func(h hashed) error {
			if len(emitted) == tt.emitFailsAt {
				return errEmit
			}
			emitted = append(emitted, h)
			return nil
		}
		err := HashRequests(context.Background(), validSettings(), 4, tt.source, hashedOf, emit)
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: HashRequests() = %v, want %v", tt.name, err, tt.want)
		}
		if len(emitted) != tt.emitted {
			t.Errorf("%s: emitted %d results before the error, want %d", tt.name, len(emitted), tt.emitted)
		}
		for i, h := range emitted {
			if h.id != reqs[i].ID {
				t.Fatalf("%s: result %d is %s, want %s", tt.name, i, h.id, reqs[i].ID)
			}
		}
	}
}

func TestHashRequestsBadSettings(t *testing.T) {
	s := validSettings()
	s.Layout.TokensPerBlock = 0
	read := false
	source := func(func(Request) error) error { read = true; return nil }
	err := HashRequests(context.Background(), s, 2, source, hashedOf, func(hashed) error { return nil })
	if !errors.Is(err, ErrBadSettings) {
		t.Errorf("HashRequests(T=0) = %v, want ErrBadSettings", err)
	}
	if read {
		t.Error("HashRequests(T=0) read the source")
	}
}

func TestHashRequestsCancel(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reqs := testRequests(64)
	emitted := 0
	endless := func(yield func(Request) error) error {
		for i := 0; ; i++ {
			if err := yield(reqs[i%len(reqs)]); err != nil {
				return err
			}
		}
	}
	emit := func(hashed) error {
		if emitted++; emitted == 100 {
			cancel()
		}
		return nil
	}
	done := make(chan error, 1)
	go func() { done <- HashRequests(ctx, validSettings(), 8, endless, hashedOf, emit) }()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("HashRequests(cancelled) = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("HashRequests did not return after its context was cancelled")
	}
	if emitted != 100 {
		t.Errorf("emitted %d results, want none after the 100th cancelled", emitted)
	}
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(time.Second); n > before && time.Now().Before(deadline); n = runtime.NumGoroutine() {
		time.Sleep(time.Millisecond)
	}
	if n > before {
		t.Errorf("%d goroutines after HashRequests returned, want %d as before", n, before)
	}
}

// BenchmarkHashRequests hashes 64 prompts of 20,000 tokens (T=32) on
// every core, as kvctl keys --requests does. Compare with BenchmarkExtendAll
// times the cores.
func BenchmarkHashRequests(b *testing.B) {
	s := validSettings()
	s.Layout.TokensPerBlock = 32
	prompt := benchTokens()
	reqs := make([]Request, 64)
	for i := range reqs {
		reqs[i] = Request{ID: fmt.Sprint(i), Tokens: prompt}
	}
	b.SetBytes(int64(len(reqs) * 8 * len(prompt)))
	for b.Loop() {
		err := HashRequests(context.Background(), s, 0, sliceSource(reqs), func(_ Request, c *Chain) int { return c.NumBlocks() },
			func(int) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
	}
	reportBlocks(b, len(reqs)*len(prompt), 32)
}

// HashEngineRequests gives each request the blocks EngineBlocks gives it,
// in input order; a request EngineBlocks refuses (SGLang: a token outside
// u32) stops the stream after every request before it was emitted.
func TestHashEngineRequestsMatchesSequential(t *testing.T) {
	seed := "0"
	engines := []Settings{
		engineSettings(vllmSettings("sha256", seed, 16)),
		engineSettings(Settings{Engine: EngineSGLang, Layout: Layout{TokensPerBlock: 8}}),
		engineSettings(Settings{Engine: EngineDynamo, Layout: Layout{TokensPerBlock: 4}}),
	}
	type blocksOf struct {
		id     string
		blocks []EngineBlock
	}
	each := func(r Request, b []EngineBlock) blocksOf { return blocksOf{r.ID, b} }
	for _, s := range engines {
		for _, workers := range []int{1, 3, 0} {
			reqs := testRequests(3*requestBatch + 5)
			var got []blocksOf
			emit := func(b blocksOf) error { got = append(got, b); return nil }
			if err := HashEngineRequests(context.Background(), s, workers, sliceSource(reqs), each, emit); err != nil {
				t.Fatalf("HashEngineRequests(%s, %d workers) = %v", s.Engine, workers, err)
			}
			if len(got) != len(reqs) {
				t.Fatalf("HashEngineRequests(%s, %d workers) emitted %d of %d", s.Engine, workers, len(got), len(reqs))
			}
			for i, r := range reqs {
				want, err := s.EngineBlocks(r.Scope, r.Tokens)
				if err != nil {
					t.Fatal(err)
				}
				if got[i].id != r.ID || fmt.Sprint(got[i].blocks) != fmt.Sprint(want) {
					t.Fatalf("HashEngineRequests(%s, %d workers) result %d = %s, want %s's blocks", s.Engine, workers, i, got[i].id, r.ID)
				}
			}
		}
	}
	reqs := testRequests(40)
	reqs[21].Tokens = append(reqs[21].Tokens, -1)
	var emitted int
	err := HashEngineRequests(context.Background(), engines[1], 2, sliceSource(reqs), each, func(blocksOf) error { emitted++; return nil })
	if err == nil || emitted != 21 {
		t.Errorf("HashEngineRequests(request 22 refused) = %v after %d emitted, want its error after 21", err, emitted)
	}
}

// engineSettings gives s the one-rank layout and namespace of
// validSettings, keeping its engine, options and T.
func engineSettings(s Settings) Settings {
	v := validSettings()
	v.Engine, v.Engines, v.Layout.TokensPerBlock, v.Namespace.Name = s.Engine, s.Engines, s.Layout.TokensPerBlock, ""
	return v
}

// Each request's tokens are released once, after its result is built
// and never before: a source that reuses the arrays (poisoning them here
// as soon as they are given back) still gets every request's result
// right, TensorRT-LLM's chains and another engine's blocks alike.
func TestHashRequestsReleaseTokensAfterEach(t *testing.T) {
	trt, sglang := validSettings(), engineSettings(Settings{Engine: EngineSGLang, Layout: Layout{TokensPerBlock: 8}})
	reqs := testRequests(500)
	for _, engine := range []bool{false, true} {
		var mu sync.Mutex
		released := map[string]int{}
		lend := func(yield func(Request) error) error {
			for _, r := range reqs {
				r.Tokens = slices.Clone(r.Tokens)
				r.Release = func(tokens []int64) {
					for i := range tokens {
						tokens[i] = -1 // the source reuses the array at once
					}
					mu.Lock()
					released[r.ID]++
					mu.Unlock()
				}
				if err := yield(r); err != nil {
					return err
				}
			}
			return nil
		}
		unreleased := func(r Request) {
			mu.Lock()
			defer mu.Unlock()
			if released[r.ID] != 0 {
				t.Errorf("request %s: tokens released before its result was built", r.ID)
			}
		}
		var got []string
		emit := func(h string) error { got = append(got, h); return nil }
		var err error
		if engine {
			err = HashEngineRequests(context.Background(), sglang, 3, lend, func(r Request, b []EngineBlock) string {
				unreleased(r)
				return fmt.Sprint(r.ID, b)
			}, emit)
		} else {
			err = HashRequests(context.Background(), trt, 3, lend, func(r Request, c *Chain) string {
				unreleased(r)
				return fmt.Sprint(r.ID, c.Hashes())
			}, emit)
		}
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range reqs {
			if released[r.ID] != 1 {
				t.Errorf("engine %v: request %s released %d times, want 1", engine, r.ID, released[r.ID])
			}
			c, _ := trt.NewChain(r.Scope)
			c.Extend(r.Tokens)
			blocks, _ := sglang.EngineBlocks(r.Scope, r.Tokens)
			w := fmt.Sprint(r.ID, c.Hashes())
			if engine {
				w = fmt.Sprint(r.ID, blocks)
			}
			if i >= len(got) || got[i] != w {
				t.Fatalf("engine %v: result %d differs from the sequential one", engine, i)
			}
		}
	}
}
