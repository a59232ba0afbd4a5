// Command crewtrace prints what an execution trace of kvctl (written with
// --exectrace, gzipped or not) tells of its crew: the store calls of the
// copy threads, what kept them from running, and each task's sets
// (internal/crewtrace), and, in a trace of kvctl bench, each warm-up and
// timed transfer's time to its last call's end, posts, calls (how many,
// and their mean time), parks, the posting goroutine's time off a thread
// (runnable: ready but waiting for one) and the other members' runnable
// time. docs/benchmarks.md reads staged
// transfers' traces with it:
//
//	go run ./bench/crewtrace docs/gpu-runs/2026-12-05-d266ea2/r45/trace_save_head.out.gz
package main

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kvctl/kvctl/internal/crewtrace"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: crewtrace TRACE[.gz]")
		os.Exit(2)
	}
	r, err := analyze(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "crewtrace:", err)
		os.Exit(1)
	}
	writeReport(os.Stdout, r)
}

func analyze(name string) (*crewtrace.Report, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var in io.Reader = bufio.NewReader(f)
	if strings.HasSuffix(name, ".gz") {
		z, err := gzip.NewReader(in)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		in = z
	}
	r, err := crewtrace.Analyze(in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return r, nil
}

func writeReport(out io.Writer, r *crewtrace.Report) {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	defer w.Flush()
	c := r.Calls
	if len(c) == 0 {
		fmt.Fprintln(w, "no crew calls in the trace (was it written with --exectrace by kvctl?)")
		return
	}
	fmt.Fprintf(w, "calls\t%d on %d members and the posting goroutine\n", len(c), r.Members)
	fmt.Fprintf(w, "a call\tmean %v, p50 %v, p90 %v, p99 %v\n", us(mean(c)), us(c[len(c)/2]), us(c[len(c)*9/10]), us(c[len(c)*99/100]))
	fmt.Fprintf(w, "calls not running\twaiting %v, runnable %v, of %v\n", ms(r.Waiting), ms(r.Runnable), ms(sum(c)))
	for _, s := range r.Parks {
		fmt.Fprintf(w, "  parked in\t%s: %d times, %v until running again\n", s.Func, s.Parks, ms(s.Off))
	}
	posts(w, r)
	if r.Yields > 0 {
		fmt.Fprintf(w, "members' yields\t%d, each %v until running again\n", r.Yields, us(r.YieldOff))
	}
	for k, t := range r.Transfers {
		fmt.Fprintf(w, "transfer %d (%s)\t%v to the last call's end: %d posts, %d calls of %v on average, %d parks, %v until running again; the poster %s; members runnable %v\n", k+1, t.Kind, ms(t.Span), t.Posts, t.Calls, us(t.CallTime/time.Duration(max(1, t.Calls))), t.Parks, ms(t.Off), offThread(t.Poster), ms(t.MembersRunnable))
	}
}

func posts(w io.Writer, r *crewtrace.Report) {
	if len(r.Posts) == 0 {
		return
	}
	var span, tail, join []time.Duration
	var members []int
	for _, p := range r.Posts {
		span, tail, members = append(span, p.Span), append(tail, p.Tail), append(members, p.Members)
		if p.PosterJoin >= 0 {
			join = append(join, p.PosterJoin)
		}
	}
	slices.Sort(members)
	fmt.Fprintf(w, "posts\t%d; a post's calls on %d goroutines (median)\n", len(r.Posts), members[len(members)/2])
	fmt.Fprintf(w, "post to its last call's end\tmean %v\n", us(mean(span)))
	fmt.Fprintf(w, "between its last two calls' ends\tmean %v\n", us(mean(tail)))
	if len(join) > 0 {
		slices.Sort(join)
		fmt.Fprintf(w, "the poster's first call\tmedian %v after the post, in %d of %d posts\n", us(join[len(join)/2]), len(join), len(r.Posts))
	}
	states := make([]string, 0, len(r.AtPost))
	for s := range r.AtPost {
		states = append(states, s)
	}
	slices.Sort(states)
	fmt.Fprint(w, "members at a post (mean)\t")
	for _, s := range states {
		fmt.Fprintf(w, "%s %.2f  ", s, r.AtPost[s])
	}
	fmt.Fprintln(w)
}

func sum(ds []time.Duration) time.Duration {
	var t time.Duration
	for _, d := range ds {
		t += d
	}
	return t
}

func mean(ds []time.Duration) time.Duration { return sum(ds) / time.Duration(max(1, len(ds))) }

// offThread lists a goroutine's time per state off a thread.
func offThread(by map[string]time.Duration) string {
	var out []string
	for _, st := range slices.Sorted(maps.Keys(by)) {
		out = append(out, fmt.Sprintf("%s %v", strings.ToLower(st), ms(by[st])))
	}
	if len(out) == 0 {
		return "always running"
	}
	return strings.Join(out, ", ")
}

func us(d time.Duration) string { return fmt.Sprintf("%.1f µs", float64(d)/1e3) }

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/1e6) }
