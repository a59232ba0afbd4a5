package cmd

// The pool backends kvctl links; each registers its URL schemes.
import (
	_ "github.com/kvctl/kvctl/pool/keylist"
	_ "github.com/kvctl/kvctl/pool/mem"
	_ "github.com/kvctl/kvctl/pool/mooncake"
	_ "github.com/kvctl/kvctl/pool/redis"
)
