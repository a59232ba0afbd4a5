package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kvctl/kvctl/holes"
	"github.com/kvctl/kvctl/transfer"
)

// Kind is what an input holds.
type Kind string

// The kinds of input a report reads.
const (
	HolesProbe      Kind = "holes probe"
	HolesSimulation Kind = "holes simulation"
	HolesSweep      Kind = "holes capacity sweep"
	BenchRuns       Kind = "bench"
	Serve           Kind = "serve replay"
	ServeSweep      Kind = "serve pool-size sweep"
)

// Input is one kvctl -o json output, read.
type Input struct {
	// Name names the input (its file name) in the page and in errors.
	Name   string
	Header Header
	Kind   Kind

	probe *holes.Report
	sweep *holesSweep
	sim   *holes.Run
	bench []transfer.BenchResult
	serve *serveReport
	pools *serveSweep
}

// holesSweep is the JSON of holes --simulate --sweep.
type holesSweep struct {
	Runs       []holes.Run `json:"runs"`
	IdealReuse *float64    `json:"ideal_reuse"`
}

// Read reads one output named name: an object with a "kvctl" header that
// names a command a report draws (holes, bench load|save, serve) in a
// format no newer than CurrentFormat. Errors name the input and say what
// it holds.
func Read(name string, data []byte) (Input, error) {
	var fields map[string]json.RawMessage
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '[' {
		return Input{}, fmt.Errorf("%s: not a kvctl -o json output of holes, bench or serve: it holds a JSON array, not an object", name)
	}
	if err := json.Unmarshal(data, &fields); err != nil {
		return Input{}, fmt.Errorf("%s: not a kvctl -o json output: %w", name, err)
	}
	raw, ok := fields[HeaderField]
	if !ok {
		return Input{}, fmt.Errorf("%s: not a kvctl -o json output of holes, bench or serve: no %q header object (it holds an object with %s)",
			name, HeaderField, fieldList(fields))
	}
	in := Input{Name: name}
	if err := json.Unmarshal(raw, &in.Header); err != nil || in.Header.Command == "" {
		return Input{}, fmt.Errorf("%s: the %q header is not kvctl's: %s", name, HeaderField, raw)
	}
	h := in.Header
	if h.Format > CurrentFormat || h.Format < 1 {
		return Input{}, fmt.Errorf("%s: written by kvctl %s (%s) in output format %d; this kvctl reads formats 1 to %d",
			name, h.Version, h.Command, h.Format, CurrentFormat)
	}
	if err := in.decode(fields, data); err != nil {
		return Input{}, fmt.Errorf("%s: output of kvctl %s %s: %w", name, h.Version, h.Command, err)
	}
	return in, nil
}

// decode decodes data by the command that wrote it and its shape.
func (in *Input) decode(fields map[string]json.RawMessage, data []byte) error {
	_, runs := fields["runs"]
	_, capacity := fields["capacity_bytes"]
	switch cmd := in.Header.Command; {
	case cmd == "holes" && runs:
		in.Kind, in.sweep = HolesSweep, &holesSweep{}
		return decodeInto(data, in.sweep)
	case cmd == "holes" && capacity:
		in.Kind, in.sim = HolesSimulation, &holes.Run{}
		return decodeInto(data, in.sim)
	case cmd == "holes":
		in.Kind, in.probe = HolesProbe, &holes.Report{}
		return decodeInto(data, in.probe)
	case cmd == "bench load" || cmd == "bench save":
		in.Kind = BenchRuns
		return in.decodeBench(data, runs)
	case cmd == "serve" && runs:
		in.Kind, in.pools = ServeSweep, &serveSweep{}
		if err := decodeInto(data, in.pools); err != nil {
			return err
		}
		return in.pools.validate()
	case cmd == "serve":
		in.Kind, in.serve = Serve, &serveReport{}
		if err := decodeInto(data, in.serve); err != nil {
			return err
		}
		return in.serve.validate()
	default:
		return fmt.Errorf("a report draws the outputs of holes, bench load|save and serve, not of %s", cmd)
	}
}

// decodeBench decodes one bench run or a sweep's runs.
func (in *Input) decodeBench(data []byte, sweep bool) error {
	if sweep {
		var s struct {
			Runs []transfer.BenchResult `json:"runs"`
		}
		err := decodeInto(data, &s)
		in.bench = s.Runs
		return err
	}
	var r transfer.BenchResult
	err := decodeInto(data, &r)
	in.bench = []transfer.BenchResult{r}
	return err
}

func decodeInto(data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("decoding: %w", err)
	}
	return nil
}

// fieldList spells an object's field names for an error.
func fieldList(fields map[string]json.RawMessage) string {
	if len(fields) == 0 {
		return "no fields"
	}
	names := slices.Sorted(maps.Keys(fields))
	if len(names) > 6 {
		names = append(names[:6], "...")
	}
	return "fields " + strings.Join(names, ", ")
}
