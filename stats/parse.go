package stats

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Kind names a kind of statistics line.
type Kind string

// The kinds of statistics lines ParseLine recognises.
const (
	KindHoles     Kind = "prefix-hole" // HolesLine
	KindLoad      Kind = "load"        // LoadLine
	KindAsyncLoad Kind = "async-load"  // TensorRT-LLM's mooncake-store async-load line
)

// Record is one parsed statistics line. Only the field of its Kind is set.
type Record struct {
	Kind Kind
	// Rank is the rank the line names, or NoRank.
	Rank  int
	Holes Holes
	Load  Load
	Async AsyncLoad
}

// AsyncLoad is TensorRT-LLM's asynchronous loader summary, one per rank and
// interval: "mooncake-store async-load stats: rank R workers N completed=C
// wait_ms mean=.. max=.. transfer_ms mean=.. max=.. queue=Q active=A
// failed_pages=F loaded_gib=G". Its counts cover the interval since the
// rank's previous line; Queue and Active are live values.
type AsyncLoad struct {
	Workers      int64
	Completed    int64
	WaitMean     time.Duration
	WaitMax      time.Duration
	TransferMean time.Duration
	TransferMax  time.Duration
	Queue        int64
	Active       int64
	FailedPages  int64
	LoadedGiB    float64
}

// ParseLine finds a statistics line anywhere in line (after timestamps,
// levels or other prefixes) and parses it. ok is false when line holds
// none; err is set when it holds one that is malformed.
func ParseLine(line string) (rec Record, ok bool, err error) {
	kind, rest := findMarker(line)
	if kind == "" {
		return Record{}, false, nil
	}
	f, err := scanFields(rest)
	if err == nil {
		rec, err = f.record(kind)
	}
	if err != nil {
		return Record{}, true, fmt.Errorf("%s stats line: %w", kind, err)
	}
	return rec, true, nil
}

// findMarker returns the kind of the first marker in line and the text
// after it. "load stats:" counts only at the start of a word, so that the
// end of "async-load stats:" is not taken for it.
func findMarker(line string) (Kind, string) {
	if i := strings.Index(line, AsyncLoadMarker); i >= 0 {
		return KindAsyncLoad, line[i+len(AsyncLoadMarker):]
	}
	if i := strings.Index(line, HolesMarker); i >= 0 {
		return KindHoles, line[i+len(HolesMarker):]
	}
	for off := 0; ; {
		i := strings.Index(line[off:], LoadMarker)
		if i < 0 {
			return "", ""
		}
		i += off
		if i == 0 || !isWordByte(line[i-1]) {
			return KindLoad, line[i+len(LoadMarker):]
		}
		off = i + len(LoadMarker)
	}
}

func isWordByte(c byte) bool {
	return c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// fields are the key=value pairs of a line.
type fields map[string]string

// scanFields splits the text after a marker into key=value pairs. A bare
// word followed by a bare word is a pair too ("rank 0"), and a bare word
// followed by mean= and max= prefixes them ("wait_ms mean=1" is
// wait_ms_mean=1). Other bare words are ignored.
func scanFields(s string) (fields, error) {
	f := fields{}
	words := strings.Fields(s)
	group := ""
	for i := 0; i < len(words); i++ {
		k, v, isPair := strings.Cut(words[i], "=")
		switch {
		case !isPair && i+1 < len(words) && !strings.Contains(words[i+1], "="):
			v = words[i+1]
			i++
			group = ""
		case !isPair:
			group = k
			continue
		case group != "" && (k == "mean" || k == "max"):
			k = group + "_" + k
		default:
			group = ""
		}
		if k == "" {
			return nil, fmt.Errorf("field %q has no name", words[i])
		}
		if _, dup := f[k]; dup {
			return nil, fmt.Errorf("field %s appears twice", k)
		}
		f[k] = v
	}
	return f, nil
}

func (f fields) record(kind Kind) (Record, error) {
	rec := Record{Kind: kind, Rank: NoRank}
	if _, has := f["rank"]; has {
		r, err := f.int("rank", true)
		if err != nil {
			return Record{}, err
		}
		if r > math.MaxInt32 {
			return Record{}, fmt.Errorf("rank %d is too large", r)
		}
		rec.Rank = int(r)
	}
	var err error
	switch kind {
	case KindHoles:
		rec.Holes, err = f.holes()
	case KindLoad:
		rec.Load, err = f.load()
	case KindAsyncLoad:
		rec.Async, err = f.asyncLoad()
	}
	return rec, err
}

// int reads a non-negative integer field; a missing optional one is 0.
func (f fields) int(key string, required bool) (int64, error) {
	s, has := f[key]
	if !has {
		if required {
			return 0, fmt.Errorf("field %s is missing", key)
		}
		return 0, nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("field %s=%q is not a non-negative integer", key, s)
	}
	return v, nil
}

// float reads a finite non-negative number field; a missing optional one is 0.
func (f fields) float(key string, required bool) (float64, error) {
	s, has := f[key]
	if !has {
		if required {
			return 0, fmt.Errorf("field %s is missing", key)
		}
		return 0, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("field %s=%q is not a non-negative number", key, s)
	}
	return v, nil
}

// maxMS bounds millisecond fields (about 104 days), well inside what a
// time.Duration holds.
const maxMS = 9e12

// ms reads a field in milliseconds as a duration rounded to microseconds.
func (f fields) ms(key string, required bool) (time.Duration, error) {
	v, err := f.float(key, required)
	if err != nil {
		return 0, err
	}
	if v >= maxMS {
		return 0, fmt.Errorf("field %s=%q is too large", key, f[key])
	}
	return time.Duration(math.Round(v*1e3)) * time.Microsecond, nil
}

// reader collects the first error of a run of field reads.
type reader struct {
	f   fields
	err error
}

func (r *reader) int(key string, required bool) int64 {
	v, err := r.f.int(key, required)
	if r.err == nil {
		r.err = err
	}
	return v
}

func (r *reader) ms(key string, required bool) time.Duration {
	v, err := r.f.ms(key, required)
	if r.err == nil {
		r.err = err
	}
	return v
}

func (r *reader) float(key string, required bool) float64 {
	v, err := r.f.float(key, required)
	if r.err == nil {
		r.err = err
	}
	return v
}
