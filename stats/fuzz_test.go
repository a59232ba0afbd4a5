package stats

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func FuzzParseLine(f *testing.F) {
	f.Add(HolesLine(0, exampleHoles()))
	f.Add("ts " + LoadLine(2, sampleLoad()))
	f.Add("mooncake-store async-load stats: rank 0 workers 2 completed=2 wait_ms mean=1.0 max=1.5 " +
		"transfer_ms mean=10.0 max=12.0 queue=1 active=2 failed_pages=0 loaded_gib=0.50")
	f.Add("load stats: op=save pages=1 store_calls=1 bytes=1 failed_pages=0 put_ms=2 completed=0 wait_ms mean=1")
	f.Add("x load stats: load stats: op=load")
	f.Fuzz(func(t *testing.T, line string) {
		rec, ok, err := ParseLine(line)
		if !ok || err != nil {
			return
		}
		var again string
		switch rec.Kind {
		case KindHoles:
			again = HolesLine(rec.Rank, rec.Holes)
		case KindLoad:
			again = LoadLine(rec.Rank, rec.Load)
		default:
			a := rec.Async
			if a.Completed < 0 || a.WaitMax < 0 || a.TransferMean < 0 || a.LoadedGiB < 0 {
				t.Errorf("ParseLine(%q) = %+v, want non-negative values", line, a)
			}
			return
		}
		back, ok, err := ParseLine(again)
		if !ok || err != nil {
			t.Fatalf("ParseLine(%q) = %v, %v, want the formatted line of %q to parse", again, ok, err, line)
		}
		if diff := cmp.Diff(rec, back, cmpLoad); diff != "" {
			t.Errorf("format/parse round trip of %q via %q mismatch (-first +second):\n%s", line, again, diff)
		}
	})
}

func FuzzParseLog(f *testing.F) {
	f.Add(sampleLog())
	f.Add("\n\r\nload stats:\nprefix-hole stats: a b c=d")
	f.Fuzz(func(t *testing.T, log string) {
		s, err := ParseLog(strings.NewReader(log), "fuzz")
		if err != nil {
			t.Fatalf("ParseLog(strings.Reader) error = %v, want nil", err)
		}
		if s.Matched+s.Malformed > s.Lines || s.Lines > int64(strings.Count(log, "\n")+1) {
			t.Errorf("ParseLog(%q) = %d lines, %d matched, %d malformed: inconsistent", log, s.Lines, s.Matched, s.Malformed)
		}
	})
}
