// Package crewtrace reads an execution trace of kvctl (--exectrace) and
// measures its crew (internal/crew): the store calls its members ran (the
// crew.ChunkRegion regions), the tasks posted (crew.PostLog), what kept the
// calls from running, how many members could take a task's calls when it
// was posted, and, where the trace marks transfers (crew.TransferLog, as
// kvctl bench does), each transfer's share. docs/benchmarks.md reads staged transfers' traces
// with it; bench/crewtrace prints its report.
package crewtrace

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"golang.org/x/exp/trace"
)

// Report is what a trace tells of its crew.
type Report struct {
	// Calls are the calls' wall times, sorted.
	Calls []time.Duration
	// Waiting and Runnable are the calls' time not running: blocked, and
	// ready but without a thread.
	Waiting, Runnable time.Duration
	// Parks are where the calls blocked, most time first.
	Parks []Site
	// Posts are the tasks posted, in order.
	Posts []Post
	// AtPost is, per goroutine state, how many of the members that had
	// run calls before were in it when a task was posted, on average.
	AtPost map[string]float64
	// Yields are the members' yields outside calls (the posting
	// goroutines' not counted), and YieldOff the mean time from a yield
	// until the member ran again.
	Yields   int
	YieldOff time.Duration
	// Members is how many goroutines other than the posting one ran calls.
	Members int
	// Transfers are the transfers the trace marks, in order (none where
	// it marks none).
	Transfers []Transfer
}

// Transfer is what the crew did from one crew.TransferLog mark to the
// next (or the trace's end): the tasks posted, the calls begun and the
// parks begun in calls, with their time until running again.
type Transfer struct {
	Kind  string // the mark's message: kvctl bench's "warm-up" or "timed"
	Posts int
	Calls int
	// CallTime is the calls' time, summed from each one's start to its
	// end.
	CallTime time.Duration
	Parks    int
	Off      time.Duration
	// Span is from the mark to the end of the transfer's last call.
	Span time.Duration
	// Poster is the posting goroutine's time in each state other than
	// running (runnable, waiting, syscall) in spells begun in the
	// transfer.
	Poster map[string]time.Duration
	// MembersRunnable is the other members' time ready to run but without
	// a thread, summed, in spells begun in the transfer: high when the
	// machine's cores went to other programs.
	MembersRunnable time.Duration
}

// Site is a place where calls blocked: the first function on the stack
// that is not the lock's (lockFrames).
type Site struct {
	Func  string
	Parks int
	Off   time.Duration // from blocking until running again
}

// Post is one task: when it was posted and what its calls did.
type Post struct {
	// Calls is how many calls began after the post and before the next.
	Calls int
	// Members is how many goroutines ran them.
	Members int
	// Span is from the post to its last call's end, Tail from the
	// second-to-last call's end to the last's.
	Span, Tail time.Duration
	// PosterJoin is from the post to the posting goroutine's first call;
	// -1 when it took none.
	PosterJoin time.Duration
}

// lockFrames are the prefixes of the functions on a park's stack that
// belong to the lock, not to its caller: the runtime's, sync's, the
// standard library's internal packages' and internal/spinmu's.
var lockFrames = []string{"runtime.", "sync.", "internal/", "github.com/kvctl/kvctl/internal/spinmu."}

// skipFrame says whether a park's frame is the lock's, not its caller's.
func skipFrame(fn string) bool {
	for _, p := range lockFrames {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// Analyze reads the trace r and reports on its crew.
func Analyze(r io.Reader) (*Report, error) {
	tr, err := trace.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("reading the trace: %w", err)
	}
	a := newAnalysis()
	for {
		ev, err := tr.ReadEvent()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the trace: %w", err)
		}
		a.event(ev)
	}
	return a.report(), nil
}
