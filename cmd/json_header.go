package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/kvctl/kvctl/report"
)

// writeHeadedJSON writes v, an object, as writeJSON does, with the
// "kvctl" header naming command and this kvctl's version as its first
// field, so that kvctl report can tell what made the file.
func writeHeadedJSON(w io.Writer, command string, v any) error {
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	obj := bytes.TrimSpace(body.Bytes())
	if len(obj) < 2 || obj[0] != '{' {
		return fmt.Errorf("writing %s output: %T is not a JSON object", command, v)
	}
	hdr, err := json.Marshal(report.Header{Command: command, Version: readVersion().Version, Format: report.CurrentFormat})
	if err != nil {
		return err
	}
	var flat bytes.Buffer
	fmt.Fprintf(&flat, "{%q:%s", report.HeaderField, hdr)
	if len(bytes.TrimSpace(obj[1:len(obj)-1])) > 0 {
		flat.WriteByte(',')
	}
	flat.Write(obj[1:])
	var out bytes.Buffer
	if err := json.Indent(&out, flat.Bytes(), "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = out.WriteTo(w)
	return err
}

// writeHeadedRunsJSON writes one run as its own object, or a sweep's runs
// as {"runs": [...]}, the JSON shape of every command that sweeps, with
// the "kvctl" header.
func writeHeadedRunsJSON[T any](w io.Writer, command string, sweep bool, runs []T) error {
	if !sweep {
		return writeHeadedJSON(w, command, runs[0])
	}
	return writeHeadedJSON(w, command, struct {
		Runs []T `json:"runs"`
	}{runs})
}
