// Command kvctl is a toolkit for KV-cache pool operations and diagnostics:
// block keys identical to TensorRT-LLM's Mooncake-store connector, prefix-hole
// maps of a pool, GPU<->pool transfer benchmarks, and an embedded
// connector + scheduler loop for end-to-end checks of a pool deployment.
package main

import (
	"os"

	"github.com/kvctl/kvctl/cmd"
)

func main() {
	os.Exit(cmd.Execute())
}
