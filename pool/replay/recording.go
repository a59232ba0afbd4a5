package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"
)

// Recording is one recorded scenario: the master's flags, the pool's one
// segment, the operations and, when recorded on a real master, each run's
// outcome.
type Recording struct {
	Scenario      string                     `json:"scenario"`
	WhatItShows   string                     `json:"what_it_shows,omitempty"`
	MasterVersion string                     `json:"master_version,omitempty"`
	Recorded      string                     `json:"recorded,omitempty"`
	MasterFlags   map[string]json.RawMessage `json:"master_flags"`
	SegmentBytes  int64                      `json:"segment_bytes"`
	ValueBytes    int64                      `json:"value_bytes,omitempty"`
	KeyShard      map[string]int             `json:"key_shard,omitempty"`
	Ops           []Op                       `json:"ops"`
	Runs          []Outcome                  `json:"runs,omitempty"`
}

// Op is one operation of the log. Which fields an op uses depends on Op:
// put (Keys, Bytes, SoftPin, Group), exist and get (Keys), remove (Keys,
// Force), sleep (MS) and snapshot (Label).
type Op struct {
	Op      string   `json:"op"`
	Keys    []string `json:"keys,omitempty"`
	Bytes   int64    `json:"bytes,omitempty"`
	SoftPin bool     `json:"soft_pin,omitempty"`
	Group   string   `json:"group,omitempty"`
	Force   bool     `json:"force,omitempty"`
	MS      int64    `json:"ms,omitempty"`
	Label   string   `json:"label,omitempty"`
}

// Outcome is what one run left: the keys present after the last op, the
// keys evicted (put with rc 0, never removed with rc 0, absent at the
// end), the failed puts, each op's per-key codes (nil for ops without
// them) and the snapshots' key sets.
type Outcome struct {
	PresentAfter []string            `json:"present_after"`
	Evicted      []string            `json:"evicted"`
	PutFailures  []PutFailure        `json:"put_failures"`
	OpRC         []map[string]int    `json:"op_rc,omitempty"`
	Snapshots    map[string][]string `json:"snapshots,omitempty"`
	Metrics      map[string]float64  `json:"metrics,omitempty"`
}

// PutFailure is a put that did not return 0.
type PutFailure struct {
	Key string `json:"key"`
	RC  int    `json:"rc"`
}

// Flags is the master behaviour a recording's master_flags set, the
// master's defaults where they set nothing.
type Flags struct {
	LeaseTTL       time.Duration // default_kv_lease_ttl (ms)
	SoftPinTTL     time.Duration // default_kv_soft_pin_ttl (ms)
	EvictionRatio  float64       // eviction_ratio
	HighWatermark  float64       // eviction_high_watermark_ratio
	KeepSoftPinned bool          // allow_evict_soft_pinned_objects=false
}

// Load reads and parses the recording at path.
func Load(path string) (*Recording, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading recording: %w", err)
	}
	rec, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rec, nil
}

// ErrBadRecording is wrapped by every error Parse returns.
var ErrBadRecording = errors.New("bad recording")

// Parse decodes a recording strictly: unknown fields, a missing or
// invalid field, an unknown op or master flag are errors naming the op's
// index and the field.
func Parse(b []byte) (*Recording, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var rec Recording
	if err := dec.Decode(&rec); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadRecording, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: data after the recording's object", ErrBadRecording)
	}
	if err := rec.validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadRecording, err)
	}
	return &rec, nil
}

// MaxSegmentBytes and MaxSleep bound what a recording may ask of a
// replay, so that no file can exhaust memory (the replayed pool holds every
// byte of its segment that is written) or run for hours (the clock ticks
// the eviction step every EvictionInterval of the sleeps).
const (
	MaxSegmentBytes = 16 << 30
	MaxSleep        = 24 * time.Hour
)

func (rec *Recording) validate() error {
	if rec.SegmentBytes <= 0 || rec.SegmentBytes > MaxSegmentBytes {
		return fmt.Errorf("segment_bytes %d is not in 1..%d (16 GiB)", rec.SegmentBytes, int64(MaxSegmentBytes))
	}
	if len(rec.Ops) == 0 {
		return errors.New("ops: empty")
	}
	var slept int64 // ms
	for i, op := range rec.Ops {
		if slept += op.MS; op.MS > int64(MaxSleep/time.Millisecond) || slept > int64(MaxSleep/time.Millisecond) {
			return fmt.Errorf("op %d (%s): field ms: the sleeps add up to more than %v", i, op.Op, MaxSleep)
		}
	}
	if _, err := rec.Flags(); err != nil {
		return err
	}
	for i, op := range rec.Ops {
		if err := op.validate(); err != nil {
			return fmt.Errorf("op %d (%s): %v", i, op.Op, err)
		}
	}
	for i, r := range rec.Runs {
		if r.OpRC != nil && len(r.OpRC) != len(rec.Ops) {
			return fmt.Errorf("run %d: op_rc has %d entries for %d ops", i, len(r.OpRC), len(rec.Ops))
		}
	}
	return nil
}

// opFields says which fields each op may set.
var opFields = map[string]struct{ keys, bytes, softPin, group, force, ms, label bool }{
	"put":      {keys: true, bytes: true, softPin: true, group: true},
	"exist":    {keys: true},
	"get":      {keys: true},
	"remove":   {keys: true, force: true},
	"sleep":    {ms: true},
	"snapshot": {label: true},
}

func (op Op) validate() error {
	f, ok := opFields[op.Op]
	switch {
	case !ok:
		return fmt.Errorf("field op: unknown op %q (want put, exist, get, remove, sleep or snapshot)", op.Op)
	case f.keys && len(op.Keys) == 0:
		return errors.New("field keys: empty")
	case !f.keys && op.Keys != nil:
		return errors.New("field keys: not an argument of this op")
	case f.bytes && op.Bytes <= 0:
		return fmt.Errorf("field bytes: %d is not positive", op.Bytes)
	case !f.bytes && op.Bytes != 0, !f.softPin && op.SoftPin, !f.group && op.Group != "",
		!f.force && op.Force, !f.label && op.Label != "":
		return errors.New("a field that is not an argument of this op is set")
	case f.ms && op.MS <= 0:
		return fmt.Errorf("field ms: %d is not positive", op.MS)
	case !f.ms && op.MS != 0:
		return errors.New("field ms: not an argument of this op")
	case f.label && op.Label == "":
		return errors.New("field label: empty")
	}
	for j, k := range op.Keys {
		if k == "" {
			return fmt.Errorf("field keys[%d]: empty key", j)
		}
	}
	return nil
}

// Flags reads master_flags: default_kv_lease_ttl and
// default_kv_soft_pin_ttl (ms), eviction_ratio,
// eviction_high_watermark_ratio and allow_evict_soft_pinned_objects, given
// as JSON numbers, booleans or strings; any other flag is an error.
func (rec *Recording) Flags() (Flags, error) {
	f := Flags{LeaseTTL: 10 * time.Second, SoftPinTTL: 30 * time.Minute, EvictionRatio: 0.05, HighWatermark: 0.9}
	for name, raw := range rec.MasterFlags {
		v, err := flagValue(raw)
		if err != nil {
			return Flags{}, fmt.Errorf("master_flags.%s: %v", name, err)
		}
		if err := f.set(name, v); err != nil {
			return Flags{}, fmt.Errorf("master_flags.%s=%s: %v", name, v, err)
		}
	}
	return f, nil
}

func flagValue(raw json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", err
	}
	switch v.(type) {
	case float64, bool:
		return string(raw), nil
	}
	return "", fmt.Errorf("%s is not a number, boolean or string", raw)
}

func (f *Flags) set(name, v string) error {
	switch name {
	case "default_kv_lease_ttl", "default_kv_soft_pin_ttl":
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ms <= 0 || ms > 1<<40 {
			return errors.New("not a positive number of milliseconds")
		}
		if name == "default_kv_lease_ttl" {
			f.LeaseTTL = time.Duration(ms) * time.Millisecond
		} else {
			f.SoftPinTTL = time.Duration(ms) * time.Millisecond
		}
	case "eviction_ratio", "eviction_high_watermark_ratio":
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || !(x >= 0 && x <= 1) {
			return errors.New("not a number in [0, 1]")
		}
		if name == "eviction_ratio" {
			f.EvictionRatio = x
		} else {
			f.HighWatermark = x
		}
	case "allow_evict_soft_pinned_objects":
		b, err := strconv.ParseBool(v)
		if err != nil {
			return errors.New("not true or false")
		}
		f.KeepSoftPinned = !b
	default:
		return errors.New("unknown flag (known: default_kv_lease_ttl, default_kv_soft_pin_ttl, eviction_ratio, eviction_high_watermark_ratio, allow_evict_soft_pinned_objects)")
	}
	return nil
}
