package engine

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/workload"
)

// startLive runs a Live engine for cfg until the test ends.
func startLive(t *testing.T, cfg Config, opts LiveOptions) *Live {
	t.Helper()
	l, err := NewLive(cfg, opts)
	if err != nil {
		t.Fatalf("NewLive: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- l.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("Live.Run = %v, want nil", err)
		}
	})
	return l
}

// collect reads a stream to its end.
func collect(t *testing.T, s *LiveStream) ([]int64, LiveUsage, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var all []int64
	var buf []int64
	for {
		got, done, err := s.Next(ctx, buf)
		all = append(all, got...)
		buf = got
		if done || err != nil {
			return all, s.Usage(), err
		}
	}
}

// wantTokens are the tokens the synthetic model generates for a prompt.
func wantTokens(prompt []int64, n int) []int64 {
	seed := decodeSeed(prompt)
	out := make([]int64, n)
	for i := range out {
		out[i] = NextToken(seed, len(prompt)+i)
	}
	return out
}

func submitOK(t *testing.T, l *Live, w workload.Request) ([]int64, LiveUsage) {
	t.Helper()
	s, err := l.Submit(context.Background(), w)
	if err != nil {
		t.Fatalf("Submit(%s) = %v, want no error", w.ID, err)
	}
	got, u, err := collect(t, s)
	if err != nil {
		t.Fatalf("stream of %s ended with %v, want no error", w.ID, err)
	}
	if diff := cmp.Diff(wantTokens(w.Tokens, w.OutputLength), got); diff != "" {
		t.Errorf("tokens of %s (-want +got):\n%s", w.ID, diff)
	}
	return got, u
}

func TestLiveCompletesAndReuses(t *testing.T) {
	cfg, _ := testConfig(t)
	for _, realTime := range []bool{false, true} {
		l := startLive(t, cfg, LiveOptions{RealTime: realTime})
		prompt := tokensOf(1000, 100)
		_, first := submitOK(t, l, workload.Request{ID: "a", Tokens: prompt, OutputLength: 5})
		_, second := submitOK(t, l, workload.Request{ID: "b", Tokens: prompt, OutputLength: 5})
		if first.PromptTokens != 100 || first.CompletionTokens != 5 {
			t.Errorf("usage of a = %+v, want 100 prompt and 5 completion tokens", first)
		}
		// 100 tokens at T=16: 6 whole blocks, capped before the last token's
		if got := second.CachedTokens(); got != 96 {
			t.Errorf("cached tokens of the repeated prompt = %d, want 96 (%+v)", got, second)
		}
		if st := l.Stats(); st.Completed != 2 || st.GeneratedTokens != 10 {
			t.Errorf("Stats() = %+v, want 2 completed, 10 generated", st)
		}
	}
}

func TestLivePoolHits(t *testing.T) {
	cfg, _ := testConfig(t)
	prompt := tokensOf(7, 80)
	producer := startLive(t, cfg, LiveOptions{})
	submitOK(t, producer, workload.Request{Tokens: prompt, OutputLength: 1})
	cfg.Clock = NewClock() // a second server: fresh GPU cache, same pool
	consumer := startLive(t, cfg, LiveOptions{})
	_, u := submitOK(t, consumer, workload.Request{Tokens: prompt, OutputLength: 3})
	if u.PoolHitTokens != 64 || u.LocalHitTokens != 0 {
		t.Errorf("usage on a second engine = %+v, want 64 pool hit tokens and no local hits", u)
	}
	if got := consumer.Transfers()[0].Pages; got != 4 {
		t.Errorf("Transfers()[0].Pages = %d, want 4 loaded pages", got)
	}
}

func TestLiveRefuses(t *testing.T) {
	cfg, _ := testConfig(t)
	l := startLive(t, cfg, LiveOptions{})
	tests := []struct {
		name string
		w    workload.Request
	}{
		{"empty prompt", workload.Request{ID: "empty", OutputLength: 3}},
		{"larger than the KV cache", workload.Request{ID: "huge", Tokens: tokensOf(0, 40*16), OutputLength: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := l.Submit(context.Background(), tt.w)
			if err != nil {
				t.Fatalf("Submit = %v, want a stream", err)
			}
			_, _, err = collect(t, s)
			var re *RequestError
			if !errors.As(err, &re) || re.ID != tt.w.ID {
				t.Errorf("stream of %s ended with %v, want a *RequestError", tt.w.ID, err)
			}
		})
	}
	submitOK(t, l, workload.Request{Tokens: tokensOf(3, 20), OutputLength: 2})
}

func TestLiveCancel(t *testing.T) {
	cfg, _ := testConfig(t)
	cfg.Scheduler.MaxBatchSize = 1
	l := startLive(t, cfg, LiveOptions{RealTime: true})
	// a long request holds the only slot; cancel it and one queued behind
	ctx, cancel := context.WithCancel(context.Background())
	long, err := l.Submit(ctx, workload.Request{ID: "long", Tokens: tokensOf(0, 30), OutputLength: 500})
	if err != nil {
		t.Fatal(err)
	}
	queued, err := l.Submit(ctx, workload.Request{ID: "queued", Tokens: tokensOf(50, 30), OutputLength: 5})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := long.Next(context.Background(), nil); err != nil {
		t.Fatalf("first Next of long = %v", err)
	}
	cancel()
	for name, s := range map[string]*LiveStream{"long": long, "queued": queued} {
		if _, _, err := collect(t, s); !errors.Is(err, ErrCancelled) {
			t.Errorf("stream of %s ended with %v, want ErrCancelled", name, err)
		}
	}
	// every page is free again: a request needing all 40 blocks fits
	submitOK(t, l, workload.Request{Tokens: tokensOf(9, 39*16), OutputLength: 16})
	if st := l.Stats(); st.Cancelled != 2 || st.Running != 0 || st.Waiting != 0 {
		t.Errorf("Stats() = %+v, want 2 cancelled and none in flight", st)
	}
}

func TestLiveStop(t *testing.T) {
	cfg, _ := testConfig(t)
	l, err := NewLive(cfg, LiveOptions{RealTime: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- l.Run(ctx) }()
	s, err := l.Submit(context.Background(), workload.Request{Tokens: tokensOf(0, 30), OutputLength: 500})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-errc; err != nil {
		t.Errorf("Run after cancel = %v, want nil", err)
	}
	if _, _, err := collect(t, s); !errors.Is(err, ErrStopped) {
		t.Errorf("in-flight stream ended with %v, want ErrStopped", err)
	}
	if _, err := l.Submit(context.Background(), workload.Request{Tokens: tokensOf(0, 3)}); !errors.Is(err, ErrStopped) {
		t.Errorf("Submit after stop = %v, want ErrStopped", err)
	}
}

func TestLiveConcurrent(t *testing.T) {
	cfg, _ := testConfig(t)
	cfg.GPU.Blocks = 400
	l := startLive(t, cfg, LiveOptions{})
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			prompt := append(tokensOf(0, 64), tokensOf(1000+i, 20)...)
			submitOK(t, l, workload.Request{Tokens: prompt, OutputLength: 8})
		})
	}
	wg.Wait()
	if st := l.Stats(); st.Completed != 32 || st.VerifyMismatches != 0 {
		t.Errorf("Stats() = %+v, want 32 completed, no mismatches", st)
	}
}
