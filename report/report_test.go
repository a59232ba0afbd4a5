package report

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtures are the chart package's outputs of every kind, by file, and
// the kind each is read as.
var fixtures = []struct {
	file string
	kind Kind
}{
	{"holes_sweep.json", HolesSweep},
	{"holes_probe.json", HolesProbe},
	{"holes_simulation.json", HolesSimulation},
	{"bench_sweep.json", BenchRuns},
	{"bench_run.json", BenchRuns},
	{"serve.json", Serve},
	{"serve_sweep.json", ServeSweep},
}

// readAll reads every fixture.
func readAll(t *testing.T) []Input {
	t.Helper()
	var ins []Input
	for _, f := range fixtures {
		b, err := os.ReadFile(filepath.Join("..", "chart", "testdata", f.file))
		if err != nil {
			t.Fatal(err)
		}
		in, err := Read(f.file, b)
		if err != nil {
			t.Fatalf("Read(%s) = %v", f.file, err)
		}
		if in.Kind != f.kind || in.Header.Command == "" || in.Header.Version == "" {
			t.Errorf("Read(%s) = kind %q, header %+v; want kind %q and a header", f.file, in.Kind, in.Header, f.kind)
		}
		ins = append(ins, in)
	}
	return ins
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		file string
		want string
	}{
		{"array.json", "array.json: not a kvctl -o json output of holes, bench or serve: it holds a JSON array, not an object"},
		{"no_header.json", `no_header.json: not a kvctl -o json output of holes, bench or serve: no "kvctl" header object (it holds an object with fields pool, probe, requests, summary)`},
		{"pool_stat.json", "pool_stat.json: output of kvctl v0.1.0 pool stat: a report draws the outputs of holes, bench load|save and serve, not of pool stat"},
		{"bad_serve_sweep.json", "bad_serve_sweep.json: output of kvctl v0.1.0 serve: run 0: hit rate 1.4, want 0 to 1"},
		{"newer.json", "newer.json: written by kvctl v9.0.0 (holes) in output format 7; this kvctl reads formats 1 to 1"},
		{"odd_header.json", `odd_header.json: the "kvctl" header is not kvctl's: "yes"`},
		{"bad_timeline.json", "bad_timeline.json: output of kvctl v0.1.0 serve: timeline sample 1: at 1000 ms, want 2000 to 1e+12"},
		{"bad_histogram.json", "bad_histogram.json: output of kvctl v0.1.0 serve: ttft_histogram: bad latency histogram: 10 buckets per decade, want 100"},
	}
	for _, tt := range tests {
		b, err := os.ReadFile(filepath.Join("testdata", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Read(tt.file, b)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Read(%s) = %v, want error %q", tt.file, err, tt.want)
		}
	}
}

func TestWrite(t *testing.T) {
	var page bytes.Buffer
	if err := Write(&page, readAll(t), "v0.test"); err != nil {
		t.Fatalf("Write() = %v", err)
	}
	if dir := os.Getenv("KVCTL_REPORT_KEEP"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, "report.html"), page.Bytes(), 0o644)
	}
	html := page.String()
	for _, want := range []string{"Written by kvctl v0.test from 7 inputs", "made by <code>kvctl holes</code>, kvctl devel",
		"<code>kvctl bench load</code>", "<code>kvctl bench save</code>", "<code>kvctl serve</code>",
		"holes_probe.json: holes probe", "ideal reuse: 44.3%"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, banned := range []string{"<script", "<link", "src=\"http", "href=\"http", "url(http", "@import"} {
		if strings.Contains(html, banned) {
			t.Errorf("the page holds %q: it must load nothing from elsewhere", banned)
		}
	}
	svgs := inlineSVGs(t, html)
	// sweep; probe's map; simulation's map; bench sweep; bench run's
	// phases; serve's timeline, CDFs and phases in one; serve's
	// pool-size sweep.
	if len(svgs) != 7 {
		t.Errorf("the page has %d figures, want 7", len(svgs))
	}
	for i, svg := range svgs {
		if err := wellFormed(svg); err != nil {
			t.Errorf("figure %d is not well-formed XML: %v", i, err)
		}
	}
}

// inlineSVGs are the <svg> elements of a page.
func inlineSVGs(t *testing.T, html string) []string {
	t.Helper()
	var out []string
	for rest := html; ; {
		i := strings.Index(rest, "<svg")
		if i < 0 {
			return out
		}
		j := strings.Index(rest[i:], "</svg>")
		if j < 0 {
			t.Fatal("an <svg> is not closed")
		}
		out = append(out, rest[i:i+j+len("</svg>")])
		rest = rest[i+j:]
	}
}

// wellFormed parses a document through with encoding/xml.
func wellFormed(doc string) error {
	d := xml.NewDecoder(strings.NewReader(doc))
	for {
		if _, err := d.Token(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}
