package connector

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// jsonError spells a failure to decode data as a JSON object, with the
// line and column where the decoder stopped when it says where.
func jsonError(data []byte, err error) error {
	var (
		se *json.SyntaxError
		te *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &se):
		line, col := lineColumn(data, se.Offset)
		return fmt.Errorf("line %d, column %d: not valid JSON: %w", line, col, err)
	case errors.As(err, &te):
		line, col := lineColumn(data, te.Offset)
		return fmt.Errorf("line %d, column %d: not a JSON object: %w", line, col, err)
	}
	return fmt.Errorf("not a JSON object: %w", err)
}

// lineColumn is the 1-based line and column of the byte before offset, the
// last one the decoder read (column counted in bytes).
func lineColumn(data []byte, offset int64) (line, col int) {
	offset = min(max(offset, 1), int64(len(data)))
	before := data[:max(offset-1, 0)]
	line = bytes.Count(before, []byte("\n")) + 1
	col = len(before) - bytes.LastIndexByte(before, '\n')
	return line, col
}
