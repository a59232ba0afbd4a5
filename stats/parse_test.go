package stats

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func sampleLoad() Load {
	l := Load{Op: OpLoad}
	l.AddCall(64, 4<<20, 0)
	l.AddCall(64, 4<<20, 2)
	l.ObservePhase(PhaseResolve, 120*time.Microsecond, 100*time.Microsecond, true)
	l.ObservePhase(PhaseGet, 5123456*time.Nanosecond, 800*time.Microsecond, true)
	l.ObservePhase(PhaseGet, 4*time.Millisecond, 0, false)
	l.ObserveAsync(1250*time.Microsecond, 7*time.Millisecond)
	l.ObserveAsync(3*time.Millisecond, 9*time.Millisecond)
	l.Async.Workers, l.Async.Queue, l.Async.Active = 2, 3, 1
	return l
}

func TestHolesLine(t *testing.T) {
	got := HolesLine(0, exampleHoles())
	want := "prefix-hole stats: rank=0 lookups=4 looked_up_blocks=27 hit_blocks=10 holes=3 hole_blocks=4 " +
		"behind_hole_blocks=7 recomputed_tokens=112 requests=4 blocks=27 prompt_tokens=432 hit_tokens=160 hit_rate=0.3704"
	if got != want {
		t.Errorf("HolesLine(0, example) =\n%s\nwant\n%s", got, want)
	}
	if got := HolesLine(NoRank, Holes{}); strings.Contains(got, "rank=") {
		t.Errorf("HolesLine(NoRank, {}) = %q, want no rank", got)
	}
}

func TestLoadLine(t *testing.T) {
	got := LoadLine(NoRank, sampleLoad())
	want := "load stats: op=load pages=128 store_calls=2 bytes=8388608 failed_pages=2 " +
		"resolve_n=1 resolve_ms=0.120 resolve_max_ms=0.120 resolve_cpu_ms=0.100 " +
		"get_n=2 get_ms=9.123 get_max_ms=5.123 get_cpu_ms=0.800 get_cpu_n=1 " +
		"workers=2 completed=2 wait_ms_mean=2.125 wait_ms_max=3.000 transfer_ms_mean=8.000 transfer_ms_max=9.000 queue=3 active=1"
	if got != want {
		t.Errorf("LoadLine(sample) =\n%s\nwant\n%s", got, want)
	}
}

// TestLineRoundTrip checks that parsing a formatted line gives back the
// statistics, at the line's microsecond precision.
func TestLineRoundTrip(t *testing.T) {
	rec, ok, err := ParseLine("2026-01-02 10:00:00 INFO " + HolesLine(3, exampleHoles()))
	if !ok || err != nil {
		t.Fatalf("ParseLine(HolesLine) = %v, %v", ok, err)
	}
	if diff := cmp.Diff(Record{Kind: KindHoles, Rank: 3, Holes: exampleHoles()}, rec, cmpLoad); diff != "" {
		t.Errorf("holes round trip mismatch (-want +got):\n%s", diff)
	}
	l := sampleLoad()
	rec, ok, err = ParseLine("[kvctl] " + LoadLine(1, l))
	if !ok || err != nil {
		t.Fatalf("ParseLine(LoadLine) = %v, %v", ok, err)
	}
	if rec.Kind != KindLoad || rec.Rank != 1 {
		t.Errorf("ParseLine(LoadLine) kind, rank = %v, %v, want load, 1", rec.Kind, rec.Rank)
	}
	if again := LoadLine(1, rec.Load); again != LoadLine(1, l) {
		t.Errorf("LoadLine(ParseLine(line)) =\n%s\nwant\n%s", again, LoadLine(1, l))
	}
	get := rec.Load.Phases[PhaseGet]
	if get.Count != 2 || get.Wall != 9123*time.Microsecond || get.CPUCount != 1 || rec.Load.Async.WaitSum != 4250*time.Microsecond {
		t.Errorf("parsed get phase %+v, async %+v, want 2 runs, 9.123 ms, 1 CPU sample, wait sum 4.25 ms", get, *rec.Load.Async)
	}
}

func TestParseAsyncLoadLine(t *testing.T) {
	line := "[01/02/2026-10:00:00] [TRT-LLM] [I] mooncake-store async-load stats: rank 2 workers 4 completed=17 " +
		"wait_ms mean=1.5 max=4.0 transfer_ms mean=12.3 max=40.1 queue=5 active=3 failed_pages=1 loaded_gib=2.25"
	rec, ok, err := ParseLine(line)
	if !ok || err != nil {
		t.Fatalf("ParseLine(async line) = %v, %v", ok, err)
	}
	want := Record{Kind: KindAsyncLoad, Rank: 2, Async: AsyncLoad{Workers: 4, Completed: 17,
		WaitMean: 1500 * time.Microsecond, WaitMax: 4 * time.Millisecond, TransferMean: 12300 * time.Microsecond,
		TransferMax: 40100 * time.Microsecond, Queue: 5, Active: 3, FailedPages: 1, LoadedGiB: 2.25}}
	if diff := cmp.Diff(want, rec, cmpLoad); diff != "" {
		t.Errorf("ParseLine(async line) mismatch (-want +got):\n%s", diff)
	}
}

func TestParseLineErrors(t *testing.T) {
	tests := []struct {
		line    string
		ok      bool
		wantErr string
	}{
		{"nothing to see here", false, ""},
		{"preload stats: op=load", false, ""},
		{"x-load stats: op=load", false, ""},
		{"prefix-hole stats: lookups=1", true, "looked_up_blocks is missing"},
		{"prefix-hole stats: lookups=-1 looked_up_blocks=1", true, "not a non-negative integer"},
		{"prefix-hole stats: lookups=1 lookups=2", true, "appears twice"},
		{"prefix-hole stats: =3", true, "has no name"},
		{"load stats: op=copy pages=1", true, "unknown op"},
		{"load stats: op=load pages=1 store_calls=1 bytes=1 failed_pages=0 get_ms=NaN", true, "get_ms"},
		{"load stats: op=load pages=1 store_calls=1 bytes=1 failed_pages=0 get_ms=1e300", true, "too large"},
		{"load stats: op=load pages=1 store_calls=1 bytes=1 failed_pages=0 completed=1", true, "wait_ms_max is missing"},
		{"mooncake-store async-load stats: rank 0 workers 1 completed=1", true, "missing"},
		{"prefix-hole stats: rank=99999999999 lookups=0", true, "rank"},
	}
	for _, tt := range tests {
		_, ok, err := ParseLine(tt.line)
		if ok != tt.ok || (tt.wantErr == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("ParseLine(%q) = %v, %v, want %v, %q", tt.line, ok, err, tt.ok, tt.wantErr)
		}
	}
}
