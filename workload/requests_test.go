package workload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/keys"
)

func readAll(t *testing.T, in string) ([]Request, []int, error) {
	t.Helper()
	var reqs []Request
	var lines []int
	err := ReadRequests(strings.NewReader(in), "r.jsonl", func(line int, r Request) error {
		reqs = append(reqs, r)
		lines = append(lines, line)
		return nil
	})
	return reqs, lines, err
}

func int64p(v int64) *int64 { return &v }

func TestReadRequests(t *testing.T) {
	in := "{\"id\": \"a\", \"tokens\": [1, 2, 3]}\n" +
		"\n   \n" +
		"{\"tokens\":[],\"cache_salt\":\"s\\u00e9\\n\",\"lora_task_id\":0,\"lora_name\":\"ad\\u00e9\",\"multimodal_hashes\":[[1,2,3,4,5,6,7,-8]]}\r\n" +
		`{"id":"c","tokens":[-9223372036854775808],"arrival_ms":12,"conversation_id":"conv","output_length":7,"lora_task_id":null,"lora_name":null,"cache_salt":null,"multimodal_hashes":null}` + "\n" +
		` { "tokens" : [ 5 ] , "id" : "\ud83d\ude00" } `
	want := []Request{
		{ID: "a", Tokens: []int64{1, 2, 3}},
		{ID: "line-4", Tokens: []int64{}, CacheSalt: "sé\n", LoRATaskID: int64p(0), LoRAName: "adé", MultimodalHashes: [][8]int32{{1, 2, 3, 4, 5, 6, 7, -8}}},
		{ID: "c", Tokens: []int64{-1 << 63}, ArrivalMS: 12, ConversationID: "conv", OutputLength: 7},
		{ID: "😀", Tokens: []int64{5}},
	}
	got, lines, err := readAll(t, in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadRequests (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{1, 4, 5, 6}, lines); diff != "" {
		t.Errorf("ReadRequests line numbers (-want +got):\n%s", diff)
	}
}

func TestReadRequestsErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"{\"tokens\":[1]}\n\n{\"tokens\":[1],\"multimodal_hashes\":[[1,2,3,4,5,6,7]]}", `reading requests from "r.jsonl": line 3: multimodal_hashes[0]: want 8 int32 values, got 7`},
		{`{"tokens":[1],"multimodal_hashes":[[1,2,3,4,5,6,7,8,9]]}`, `multimodal_hashes[0]: want 8 int32 values, got 9`},
		{`{"tokens":[1],"multimodal_hashes":[[1,2,3,4,5,6,7,8],[1,2,3,4,5,6,7,2147483648]]}`, `multimodal_hashes[1][7]: 2147483648 is outside int32`},
		{`{"tokens":[1],"multimodal_hashes":[[1,2,3,4,5,6,7,1.5]]}`, `multimodal_hashes[0][7]: 1.5 is not an integer`},
		{`{"tokens":[1],"multimodal_hashes":[1]}`, `multimodal_hashes[0]: want an array of 8 int32 values, got a number`},
		{`{"tokens":[1],"multimodal_hashes":{}}`, `multimodal_hashes: want an array of items of 8 int32 values, got an object`},
		{`{"tokens":[1, 1e20]}`, `line 1: tokens[1]: 1e20 is outside int64`},
		{`{"tokens":[1, 9223372036854775808]}`, `tokens[1]: 9223372036854775808 is outside int64`},
		{`{"tokens":[1.5]}`, `tokens[0]: 1.5 is not an integer`},
		{`{"tokens":[1,]}`, `tokens: want a token after ',', got ']'`},
		{`{"tokens":"1 2"}`, `tokens: want an array of integers, got a string`},
		{`{"tokens":null}`, `tokens: want an array of integers, got null`},
		{`{"id":"x"}`, `missing field "tokens"`},
		{`{"id":"x","tokens":[1],"prompt":"hi"}`, `unknown field "prompt"`},
		{`{"tokens":[1],"tokens":[2]}`, `field "tokens" given twice`},
		{`{"id":5,"tokens":[1]}`, `id: want a string, got a number`},
		{`{"id":true,"tokens":[1]}`, `id: want a string, got a boolean`},
		{`{"cache_salt":["a"],"tokens":[1]}`, `cache_salt: want a string, got an array`},
		{`{"lora_task_id":"7","tokens":[1]}`, `lora_task_id: want an integer, got a string`},
		{`{"lora_name":7,"tokens":[1]}`, `lora_name: want a string, got a number`},
		{`{"lora_name":"a","lora_name":"b","tokens":[1]}`, `field "lora_name" given twice`},
		{`{"lora_task_id":7.0,"tokens":[1]}`, `lora_task_id: 7.0 is not an integer`},
		{`{"lora_task_id":99999999999999999999,"tokens":[1]}`, `lora_task_id: 99999999999999999999 is outside int64`},
		{`{"arrival_ms":-1,"tokens":[1]}`, `arrival_ms: -1 is outside a non-negative int64`},
		{`{"output_length":-5,"tokens":[1]}`, `output_length: -5 is outside a non-negative int`},
		{`{"output_length":5x,"tokens":[1]}`, `output_length: want an integer, got "5x`},
		{`{"tokens":[1]} x`, `unexpected "x" after the request object`},
		{`{"tokens":[1]}}`, `unexpected "}" after the request object`},
		{`[1, 2]`, `want a JSON object, got an array`},
		{`{"tokens":[1]`, `want ',' or '}' after field "tokens", got the end of the line`},
		{`{"tokens":[1],}`, `want a field name, got "}"`},
		{`{"tokens" [1]}`, `want ':' after field "tokens", got an array`},
		{`{tokens:[1]}`, `want a field name, got "tokens:[1]}"`},
		{`{"id":"a` + "\x01" + `","tokens":[1]}`, `id: control character '\x01' in a string`},
		{`{"id":"a` + "\xff" + `","tokens":[1]}`, `id: string is not valid UTF-8`},
		{`{"id":"\ud800","tokens":[1]}`, `id: escape "\\ud800" is half a surrogate pair`},
		{`{"id":"\x","tokens":[1]}`, `id: bad escape "\\x"`},
		{`{"id":"abc`, `id: unterminated string`},
		{`{"id":nul,"tokens":[1]}`, `id: want a string, got "nul`},
		{"", `reading requests from "r.jsonl": no requests`},
		{"\n  \n", `reading requests from "r.jsonl": no requests`},
	}
	for _, tt := range tests {
		_, _, err := readAll(t, tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadRequests(%q) error = %v, want %q", tt.in, err, tt.want)
		}
	}
}

func TestReadRequestsCallbackError(t *testing.T) {
	stop := errors.New("stop")
	calls := 0
	err := ReadRequests(strings.NewReader("{\"tokens\":[]}\n{\"tokens\":[]}\n"), "r", func(int, Request) error {
		calls++
		return stop
	})
	if err != stop || calls != 1 {
		t.Errorf("ReadRequests with a failing callback = %v after %d calls, want the callback's error after 1", err, calls)
	}
}

// TestReadRequestsBatches reads many lines through readers that return
// little at a time, so lines span reads and batches.
func TestReadRequestsBatches(t *testing.T) {
	var in strings.Builder
	var want []Request
	for i := range 1200 {
		r := Request{ID: fmt.Sprint("r", i), Tokens: []int64{int64(i), int64(i * i)}}
		if i%7 == 0 {
			in.WriteString("\n")
		}
		line, _ := json.Marshal(r)
		in.Write(line)
		in.WriteString("\n")
		want = append(want, r)
	}
	for name, wrap := range map[string]func(io.Reader) io.Reader{
		"plain":    func(r io.Reader) io.Reader { return r },
		"one byte": iotest.OneByteReader,
		"half":     iotest.HalfReader,
	} {
		var got []Request
		err := ReadRequests(wrap(strings.NewReader(in.String())), "r", func(_ int, r Request) error {
			got = append(got, r)
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: ReadRequests (-want +got):\n%s", name, diff)
		}
	}
}

// TestReadRequestsStopsAtFirstBadLine checks that fn sees every line
// before the first bad one and none after, however the lines are batched.
func TestReadRequestsStopsAtFirstBadLine(t *testing.T) {
	var in strings.Builder
	for i := range 5000 {
		switch i {
		case 3000:
			in.WriteString(`{"tokens":[1.5]}` + "\n")
		case 4000:
			in.WriteString(`{"bad":1}` + "\n")
		default:
			fmt.Fprintf(&in, `{"tokens":[%d]}`+"\n", i)
		}
	}
	calls := 0
	err := ReadRequests(strings.NewReader(in.String()), "r.jsonl", func(line int, r Request) error {
		if line != calls+1 {
			t.Fatalf("call %d got line %d", calls, line)
		}
		calls++
		return nil
	})
	if calls != 3000 || err == nil || !strings.Contains(err.Error(), `"r.jsonl": line 3001: tokens[0]: 1.5 is not an integer`) {
		t.Errorf("ReadRequests = %d calls, %v; want 3000 calls and the error of line 3001", calls, err)
	}
}

func TestReadRequestsReadError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("{\"tokens\":[1]}\n{\"tokens\":[2]}\n"), iotest.ErrReader(boom))
	calls := 0
	err := ReadRequests(r, "r", func(int, Request) error { calls++; return nil })
	if calls != 2 || !errors.Is(err, boom) || !strings.Contains(err.Error(), `"r": line 3: boom`) {
		t.Errorf("ReadRequests(failing reader) = %d calls, %v", calls, err)
	}
}

func TestReadRequestsLastLineWithoutNewline(t *testing.T) {
	got, lines, err := readAll(t, "{\"tokens\":[1]}\n\n{\"id\":\"x\",\"tokens\":[2]}")
	if err != nil || len(got) != 2 || got[1].ID != "x" || lines[1] != 3 {
		t.Errorf("ReadRequests = %+v, lines %v, %v", got, lines, err)
	}
}

func TestReadRequestsLongLine(t *testing.T) {
	tokens := make([]int64, 200000) // ~1.3 MB of JSON, longer than the reader's buffer
	for i := range tokens {
		tokens[i] = int64(i)
	}
	line, _ := json.Marshal(Request{ID: "long", Tokens: tokens})
	in := string(line) + "\n" + `{"id":"next","tokens":[1]}`
	got, _, err := readAll(t, in)
	if err != nil || len(got) != 2 || !cmp.Equal(got[0].Tokens, tokens) || got[1].ID != "next" {
		t.Fatalf("ReadRequests(long line) = %d requests, %v", len(got), err)
	}
}

// TestRequestsMatchPythonReference hashes the requests of a file with
// scopes and compares every request's last block hash with what
// bench/keys_reference.py printed for it.
func TestRequestsMatchPythonReference(t *testing.T) {
	reqs, err := LoadRequests("testdata/requests-scoped.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, L := range []int{0, 2} {
		golden, err := os.ReadFile(fmt.Sprintf("testdata/requests-scoped-reference-t4-l%d.txt", L))
		if err != nil {
			t.Fatal(err)
		}
		var got strings.Builder
		for _, r := range reqs {
			seed, err := keys.Seed(keys.SchemeTRTLLM, r.Scope(), L)
			if err != nil {
				t.Fatal(err)
			}
			c, _ := keys.NewChain(seed, 4, L)
			c.Extend(r.Tokens)
			last := "-"
			if n := c.NumBlocks(); n > 0 {
				last = c.Hash(n - 1).String()
			}
			fmt.Fprintf(&got, "%s %d %s\n", r.ID, c.NumBlocks(), last)
		}
		if diff := cmp.Diff(string(golden), got.String()); diff != "" {
			t.Errorf("L=%d: chains differ from the Python reference (-python +go):\n%s", L, diff)
		}
	}
}

func TestLoadRequests(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	if err := os.WriteFile(path, []byte("{\"id\":\"x\",\"tokens\":[1,2]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := LoadRequests(path)
	if err != nil || !cmp.Equal(got, []Request{{ID: "x", Tokens: []int64{1, 2}}}) {
		t.Errorf("LoadRequests(%s) = %+v, %v", path, got, err)
	}
	if _, err := LoadRequests(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("LoadRequests(missing file) = nil error")
	}
	if err := os.WriteFile(path, []byte("{\"tokens\":[1,2]}\n{\"tokens\":5}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadRequests(path); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q: line 2: tokens:", path)) {
		t.Errorf("LoadRequests(bad line 2) error = %v", err)
	}
}

func TestRequestScope(t *testing.T) {
	r := Request{CacheSalt: "s", LoRATaskID: int64p(3), LoRAName: "a", MultimodalHashes: [][8]int32{{1}}}
	want := keys.Scope{CacheSalt: "s", LoRATaskID: int64p(3), LoRAName: "a", Multimodal: [][8]int32{{1}}}
	if diff := cmp.Diff(want, r.Scope()); diff != "" {
		t.Errorf("Scope() (-want +got):\n%s", diff)
	}
}

// FuzzReadRequests checks the parser against encoding/json: a line it
// accepts must be valid JSON that encoding/json decodes (unknown fields
// refused) to the same request, its tokens parsed into reused arrays.
func FuzzReadRequests(f *testing.F) {
	for _, s := range []string{
		`{"id":"a","tokens":[1,2,3]}`,
		`{"tokens":[],"cache_salt":"s\u00e9","lora_task_id":0,"multimodal_hashes":[[1,2,3,4,5,6,7,8]]}`,
		`{"tokens":[1],"lora_name":"adapter-A"}`,
		`{"tokens":[-1],"arrival_ms":5,"conversation_id":"c","output_length":2}`,
		`{"tokens":[1.5]}`, `{"tokens":[1],"x":1}`, `{"id":"\ud83d\ude00","tokens":[0]}`,
		`{"tokens":[1],"lora_task_id":null}`, "{\"tokens\":[1]}\n\n{\"tokens\":[2]}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var got []Request
		// tokens parsed into arrays given back once copied, read a byte
		// at a time: a line a batch, arrays reused across batches
		bufs := NewTokenBuffers()
		err := ReadRequestsInto(iotest.OneByteReader(strings.NewReader(in)), "fuzz", bufs, func(_ int, r Request) error {
			tokens := r.Tokens
			r.Tokens = slices.Clone(tokens)
			got = append(got, r)
			bufs.Give(tokens)
			return nil
		})
		if err != nil {
			// A line is named where one is wrong; an input without
			// requests has none to name.
			noRequests := err.Error() == `reading requests from "fuzz": no requests` && strings.TrimSpace(in) == ""
			if !noRequests && !strings.HasPrefix(err.Error(), `reading requests from "fuzz": line `) {
				t.Fatalf("ReadRequests(%q) error %q does not name the input and line", in, err)
			}
			return
		}
		sc := bufio.NewScanner(strings.NewReader(in))
		sc.Buffer(nil, 1<<20)
		i := 0
		for line := 1; sc.Scan(); line++ {
			text := bytes.TrimSpace(sc.Bytes())
			if len(text) == 0 {
				continue
			}
			checkAgainstEncodingJSON(t, text, line, got[i])
			i++
		}
		if i != len(got) {
			t.Fatalf("ReadRequests(%q) gave %d requests, encoding/json saw %d lines", in, len(got), i)
		}
	})
}

func checkAgainstEncodingJSON(t *testing.T, text []byte, line int, got Request) {
	t.Helper()
	var want Request
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&want); err != nil || dec.More() {
		t.Fatalf("ReadRequests accepted %q; encoding/json: %v", text, err)
	}
	if want.ID == "" {
		want.ID = fmt.Sprintf("line-%d", line)
	}
	if want.Tokens == nil {
		want.Tokens = []int64{}
	}
	if got.Tokens == nil {
		got.Tokens = []int64{}
	}
	if len(want.MultimodalHashes) == 0 && len(got.MultimodalHashes) == 0 {
		want.MultimodalHashes, got.MultimodalHashes = nil, nil
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("ReadRequests(%q) differs from encoding/json (-json +got):\n%s", text, diff)
	}
}

// BenchmarkReadRequests parses requests of 20,000 tokens each, written as
// Python's json.dumps writes them.
func BenchmarkReadRequests(b *testing.B) {
	const numRequests, numTokens = 50, 20000
	var in bytes.Buffer
	x := uint64(1)
	for i := range numRequests {
		fmt.Fprintf(&in, `{"id": "r%d", "tokens": [`, i)
		for j := range numTokens {
			if j > 0 {
				in.WriteString(", ")
			}
			x = x*6364136223846793005 + 1442695040888963407
			fmt.Fprint(&in, (x>>33)%151936)
		}
		in.WriteString("]}\n")
	}
	data := in.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		err := ReadRequests(bytes.NewReader(data), "bench", func(_ int, r Request) error {
			n += len(r.Tokens)
			return nil
		})
		if err != nil || n != numRequests*numTokens {
			b.Fatal(n, err)
		}
	}
	b.ReportMetric(float64(b.N)*numRequests*numTokens/b.Elapsed().Seconds(), "tokens/s")
}
