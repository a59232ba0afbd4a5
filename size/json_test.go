package size

import (
	"encoding/json"
	"testing"
)

func TestParseJSON(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr bool
	}{
		{`4294967296`, 4294967296, false},
		{`"3.125GiB"`, 3355443200, false},
		{`"64MiB"`, 64 << 20, false},
		{`"4096"`, 4096, false},
		{`1e3`, 1000, false},
		{`0`, 0, false},
		{`1.5`, 0, true},
		{`-1`, 0, true},
		{`"3GB"`, 0, true},
		{`"-1KiB"`, 0, true},
		{`true`, 0, true},
		{`{}`, 0, true},
		{`1e300`, 0, true},
	}
	for _, tt := range tests {
		got, err := ParseJSON(json.RawMessage(tt.in))
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("ParseJSON(%s) = %d, %v; want %d, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}
