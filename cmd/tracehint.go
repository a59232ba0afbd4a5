package cmd

import "github.com/kvctl/kvctl/workload"

// refuseTrace refuses, with a hint, a Mooncake trace given to --requests
// (which reads kvctl request lines only): the request parser would stop
// at its first field, "timestamp". stdin, and a file whose format cannot
// be told, are left to the parser.
func refuseTrace(path string) error {
	if path == "-" {
		return nil
	}
	if src, err := workload.Open(path, workload.FormatAuto); err == nil && src.Format == workload.FormatMooncake {
		return usagef("--requests %q looks like a Mooncake trace (timestamp/hash_ids); use --trace", path)
	}
	return nil
}
