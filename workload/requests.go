package workload

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"

	"github.com/kvctl/kvctl/internal/hugepages"
	"github.com/kvctl/kvctl/internal/ordered"
	"github.com/kvctl/kvctl/keys"
)

// Request is one line of a kvctl requests file (JSONL): a prompt's token
// ids and what scopes its keys, with optional replay timing.
type Request struct {
	// ID names the request; a line without one gets "line-N", N being its
	// line number in the file.
	ID string `json:"id"`
	// Tokens are the prompt token ids (required; may be empty).
	Tokens []int64 `json:"tokens"`
	// CacheSalt, LoRATaskID, LoRAName and MultimodalHashes scope the keys
	// (keys.Scope): TensorRT-LLM keys a LoRA adapter by its task id, vLLM
	// and Dynamo by its name.
	CacheSalt        string     `json:"cache_salt,omitempty"`
	LoRATaskID       *int64     `json:"lora_task_id,omitempty"`
	LoRAName         string     `json:"lora_name,omitempty"`
	MultimodalHashes [][8]int32 `json:"multimodal_hashes,omitempty"`
	// ArrivalMS is the arrival time in milliseconds from the start (>= 0).
	ArrivalMS int64 `json:"arrival_ms,omitempty"`
	// ConversationID groups the turns of one conversation.
	ConversationID string `json:"conversation_id,omitempty"`
	// OutputLength is the number of tokens to generate (>= 0).
	OutputLength int `json:"output_length,omitempty"`
}

// Scope returns what scopes the request's keys.
func (r Request) Scope() keys.Scope {
	return keys.Scope{CacheSalt: r.CacheSalt, LoRATaskID: r.LoRATaskID, LoRAName: r.LoRAName, Multimodal: r.MultimodalHashes}
}

// ReadRequests reads a requests file, one JSON object a line, and calls fn
// with each request and its line number, in file order. Blank lines are
// skipped. Each line is checked strictly: it must be one valid JSON
// object; unknown fields, fields given twice, mistyped values, tokens
// outside int64 and multimodal values outside int32 are errors naming the
// input and the line:
//
//	reading requests from "r.jsonl": line 3: multimodal_hashes[0]: want 8 int32 values, got 7
//
// Errors about the content wrap ErrBadInput, as does a file with no
// requests (empty, or blank lines only). null stands for an absent
// optional field. Lines are parsed on several
// goroutines, ahead of fn, but fn is called from the caller's goroutine,
// one request at a time, and never for a line after a bad one. An error
// returned by fn stops the reading and is returned as it is.
func ReadRequests(r io.Reader, name string, fn func(line int, req Request) error) error {
	return ReadRequestsInto(r, name, nil, fn)
}

// ReadRequestsInto is ReadRequests with each request's tokens parsed into
// an array of tokens, which fn's caller may give back once done with it
// (TokenBuffers.Give); nil tokens is ReadRequests.
func ReadRequestsInto(r io.Reader, name string, tokens *TokenBuffers, fn func(line int, req Request) error) error {
	workers := min(runtime.GOMAXPROCS(0), 8)
	split := lineSplitter{r: r, free: make(chan []byte, 2*workers+2)}
	parse := func(b *requestBatch) {
		b.parse(tokens)
		split.recycle(b)
	}
	// line numbers the next batch's first line: batches are numbered as
	// they are delivered, in order, from the lines their workers counted.
	requests, line := 0, 1
	deliver := func(b *requestBatch) error {
		err := b.deliver(name, line, func(line int, req Request) error {
			requests++
			return fn(line, req)
		})
		line += b.count
		return err
	}
	p := ordered.Start(context.Background(), workers, 2*workers, parse, deliver)
	defer p.Stop()
	for {
		b, readErr := split.next()
		if b == nil {
			if err := p.Finish(); err != nil {
				return err
			}
			if readErr != nil && readErr != io.EOF {
				return fmt.Errorf("reading requests from %q: line %d: %w", name, line, readErr)
			}
			if requests == 0 {
				return badInput(fmt.Errorf("reading requests from %q: no requests", name))
			}
			return nil
		}
		if err := p.Submit(b); err != nil {
			return err
		}
	}
}

// readBlock is how much input a batch of lines is read in at a time.
const readBlock = 1 << 20

// lineSplitter cuts its input into batches of whole lines.
type lineSplitter struct {
	r     io.Reader
	carry []byte // the start of a line the last batch did not finish
	err   error
	free  chan []byte // read buffers the workers are done with
	// slab is where new read buffers come from: allocations on huge
	// pages, each read into soon after it is made.
	slab hugepages.Slab[byte]
}

// buffer returns an empty read buffer with room for at least n bytes.
func (s *lineSplitter) buffer(n int) []byte {
	select {
	case b := <-s.free:
		if cap(b) >= n {
			return b[:0]
		}
	default:
	}
	return s.slab.Take(max(readBlock, 2*n))
}

// recycle offers a parsed batch's buffer for the next reads. The buffer
// may still hold the splitter's carry: next copies the carry to the start
// of the buffer it takes before reading into it.
func (s *lineSplitter) recycle(b *requestBatch) {
	select {
	case s.free <- b.buf:
	default:
	}
	b.buf = nil
}

// next returns the next batch of whole lines, or nil and the reason there
// is none (io.EOF at the end).
func (s *lineSplitter) next() (*requestBatch, error) {
	buf := append(s.buffer(len(s.carry)), s.carry...) // copy may overlap: the carry's buffer can come back
	for s.err == nil {
		n, err := s.r.Read(buf[len(buf):cap(buf)])
		buf, s.err = buf[:len(buf)+n], err
		if end := bytes.LastIndexByte(buf, '\n'); end >= 0 {
			s.carry = buf[end+1:]
			return s.batch(buf, end+1), nil
		}
		if len(buf) == cap(buf) { // one line longer than the buffer
			buf = append(buf, 0)[:len(buf)]
		}
	}
	s.carry = nil
	if len(buf) > 0 {
		return s.batch(buf, len(buf)), nil
	}
	return nil, s.err
}

// batch makes a batch of the first n bytes of buf, whole lines.
func (s *lineSplitter) batch(buf []byte, n int) *requestBatch {
	return &requestBatch{data: buf[:n], buf: buf}
}

// requestBatch is a run of whole lines, parsed by a worker. Its lines
// are numbered from 0 until it is delivered, when the lines of the
// batches before it are known: the worker counts them as it splits them,
// so the input is scanned for line ends once.
type requestBatch struct {
	data  []byte
	buf   []byte // the read buffer data is in
	count int    // the line ends in data
	reqs  []Request
	lines []int // the line of each of reqs in the batch, from 0
	// err is the first bad line's error, at line errLine of the batch;
	// reqs holds the lines before it.
	err     error
	errLine int
}

func (b *requestBatch) parse(tokens *TokenBuffers) {
	p := requestParser{tokens: tokens}
	data, line := b.data, 0
	for ; len(data) > 0; line++ {
		text := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			text, data = data[:i], data[i+1:]
			b.count++
		} else {
			data = nil
		}
		text = bytes.TrimSuffix(text, []byte{'\r'})
		if isBlank(text) {
			continue
		}
		req, err := p.parse(text)
		if err != nil {
			b.err, b.errLine = err, line
			break
		}
		b.reqs = append(b.reqs, req)
		b.lines = append(b.lines, line)
	}
	b.data = nil
}

// deliver calls fn with the batch's requests, their lines numbered from
// first, then returns the batch's error, naming the input and the line.
func (b *requestBatch) deliver(name string, first int, fn func(line int, req Request) error) error {
	for i, req := range b.reqs {
		line := first + b.lines[i]
		if req.ID == "" {
			req.ID = "line-" + strconv.Itoa(line)
		}
		if err := fn(line, req); err != nil {
			return err
		}
	}
	if b.err != nil {
		return badInput(fmt.Errorf("reading requests from %q: line %d: %w", name, first+b.errLine, b.err))
	}
	return nil
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// LoadRequests reads a whole requests file; path "-" reads standard input.
func LoadRequests(path string) ([]Request, error) {
	var r io.Reader = os.Stdin
	name := "stdin"
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("reading requests: %w", err)
		}
		defer f.Close()
		r, name = f, path
	}
	var reqs []Request
	err := ReadRequests(r, name, func(_ int, req Request) error {
		reqs = append(reqs, req)
		return nil
	})
	return slices.Clip(reqs), err
}
