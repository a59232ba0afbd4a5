package cmd

import (
	"strings"

	"github.com/kvctl/kvctl/size"
)

// capacitySweepValues returns the values of --sweep PARAM=V1,V2,... flags
// whose one parameter is capacity, comma-joined ("" for none).
func capacitySweepValues(sweeps []string) (string, error) {
	var specs []string
	for _, sw := range sweeps {
		param, values, ok := strings.Cut(sw, "=")
		if !ok || values == "" {
			return "", usagef("--sweep %q: want capacity=V1,V2,...", sw)
		}
		if param != "capacity" {
			return "", usagef("--sweep %s: unknown parameter (want capacity)", param)
		}
		specs = append(specs, values)
	}
	return strings.Join(specs, ","), nil
}

// parseCapacities parses comma-separated pool capacities, each a positive
// size.
func parseCapacities(spec string) ([]int64, error) {
	var out []int64
	for _, part := range strings.Split(spec, ",") {
		n, err := size.Parse(strings.TrimSpace(part))
		if err != nil {
			return nil, usagef("capacity: %v", err)
		}
		if n <= 0 {
			return nil, usagef("capacity %q: want a positive size such as 64GiB", part)
		}
		out = append(out, n)
	}
	return out, nil
}
