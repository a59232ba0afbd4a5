package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// stuckStdin is a pipe that is never written to nor closed: a Read blocks
// for ever. reading is closed at the first Read.
type stuckStdin struct {
	r       *io.PipeReader
	once    sync.Once
	reading chan struct{}
}

func newStuckStdin(t *testing.T) *stuckStdin {
	r, w := io.Pipe()
	t.Cleanup(func() { w.Close() })
	return &stuckStdin{r: r, reading: make(chan struct{})}
}

func (s *stuckStdin) Read(p []byte) (int, error) {
	s.once.Do(func() { close(s.reading) })
	return s.r.Read(p)
}

func TestRunInterruptedWhileReadingStdin(t *testing.T) {
	tests := [][]string{
		{"keys", "--tokens", "-", "--tokens-per-block", "32"},
		{"pool", "exist", "--pool", "mem://", "--keys-from", "-"},
		{"stats", "parse", "-"},
	}
	for _, args := range tests {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			ios, _, errOut := NewTestIOStreams("")
			stdin := newStuckStdin(t)
			ios.In = stdin
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			code := make(chan int, 1)
			go func() { code <- run(ctx, ios, args) }()
			select {
			case <-stdin.reading:
			case <-time.After(5 * time.Second):
				t.Fatalf("run(%q) never read stdin", args)
			}
			cancel()
			select {
			case got := <-code:
				if got != ExitInterrupted {
					t.Errorf("run(%q) after cancel = %d, want %d; stderr: %s", args, got, ExitInterrupted, errOut)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("run(%q) still running after its context was cancelled", args)
			}
		})
	}
}

func TestInterruptedMessage(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{context.Canceled, "interrupted"},
		{interruptedAfter(context.Canceled, 6935, 12031), "interrupted after 6,935 of 12,031 requests"},
		{interruptedAfter(context.Canceled, 12, 0), "interrupted after 12 requests"},
		{interruptedAfter(context.Canceled, 0, 0), "interrupted"},
		{interruptedAfterUnits(context.Canceled, 1, 3, "runs"), "interrupted after 1 of 3 runs"},
		{interruptedAfter(fmt.Errorf("request %q: %w", "r1", context.Canceled), 0, 5), "interrupted after 0 of 5 requests"},
	}
	for _, tt := range tests {
		if got := interruptedMessage(tt.err); got != tt.want {
			t.Errorf("interruptedMessage(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
	if err := errors.New("boom"); interruptedAfter(err, 1, 2) != err {
		t.Errorf("interruptedAfter(%v, 1, 2) changed an error that is not a cancellation", err)
	}
}

func TestGroupThousands(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1,000"}, {12031, "12,031"}, {1234567, "1,234,567"}, {-1234, "-1,234"}}
	for _, tt := range tests {
		if got := groupThousands(tt.n); got != tt.want {
			t.Errorf("groupThousands(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestContextReader(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := contextReader{ctx: ctx, r: strings.NewReader("abcdef")}
	buf := make([]byte, 3)
	if n, err := r.Read(buf); n != 3 || err != nil {
		t.Fatalf("Read before cancel = %d, %v, want 3, nil", n, err)
	}
	cancel()
	if n, err := r.Read(buf); n != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("Read after cancel = %d, %v, want 0, %v", n, err, context.Canceled)
	}
}
