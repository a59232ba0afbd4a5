package stats

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func sampleLog() string {
	var h1, h2 Holes
	h1.Add(Analyze(presence("####.##..#"), 16))
	h2.Add(Analyze(presence("######"), 16))
	save := Load{Op: OpSave}
	save.AddCall(10, 1000, 0)
	l2 := sampleLoad()
	l2.Async.Queue = 9
	return strings.Join([]string{
		"INFO starting",
		"I0102 10:00:00 " + HolesLine(0, h1),
		"I0102 10:00:00 " + LoadLine(0, sampleLoad()),
		"I0102 10:00:30 " + HolesLine(1, h2),
		"I0102 10:00:30 " + LoadLine(1, l2),
		"W " + LoadLine(0, save),
		"prefix-hole stats: lookups=x",
		"[TRT-LLM] [I] mooncake-store async-load stats: rank 0 workers 2 completed=2 wait_ms mean=1.0 max=1.5 " +
			"transfer_ms mean=10.0 max=12.0 queue=1 active=2 failed_pages=0 loaded_gib=0.50",
		"[TRT-LLM] [I] mooncake-store async-load stats: rank 1 workers 2 completed=6 wait_ms mean=3.0 max=9.0 " +
			"transfer_ms mean=2.0 max=3.0 queue=4 active=0 failed_pages=3 loaded_gib=1.25",
		"done",
	}, "\n")
}

func TestParseLog(t *testing.T) {
	s, err := ParseLog(strings.NewReader(sampleLog()), "server.log")
	if err != nil {
		t.Fatalf("ParseLog = %v", err)
	}
	if s.Lines != 10 || s.Matched != 7 || s.Malformed != 1 ||
		len(s.Errors) != 1 || !strings.HasPrefix(s.Errors[0], "server.log:7: prefix-hole stats line:") {
		t.Errorf("ParseLog lines, matched, malformed, errors = %d, %d, %d, %q, want 10, 7, 1, one at line 7",
			s.Lines, s.Matched, s.Malformed, s.Errors)
	}
	ph := s.PrefixHoles
	if ph == nil || ph.Lines != 2 || !cmp.Equal(ph.Ranks, []int{0, 1}) || ph.Totals.HitBlocks != 10 || ph.Totals.Holes != 2 {
		t.Errorf("ParseLog prefix holes = %+v, want 2 lines, ranks 0 1, 10 hit blocks, 2 holes", ph)
	}
	ld := s.Load
	if ld == nil || ld.Lines != 2 || ld.Totals.Pages != 256 || ld.Totals.Async.Completed != 4 ||
		ld.Totals.Async.Queue != 9 || ld.Totals.Async.Workers != 2 {
		t.Errorf("ParseLog load = %+v, want 2 lines, 256 pages, 4 completed, queue max 9, 2 workers", ld)
	}
	if s.Save == nil || s.Save.Totals.Pages != 10 || s.Save.Lines != 1 {
		t.Errorf("ParseLog save = %+v, want one line of 10 pages", s.Save)
	}
	want := &AsyncLoadSummary{Lines: 2, Ranks: []int{0, 1}, Workers: 2, Completed: 8, WaitMeanMS: 2.5,
		WaitMaxMS: 9, TransferMeanMS: 4, TransferMaxMS: 12, QueueMax: 4, ActiveMax: 2, FailedPages: 3, LoadedGiB: 1.75}
	if diff := cmp.Diff(want, s.AsyncLoad, cmpopts.IgnoreUnexported(AsyncLoadSummary{})); diff != "" {
		t.Errorf("ParseLog async load mismatch (-want +got):\n%s", diff)
	}
	if _, err := json.Marshal(s); err != nil {
		t.Errorf("json.Marshal(Summary) = %v", err)
	}
}

func TestSummaryMerge(t *testing.T) {
	whole, _ := ParseLog(strings.NewReader(sampleLog()), "a")
	lines := strings.Split(sampleLog(), "\n")
	first, _ := ParseLog(strings.NewReader(strings.Join(lines[:4], "\n")), "a")
	rest, _ := ParseLog(strings.NewReader(strings.Join(lines[4:], "\n")), "a")
	first.Merge(rest)
	ignore := cmp.Options{cmpLoad, cmp.AllowUnexported(AsyncLoadSummary{}), cmpopts.IgnoreFields(Summary{}, "Errors")}
	if diff := cmp.Diff(whole, first, ignore); diff != "" {
		t.Errorf("Merge of two halves differs from the whole (-whole +merged):\n%s", diff)
	}
}

func TestParseLogLongLinesAndErrors(t *testing.T) {
	long := strings.Repeat("x", 200<<10) + "\n" + HolesLine(NoRank, exampleHoles()) + "\r\n"
	s, err := ParseLog(strings.NewReader(long), "long")
	if err != nil || s.Lines != 2 || s.Matched != 1 {
		t.Errorf("ParseLog(long line + stats line) = %d lines, %d matched, %v, want 2, 1, nil", s.Lines, s.Matched, err)
	}
	boom := errors.New("disk gone")
	_, err = ParseLog(iotest.TimeoutReader(strings.NewReader(long)), "t")
	if err == nil {
		t.Errorf("ParseLog(failing reader) error = nil, want one")
	}
	_, err = ParseLog(iotest.ErrReader(boom), "e")
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), `"e"`) {
		t.Errorf("ParseLog(ErrReader) error = %v, want %v naming the log", err, boom)
	}
}

func TestSummaryErrorsCapped(t *testing.T) {
	bad := strings.Repeat("load stats: op=nope\n", MaxSummaryErrors+5)
	s, err := ParseLog(strings.NewReader(bad), "bad")
	if err != nil || s.Malformed != MaxSummaryErrors+5 || len(s.Errors) != MaxSummaryErrors {
		t.Errorf("ParseLog(bad lines) = %d malformed, %d errors, %v, want %d, %d", s.Malformed, len(s.Errors), err,
			MaxSummaryErrors+5, MaxSummaryErrors)
	}
}
