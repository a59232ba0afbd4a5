package keys

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadTokensBadInput checks that errors about what token input says
// wrap ErrBadInput and failures to read it do not.
func TestReadTokensBadInput(t *testing.T) {
	tests := []struct {
		name   string
		in     io.Reader
		format TokensFormat
		want   bool
	}{
		{"json outside int64", strings.NewReader("[1,\n1e20]"), TokensJSON, true},
		{"text not an integer", strings.NewReader("1 2 x"), TokensText, true},
		{"json empty", strings.NewReader(""), TokensJSON, true},
		{"i64 ragged", strings.NewReader("123"), TokensI64, true},
		{"read fails", iotest.ErrReader(errors.New("disk on fire")), TokensAuto, false},
	}
	for _, tt := range tests {
		_, err := ReadTokens(tt.in, "p", tt.format)
		if err == nil {
			t.Errorf("ReadTokens(%s) = nil error, want one", tt.name)
			continue
		}
		if got := errors.Is(err, ErrBadInput); got != tt.want {
			t.Errorf("ReadTokens(%s) = %v, errors.Is ErrBadInput %v, want %v", tt.name, err, got, tt.want)
		}
	}
	if _, _, err := AppendJSONTokens(nil, []byte("[1, x]")); !errors.Is(err, ErrBadInput) {
		t.Errorf("AppendJSONTokens([1, x]) = %v, want an error wrapping ErrBadInput", err)
	}
}
