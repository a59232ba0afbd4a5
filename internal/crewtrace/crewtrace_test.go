package crewtrace

import (
	"bytes"
	"context"
	"math/rand/v2"
	"runtime"
	"runtime/trace"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kvctl/kvctl/internal/crew"
)

// crewTrace traces a crew of two helpers running tasks tasks of chunks
// chunks each, task after task, marked as two transfers as kvctl bench
// marks them: the first task "warm-up", the rest "timed". The posting
// goroutine sleeps 1 ms after the "timed" mark, and the first chunk of the
// last task waits on a channel for 2 ms, so that one call parks in
// waitInCall.
func crewTrace(t testing.TB, tasks, chunks int) []byte {
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Skipf("cannot trace: %v", err) // another trace is running (go test -trace)
	}
	c := crew.New(2, crew.DefaultPark, nil)
	var sum atomic.Int64 // work that never parks: a mutex's waiters would park in calls on a busy machine
	for k := range tasks {
		switch k {
		case 0:
			trace.Log(context.Background(), crew.TransferLog, "warm-up")
		case 1:
			trace.Log(context.Background(), crew.TransferLog, "timed")
			time.Sleep(time.Millisecond)
		}
		task := c.Post(chunks, func(j int) error {
			if k == tasks-1 && j == 0 {
				waitInCall()
			}
			sum.Add(int64(j))
			return nil
		})
		task.Wait()
	}
	c.Close()
	trace.Stop()
	return buf.Bytes()
}

// waitInCall parks its goroutine for at least 2 ms: the 2 ms start once
// it is parked, so that a busy machine, which may keep a goroutine off its
// core between arming a timer and blocking, cannot shorten the wait.
func waitInCall() {
	ch := make(chan struct{})
	go func() {
		for !parkedInWaitInCall() {
			time.Sleep(50 * time.Microsecond)
		}
		time.Sleep(2 * time.Millisecond)
		close(ch)
	}()
	<-ch
}

// parkedInWaitInCall says whether a goroutine waits in waitInCall's
// channel receive, from every goroutine's stack.
func parkedInWaitInCall() bool {
	buf := make([]byte, 1<<20)
	all := string(buf[:runtime.Stack(buf, true)])
	for _, g := range strings.Split(all, "\n\n") {
		header, _, _ := strings.Cut(g, "\n")
		if strings.Contains(header, "[chan receive") && strings.Contains(g, ".waitInCall(") {
			return true
		}
	}
	return false
}

func TestAnalyzeCountsTheCrew(t *testing.T) {
	const tasks, chunks = 5, 8
	r, err := Analyze(bytes.NewReader(crewTrace(t, tasks, chunks)))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Calls) != tasks*chunks {
		t.Errorf("%d calls, want %d", len(r.Calls), tasks*chunks)
	}
	if len(r.Posts) != tasks {
		t.Fatalf("%d posts, want %d", len(r.Posts), tasks)
	}
	calls := 0
	for _, p := range r.Posts {
		calls += p.Calls
		if p.Members < 1 || p.Members > 3 || p.Span <= 0 {
			t.Errorf("post %+v: want its calls on 1 to 3 goroutines and a span", p)
		}
	}
	if calls != tasks*chunks {
		t.Errorf("the posts' calls add up to %d, want %d", calls, tasks*chunks)
	}
	if r.Members > 2 {
		t.Errorf("%d members, want at most the crew's 2 helpers", r.Members)
	}
	if r.Waiting < 2*time.Millisecond {
		t.Errorf("calls waited %v, want at least the 2 ms of waitInCall", r.Waiting)
	}
	if i := slices.IndexFunc(r.Parks, func(s Site) bool { return strings.HasSuffix(s.Func, ".waitInCall") }); i < 0 || r.Parks[i].Parks != 1 || r.Parks[i].Off < 2*time.Millisecond {
		t.Errorf("parks %+v, want waitInCall's once, for 2 ms or more", r.Parks)
	}
	checkTransfers(t, r.Transfers, []Transfer{
		{Kind: "warm-up", Posts: 1, Calls: chunks},
		{Kind: "timed", Posts: tasks - 1, Calls: (tasks - 1) * chunks, Parks: 1, Off: 2 * time.Millisecond},
	})
	if w := r.Transfers[1].Poster["Waiting"]; w < time.Millisecond {
		t.Errorf("the poster waited %v in the timed transfer, want its 1 ms sleep or more (%v)", w, r.Transfers[1].Poster)
	}
}

// TestAnalyzeCountsMembersWithoutAThread runs the crew on one processor:
// a member that ran calls was woken while another goroutine held the
// processor, so the transfers' members spent time runnable.
func TestAnalyzeCountsMembersWithoutAThread(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	r, err := Analyze(bytes.NewReader(crewTrace(t, 3, 8)))
	if err != nil {
		t.Fatal(err)
	}
	if r.Members == 0 {
		t.Skip("the posting goroutine ran every call")
	}
	var runnable time.Duration
	for _, tr := range r.Transfers {
		runnable += tr.MembersRunnable
	}
	if runnable <= 0 {
		t.Errorf("members runnable %v on one processor with %d members, want some", runnable, r.Members)
	}
}

// checkTransfers compares got with want, whose Parks and Off are the
// least parks in calls each transfer may have and the least time off they
// took, and so the least its calls and its span took. A busy machine may
// add parks: calls blocked in runtime/trace itself (trace.StartRegion)
// were seen there.
func checkTransfers(t *testing.T, got, want []Transfer) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("transfers %+v, want %+v", got, want)
	}
	for k, w := range want {
		g := got[k]
		if g.Parks < w.Parks || g.Off < w.Off {
			t.Errorf("transfer %d: %d parks in calls for %v, want %d or more for %v or more", k, g.Parks, g.Off, w.Parks, w.Off)
		}
		if g.Calls > 0 && (g.CallTime < w.Off || g.Span < g.CallTime/time.Duration(g.Calls) || g.Span < w.Off) {
			t.Errorf("transfer %d: calls of %v in all, %v to the last call's end, want both over a call's time and %v", k, g.CallTime, g.Span, w.Off)
		}
		if g.Kind != w.Kind || g.Posts != w.Posts || g.Calls != w.Calls {
			t.Errorf("transfer %d: %+v, want %+v", k, g, w)
		}
	}
}

func TestAnalyzeRefusesWhatIsNotATrace(t *testing.T) {
	if _, err := Analyze(strings.NewReader("not a trace")); err == nil {
		t.Fatal("Analyze of text succeeded")
	}
}

// TestAnalyzeSurvivesDamage reads a trace cut short and with bytes
// changed, in many places: each either reads or fails, and none panics.
// (A fuzz target seeded with a trace stalled: the fuzzing engine's worker
// stopped making calls, while every input it held read in under a
// millisecond outside it.)
func TestAnalyzeSurvivesDamage(t *testing.T) {
	whole := crewTrace(t, 2, 4)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		d := bytes.Clone(whole)
		for range 1 + rng.IntN(4) {
			i := rng.IntN(len(d))
			switch rng.IntN(3) {
			case 0:
				d[i] ^= 1 << rng.IntN(8)
			case 1:
				d[i] = byte(rng.IntN(256))
			default:
				d = d[:i+1]
			}
		}
		if r, err := Analyze(bytes.NewReader(d)); err == nil && r == nil {
			t.Fatal("no report and no error")
		}
	}
}
