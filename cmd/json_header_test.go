package cmd

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/report"
)

func TestWriteHeadedJSON(t *testing.T) {
	type out struct {
		Name string `json:"name"`
		N    int    `json:"n"`
	}
	tests := []struct {
		name string
		v    any
		want map[string]any
	}{
		{"fields kept", out{Name: "a<b>", N: 2}, map[string]any{"name": "a<b>", "n": 2.0}},
		{"no fields", struct{}{}, map[string]any{}},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		if err := writeHeadedJSON(&buf, "holes", tt.v); err != nil {
			t.Fatalf("writeHeadedJSON(%s) = %v", tt.name, err)
		}
		if !strings.HasPrefix(buf.String(), "{\n  \"kvctl\": {\n    \"command\": \"holes\",") {
			t.Errorf("writeHeadedJSON(%s) = %q, want the header first, indented", tt.name, buf.String())
		}
		var got map[string]any
		if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
			t.Fatalf("writeHeadedJSON(%s) wrote invalid JSON: %v\n%s", tt.name, err, buf.String())
		}
		hdr := got[report.HeaderField].(map[string]any)
		delete(got, report.HeaderField)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("writeHeadedJSON(%s) fields (-want +got):\n%s", tt.name, diff)
		}
		if hdr["version"] != readVersion().Version || hdr["format"] != float64(report.CurrentFormat) {
			t.Errorf("writeHeadedJSON(%s) header = %v, want this kvctl's version and format %d", tt.name, hdr, report.CurrentFormat)
		}
		if strings.Contains(buf.String(), `\u003c`) {
			t.Errorf("writeHeadedJSON(%s) escaped HTML: %s", tt.name, buf.String())
		}
	}
	if err := writeHeadedJSON(&bytes.Buffer{}, "holes", []int{1}); err == nil {
		t.Error("writeHeadedJSON(an array) = nil error, want one")
	}
}
