package crewtrace

import (
	"cmp"
	"slices"
	"time"

	"golang.org/x/exp/trace"

	"github.com/kvctl/kvctl/internal/crew"
)

// goroutine is what the analysis keeps of one goroutine.
type goroutine struct {
	state    trace.GoState
	since    trace.Time
	inCall   bool
	callFrom trace.Time
	ranCalls bool
	site     string // where it blocked inside a call, until it runs again
	yielded  bool   // it yielded outside a call, until it runs again
	offFrom  trace.Time
	poster   bool // it posted a task
	yields   int
	yieldOff trace.Time
}

// call is one call's goroutine and span.
type call struct {
	g          trace.GoID
	start, end trace.Time
}

// post is one crew.PostLog log.
type post struct {
	at trace.Time
	g  trace.GoID
}

type analysis struct {
	gs       map[trace.GoID]*goroutine
	calls    []call
	posts    []post
	waiting  trace.Time
	runnable trace.Time
	atPost   map[string]int
	marks    []mark
	parks    []park
	// spells are the goroutines' spells off a thread.
	spells []spell
}

// spell is a goroutine's time in a state other than running.
type spell struct {
	g        *goroutine
	state    trace.GoState
	from, to trace.Time
}

// mark is one crew.TransferLog log: a transfer's start.
type mark struct {
	at   trace.Time
	kind string
}

// park is one park begun in a call: where, when, and for how long until
// its goroutine ran again.
type park struct {
	site string
	at   trace.Time
	off  trace.Time
}

func newAnalysis() *analysis {
	return &analysis{gs: map[trace.GoID]*goroutine{}, atPost: map[string]int{}}
}

func (a *analysis) g(id trace.GoID) *goroutine {
	g := a.gs[id]
	if g == nil {
		g = &goroutine{}
		a.gs[id] = g
	}
	return g
}

func (a *analysis) event(ev trace.Event) {
	switch ev.Kind() {
	case trace.EventStateTransition:
		if st := ev.StateTransition(); st.Resource.Kind == trace.ResourceGoroutine {
			a.transition(ev, st)
		}
	case trace.EventRegionBegin:
		if ev.Region().Type == crew.ChunkRegion {
			g := a.g(ev.Goroutine())
			g.inCall, g.callFrom, g.ranCalls = true, ev.Time(), true
		}
	case trace.EventRegionEnd:
		if g := a.g(ev.Goroutine()); ev.Region().Type == crew.ChunkRegion && g.inCall {
			g.inCall = false
			a.calls = append(a.calls, call{ev.Goroutine(), g.callFrom, ev.Time()})
		}
	case trace.EventLog:
		switch l := ev.Log(); l.Category {
		case crew.PostLog:
			a.posted(ev)
		case crew.TransferLog:
			a.marks = append(a.marks, mark{ev.Time(), l.Message})
		}
	}
}

// transition accounts for a goroutine's change of state.
func (a *analysis) transition(ev trace.Event, st trace.StateTransition) {
	g := a.g(st.Resource.Goroutine())
	from, to := st.Goroutine()
	now := ev.Time()
	if g.inCall && g.since != 0 {
		switch from {
		case trace.GoWaiting:
			a.waiting += now - g.since
		case trace.GoRunnable:
			a.runnable += now - g.since
		}
	}
	if from != trace.GoRunning && g.since != 0 {
		a.spells = append(a.spells, spell{g, from, g.since, now})
	}
	switch {
	case from == trace.GoRunning && to == trace.GoWaiting && g.inCall:
		g.site, g.offFrom = parkSite(ev), now
	case from == trace.GoRunning && to == trace.GoRunnable && !g.inCall && g.ranCalls && st.Reason == "runtime.Gosched":
		g.yielded, g.offFrom = true, now
		g.yields++
	case to == trace.GoRunning:
		a.ranAgain(g, now)
	}
	g.state, g.since = to, now
}

// ranAgain closes what kept g from running: a park's site or a yield.
func (a *analysis) ranAgain(g *goroutine, now trace.Time) {
	if g.site != "" {
		a.parks = append(a.parks, park{g.site, g.offFrom, now - g.offFrom})
		g.site = ""
	}
	if g.yielded {
		g.yieldOff += now - g.offFrom
		g.yielded = false
	}
}

// parkSite is the first function on ev's stack that is not the lock's.
func parkSite(ev trace.Event) string {
	first := ""
	for f := range ev.Stack().Frames() {
		if first == "" {
			first = f.Func
		}
		if !skipFrame(f.Func) {
			return f.Func
		}
	}
	if first == "" {
		return "(no stack)"
	}
	return first
}

// posted records a post and the states of the members known so far.
func (a *analysis) posted(ev trace.Event) {
	a.posts = append(a.posts, post{ev.Time(), ev.Goroutine()})
	a.g(ev.Goroutine()).poster = true
	for id, g := range a.gs {
		if g.ranCalls && id != ev.Goroutine() {
			a.atPost[g.state.String()]++
		}
	}
}

func (a *analysis) report() *Report {
	r := &Report{Waiting: time.Duration(a.waiting), Runnable: time.Duration(a.runnable), AtPost: map[string]float64{}}
	for _, c := range a.calls {
		r.Calls = append(r.Calls, time.Duration(c.end-c.start))
	}
	slices.Sort(r.Calls)
	r.Parks = a.sites()
	slices.SortFunc(r.Parks, func(x, y Site) int { return cmp.Or(cmp.Compare(y.Off, x.Off), cmp.Compare(x.Func, y.Func)) })
	if n := len(a.posts); n > 0 {
		for k, v := range a.atPost {
			r.AtPost[k] = float64(v) / float64(n)
		}
	}
	var off trace.Time
	for _, g := range a.gs {
		if g.ranCalls && !g.poster {
			r.Yields += g.yields
			off += g.yieldOff
		}
	}
	if r.Yields > 0 {
		r.YieldOff = time.Duration(off) / time.Duration(r.Yields)
	}
	r.Posts, r.Members = a.sets()
	r.Transfers = a.transfers()
	return r
}

// sites sums the parks by site.
func (a *analysis) sites() []Site {
	at := map[string]int{}
	var out []Site
	for _, p := range a.parks {
		k, ok := at[p.site]
		if !ok {
			k = len(out)
			at[p.site] = k
			out = append(out, Site{Func: p.site})
		}
		out[k].Parks++
		out[k].Off += time.Duration(p.off)
	}
	return out
}

// transfers counts the posts, calls and parks that began in each marked
// transfer.
func (a *analysis) transfers() []Transfer {
	out := make([]Transfer, len(a.marks))
	for k, m := range a.marks {
		out[k].Kind, out[k].Poster = m.kind, map[string]time.Duration{}
	}
	for _, sp := range a.spells {
		k := a.transferAt(sp.from)
		switch off := time.Duration(sp.to - sp.from); {
		case k < 0:
		case sp.g.poster:
			out[k].Poster[sp.state.String()] += off
		case sp.g.ranCalls && sp.state == trace.GoRunnable:
			out[k].MembersRunnable += off
		}
	}
	for _, p := range a.posts {
		if k := a.transferAt(p.at); k >= 0 {
			out[k].Posts++
		}
	}
	for _, c := range a.calls {
		if k := a.transferAt(c.start); k >= 0 {
			out[k].Calls++
			out[k].CallTime += time.Duration(c.end - c.start)
			out[k].Span = max(out[k].Span, time.Duration(c.end-a.marks[k].at))
		}
	}
	for _, p := range a.parks {
		if k := a.transferAt(p.at); k >= 0 {
			out[k].Parks++
			out[k].Off += time.Duration(p.off)
		}
	}
	return out
}

// transferAt is the index of the last mark at or before t, -1 when none.
func (a *analysis) transferAt(t trace.Time) int {
	k, _ := slices.BinarySearchFunc(a.marks, t, func(m mark, t trace.Time) int {
		if m.at <= t {
			return -1
		}
		return 1
	})
	return k - 1
}

// sets cuts the calls by post (those that began after a post and before
// the next) and counts the members other than the posting goroutines.
func (a *analysis) sets() ([]Post, int) {
	calls := slices.Clone(a.calls)
	slices.SortFunc(calls, func(x, y call) int { return cmp.Compare(x.start, y.start) })
	posters := map[trace.GoID]bool{}
	for _, p := range a.posts {
		posters[p.g] = true
	}
	members := map[trace.GoID]bool{}
	for _, c := range calls {
		if !posters[c.g] {
			members[c.g] = true
		}
	}
	var out []Post
	i := 0
	for k, p := range a.posts {
		for i < len(calls) && calls[i].start < p.at {
			i++
		}
		j := i
		for j < len(calls) && (k+1 == len(a.posts) || calls[j].start < a.posts[k+1].at) {
			j++
		}
		out = append(out, summarize(p, calls[i:j]))
		i = j
	}
	return out, len(members)
}

// summarize is post p's calls.
func summarize(p post, calls []call) Post {
	s := Post{Calls: len(calls), PosterJoin: -1}
	gs := map[trace.GoID]bool{}
	var ends []trace.Time
	for _, c := range calls {
		gs[c.g] = true
		ends = append(ends, c.end)
		if c.g == p.g && s.PosterJoin < 0 {
			s.PosterJoin = time.Duration(c.start - p.at)
		}
	}
	s.Members = len(gs)
	slices.Sort(ends)
	if n := len(ends); n > 0 {
		s.Span = time.Duration(ends[n-1] - p.at)
		if n > 1 {
			s.Tail = time.Duration(ends[n-1] - ends[n-2])
		}
	}
	return s
}
