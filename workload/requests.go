package workload

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

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
	// CacheSalt, LoRATaskID and MultimodalHashes scope the keys (keys.Scope).
	CacheSalt        string     `json:"cache_salt,omitempty"`
	LoRATaskID       *int64     `json:"lora_task_id,omitempty"`
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
	return keys.Scope{CacheSalt: r.CacheSalt, LoRATaskID: r.LoRATaskID, Multimodal: r.MultimodalHashes}
}

// ReadRequests reads a requests file, one JSON object a line, and calls fn
// with each request and its line number, in order, as it is read. Blank
// lines are skipped. Each line is checked strictly: it must be one valid
// JSON object; unknown fields, fields given twice, mistyped values, tokens
// outside int64 and multimodal values outside int32 are errors naming the
// input and the line:
//
//	reading requests from "r.jsonl": line 3: multimodal_hashes[0]: want 8 int32 values, got 7
//
// null stands for an absent optional field. An error returned by fn stops
// the reading and is returned as it is.
func ReadRequests(r io.Reader, name string, fn func(line int, req Request) error) error {
	br := bufio.NewReaderSize(r, 1<<20)
	var p requestParser
	var long []byte
	for line := 1; ; line++ {
		text, err := readLine(br, &long)
		if len(text) > 0 && !isBlank(text) {
			req, perr := p.parse(text)
			if perr != nil {
				return fmt.Errorf("reading requests from %q: line %d: %w", name, line, perr)
			}
			if req.ID == "" {
				req.ID = "line-" + strconv.Itoa(line)
			}
			if ferr := fn(line, req); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading requests from %q: line %d: %w", name, line, err)
		}
	}
}

// readLine returns the next line without its end, using long for lines
// longer than the reader's buffer. The line is valid until the next call.
func readLine(br *bufio.Reader, long *[]byte) ([]byte, error) {
	text, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		*long = append((*long)[:0], text...)
		for errors.Is(err, bufio.ErrBufferFull) {
			text, err = br.ReadSlice('\n')
			*long = append(*long, text...)
		}
		text = *long
	}
	text = bytes.TrimSuffix(text, []byte{'\n'})
	return bytes.TrimSuffix(text, []byte{'\r'}), err
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
