package stats

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"time"
)

// MaxSummaryErrors is how many malformed-line messages a Summary keeps.
const MaxSummaryErrors = 20

// maxLineBytes is how much of a log line is examined; statistics lines are
// far shorter, and the rest of a longer line is skipped.
const maxLineBytes = 64 << 10

// Summary aggregates the statistics lines found in logs, per kind. Every
// line covers the interval since its rank's previous line, so counts add
// up across lines.
type Summary struct {
	// Lines is the number of log lines read.
	Lines int64 `json:"lines"`
	// Matched is the number of statistics lines parsed.
	Matched int64 `json:"matched"`
	// Malformed is the number of statistics lines that did not parse.
	Malformed int64 `json:"malformed"`
	// Errors describe the first MaxSummaryErrors malformed lines.
	Errors      []string          `json:"errors,omitempty"`
	PrefixHoles *HolesSummary     `json:"prefix_holes,omitempty"`
	Load        *LoadSummary      `json:"load,omitempty"`
	Save        *LoadSummary      `json:"save,omitempty"`
	AsyncLoad   *AsyncLoadSummary `json:"async_load,omitempty"`
}

// HolesSummary totals prefix-hole stats lines.
type HolesSummary struct {
	Lines  int64 `json:"lines"`
	Ranks  []int `json:"ranks"`
	Totals Holes `json:"totals"`
}

// LoadSummary totals the load stats lines of one direction. In Totals the
// async gauges (workers, queue, active) are the largest seen on one line.
type LoadSummary struct {
	Lines  int64 `json:"lines"`
	Ranks  []int `json:"ranks"`
	Totals Load  `json:"totals"`
}

// AsyncLoadSummary totals TensorRT-LLM's async-load lines. Workers,
// QueueMax and ActiveMax are the largest values seen on one line; the
// means are weighted by completed loads.
type AsyncLoadSummary struct {
	Lines          int64   `json:"lines"`
	Ranks          []int   `json:"ranks"`
	Workers        int64   `json:"workers"`
	Completed      int64   `json:"completed"`
	WaitMeanMS     float64 `json:"wait_ms_mean"`
	WaitMaxMS      float64 `json:"wait_ms_max"`
	TransferMeanMS float64 `json:"transfer_ms_mean"`
	TransferMaxMS  float64 `json:"transfer_ms_max"`
	QueueMax       int64   `json:"queue_max"`
	ActiveMax      int64   `json:"active_max"`
	FailedPages    int64   `json:"failed_pages"`
	LoadedGiB      float64 `json:"loaded_gib"`

	waitSum, transferSum time.Duration
}

// ParseLog reads a log and summarises the statistics lines in it. name
// labels the log in error messages. Malformed statistics lines are counted
// and described in the summary, not returned as errors; the error is for
// reading r.
func ParseLog(r io.Reader, name string) (Summary, error) {
	var s Summary
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br)
		if len(line) > 0 || err == nil {
			s.Lines++
			s.addLine(line, name)
		}
		if err == io.EOF {
			return s, nil
		}
		if err != nil {
			return s, fmt.Errorf("reading log %q: line %d: %w", name, s.Lines+1, err)
		}
	}
}

// readLine returns the next line without its end of line, keeping at most
// maxLineBytes of it.
func readLine(br *bufio.Reader) (string, error) {
	var buf []byte
	for {
		part, isPrefix, err := br.ReadLine()
		if len(buf) < maxLineBytes {
			buf = append(buf, part[:min(len(part), maxLineBytes-len(buf))]...)
		}
		if err != nil || !isPrefix {
			return string(buf), err
		}
	}
}

func (s *Summary) addLine(line, name string) {
	rec, ok, err := ParseLine(line)
	if !ok {
		return
	}
	if err != nil {
		s.Malformed++
		if len(s.Errors) < MaxSummaryErrors {
			s.Errors = append(s.Errors, fmt.Sprintf("%s:%d: %v", name, s.Lines, err))
		}
		return
	}
	s.Add(rec)
}

// Add folds one parsed record into the summary.
func (s *Summary) Add(rec Record) {
	s.Matched++
	switch rec.Kind {
	case KindHoles:
		s.PrefixHoles = s.PrefixHoles.merge(&HolesSummary{Lines: 1, Ranks: ranksOf(rec.Rank), Totals: rec.Holes})
	case KindLoad:
		ls := &LoadSummary{Lines: 1, Ranks: ranksOf(rec.Rank), Totals: rec.Load}
		if rec.Load.Op == OpSave {
			s.Save = s.Save.merge(ls)
		} else {
			s.Load = s.Load.merge(ls)
		}
	case KindAsyncLoad:
		s.AsyncLoad = s.AsyncLoad.merge(asyncSummaryOf(rec))
	}
}

// Merge folds the summary of another log into s.
func (s *Summary) Merge(o Summary) {
	s.Lines += o.Lines
	s.Matched += o.Matched
	s.Malformed += o.Malformed
	for _, e := range o.Errors {
		if len(s.Errors) < MaxSummaryErrors {
			s.Errors = append(s.Errors, e)
		}
	}
	s.PrefixHoles = s.PrefixHoles.merge(o.PrefixHoles)
	s.Load = s.Load.merge(o.Load)
	s.Save = s.Save.merge(o.Save)
	s.AsyncLoad = s.AsyncLoad.merge(o.AsyncLoad)
}

func ranksOf(rank int) []int {
	if rank < 0 {
		return nil
	}
	return []int{rank}
}

func unionRanks(a, b []int) []int {
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// merge returns h with o folded in; either may be nil.
func (h *HolesSummary) merge(o *HolesSummary) *HolesSummary {
	if o == nil {
		return h
	}
	if h == nil {
		h = &HolesSummary{Ranks: []int{}}
	}
	h.Lines += o.Lines
	h.Ranks = unionRanks(h.Ranks, o.Ranks)
	h.Totals.Merge(o.Totals)
	return h
}

// merge returns l with o folded in; either may be nil. Lines follow each
// other in time, so the async gauges take the larger value, not the sum.
func (l *LoadSummary) merge(o *LoadSummary) *LoadSummary {
	if o == nil {
		return l
	}
	if l == nil {
		l = &LoadSummary{Ranks: []int{}}
	}
	l.Lines += o.Lines
	l.Ranks = unionRanks(l.Ranks, o.Ranks)
	before := l.Totals.Async
	if before != nil {
		before = &AsyncStats{Workers: before.Workers, Queue: before.Queue, Active: before.Active}
	}
	l.Totals.Merge(o.Totals.Clone())
	if a := l.Totals.Async; a != nil && before != nil && o.Totals.Async != nil {
		oa := o.Totals.Async
		a.Workers = max(before.Workers, oa.Workers)
		a.Queue = max(before.Queue, oa.Queue)
		a.Active = max(before.Active, oa.Active)
	}
	return l
}

func asyncSummaryOf(rec Record) *AsyncLoadSummary {
	a := rec.Async
	n := time.Duration(a.Completed)
	return &AsyncLoadSummary{
		Lines: 1, Ranks: ranksOf(rec.Rank), Workers: a.Workers, Completed: a.Completed,
		WaitMaxMS: ms(a.WaitMax), TransferMaxMS: ms(a.TransferMax),
		QueueMax: a.Queue, ActiveMax: a.Active, FailedPages: a.FailedPages, LoadedGiB: a.LoadedGiB,
		waitSum: a.WaitMean * n, transferSum: a.TransferMean * n,
	}
}

// merge returns a with o folded in; either may be nil.
func (a *AsyncLoadSummary) merge(o *AsyncLoadSummary) *AsyncLoadSummary {
	if o == nil {
		return a
	}
	if a == nil {
		a = &AsyncLoadSummary{Ranks: []int{}}
	}
	a.Lines += o.Lines
	a.Ranks = unionRanks(a.Ranks, o.Ranks)
	a.Workers = max(a.Workers, o.Workers)
	a.Completed += o.Completed
	a.waitSum += o.waitSum
	a.transferSum += o.transferSum
	a.WaitMaxMS = max(a.WaitMaxMS, o.WaitMaxMS)
	a.TransferMaxMS = max(a.TransferMaxMS, o.TransferMaxMS)
	a.QueueMax = max(a.QueueMax, o.QueueMax)
	a.ActiveMax = max(a.ActiveMax, o.ActiveMax)
	a.FailedPages += o.FailedPages
	a.LoadedGiB += o.LoadedGiB
	a.WaitMeanMS = ms(meanDuration(a.waitSum, a.Completed))
	a.TransferMeanMS = ms(meanDuration(a.transferSum, a.Completed))
	return a
}
