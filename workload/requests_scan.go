package workload

import (
	"bytes"
	"errors"
	"fmt"
	"math"

	"github.com/kvctl/kvctl/keys"
)

// The fields of a request line, in the order of requestFields.
const (
	fieldID = iota
	fieldTokens
	fieldCacheSalt
	fieldLoRATaskID
	fieldMultimodal
	fieldArrivalMS
	fieldConversationID
	fieldOutputLength
	fieldLoRAName
)

var requestFields = [...]string{
	"id", "tokens", "cache_salt", "lora_task_id", "multimodal_hashes",
	"arrival_ms", "conversation_id", "output_length", "lora_name",
}

// requestParser is a strict JSON parser for one request line. It reads
// the tokens array without building any intermediate value, which is
// where nearly all the bytes of a requests file are.
type requestParser struct {
	data   []byte
	i      int
	buf    []byte        // scratch for strings with escapes
	tokens *TokenBuffers // where token arrays come from (nil: new ones)
}

func (p *requestParser) parse(line []byte) (Request, error) {
	p.data, p.i = line, 0
	var req Request
	p.space()
	if !p.at('{') {
		return req, fmt.Errorf("want a JSON object, got %s", p.kind())
	}
	p.i++
	p.space()
	var seen [len(requestFields)]bool
	if p.at('}') {
		p.i++
	} else if err := p.fields(&req, &seen); err != nil {
		return req, err
	}
	p.space()
	if p.i < len(p.data) {
		return req, fmt.Errorf("unexpected %s after the request object", p.literal())
	}
	if !seen[fieldTokens] {
		return req, errors.New(`missing field "tokens"`)
	}
	return req, nil
}

// fields reads "name": value pairs up to and including the closing '}'.
func (p *requestParser) fields(req *Request, seen *[len(requestFields)]bool) error {
	for {
		p.space()
		if !p.at('"') {
			return fmt.Errorf("want a field name, got %s", p.kind())
		}
		name, err := p.rawString()
		if err != nil {
			return fmt.Errorf("field name: %w", err)
		}
		f := fieldIndex(name)
		if f < 0 {
			return fmt.Errorf("unknown field %q (want %s)", name, fieldList())
		}
		if seen[f] {
			return fmt.Errorf("field %q given twice", name)
		}
		seen[f] = true
		p.space()
		if !p.at(':') {
			return fmt.Errorf("want ':' after field %q, got %s", name, p.kind())
		}
		p.i++
		p.space()
		if err := p.field(f, req); err != nil {
			return err
		}
		p.space()
		switch {
		case p.at(','):
			p.i++
		case p.at('}'):
			p.i++
			return nil
		default:
			return fmt.Errorf("want ',' or '}' after field %q, got %s", name, p.kind())
		}
	}
}

func fieldIndex(name []byte) int {
	for i, f := range requestFields {
		if string(name) == f {
			return i
		}
	}
	return -1
}

func fieldList() string {
	var b bytes.Buffer
	for i, f := range requestFields {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f)
	}
	return b.String()
}

// field reads the value of field f into req.
func (p *requestParser) field(f int, req *Request) error {
	name := requestFields[f]
	var err error
	switch f {
	case fieldID:
		req.ID, err = p.optString(name)
	case fieldCacheSalt:
		req.CacheSalt, err = p.optString(name)
	case fieldLoRAName:
		req.LoRAName, err = p.optString(name)
	case fieldConversationID:
		req.ConversationID, err = p.optString(name)
	case fieldTokens:
		req.Tokens, err = p.tokenArray()
	case fieldLoRATaskID:
		if !p.null() {
			var v int64
			v, err = p.integer(name, math.MinInt64, math.MaxInt64, "int64")
			req.LoRATaskID = &v
		}
	case fieldMultimodal:
		req.MultimodalHashes, err = p.multimodal()
	case fieldArrivalMS:
		if !p.null() {
			req.ArrivalMS, err = p.integer(name, 0, math.MaxInt64, "a non-negative int64")
		}
	case fieldOutputLength:
		if !p.null() {
			var v int64
			v, err = p.integer(name, 0, math.MaxInt, "a non-negative int")
			req.OutputLength = int(v)
		}
	}
	return err
}

func (p *requestParser) tokenArray() ([]int64, error) {
	if !p.at('[') {
		return nil, fmt.Errorf("tokens: want an array of integers, got %s", p.kind())
	}
	// Every token but the last is followed by a comma: room for them all.
	rest := p.data[p.i:]
	tokens, n, err := keys.AppendJSONTokens(p.tokens.take(bytes.Count(rest, []byte{','})+1), rest)
	if err != nil {
		var te *keys.TokenError
		if errors.As(err, &te) && te.Literal != "" {
			return nil, fmt.Errorf("tokens[%d]: %s %s", te.Index, te.Literal, te.Problem)
		}
		return nil, fmt.Errorf("tokens: %w", err)
	}
	p.i += n
	return tokens, nil
}

// multimodal reads an array of items of 8 int32 values, or null.
func (p *requestParser) multimodal() ([][8]int32, error) {
	const name = "multimodal_hashes"
	if p.null() {
		return nil, nil
	}
	if !p.at('[') {
		return nil, fmt.Errorf("%s: want an array of items of 8 int32 values, got %s", name, p.kind())
	}
	p.i++
	var items [][8]int32
	p.space()
	if p.at(']') {
		p.i++
		return items, nil
	}
	for k := 0; ; k++ {
		p.space()
		item, err := p.int32x8(fmt.Sprintf("%s[%d]", name, k))
		if err != nil {
			return nil, err
		}
		items = append(items, item)
		p.space()
		switch {
		case p.at(','):
			p.i++
		case p.at(']'):
			p.i++
			return items, nil
		default:
			return nil, fmt.Errorf("%s: want ',' or ']' after item %d, got %s", name, k, p.kind())
		}
	}
}

// int32x8 reads one multimodal item: an array of exactly 8 int32 values.
func (p *requestParser) int32x8(name string) ([8]int32, error) {
	var item [8]int32
	if !p.at('[') {
		return item, fmt.Errorf("%s: want an array of 8 int32 values, got %s", name, p.kind())
	}
	p.i++
	p.space()
	n := 0
	for !p.at(']') {
		if n > 0 {
			if !p.at(',') {
				return item, fmt.Errorf("%s: want ',' or ']' after value %d, got %s", name, n-1, p.kind())
			}
			p.i++
			p.space()
		}
		v, err := p.integer(fmt.Sprintf("%s[%d]", name, n), math.MinInt32, math.MaxInt32, "int32")
		if err != nil {
			return item, err
		}
		if n < len(item) {
			item[n] = int32(v)
		}
		n++
		p.space()
	}
	p.i++
	if n != len(item) {
		return item, fmt.Errorf("%s: want 8 int32 values, got %d", name, n)
	}
	return item, nil
}
