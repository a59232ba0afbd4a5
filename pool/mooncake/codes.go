package mooncake

import "github.com/kvctl/kvctl/pool"

// moreCodes are Mooncake error names (ErrorCode in types.h) that the master
// can answer with but package pool does not name.
var moreCodes = map[string]pool.Code{
	"INTERNAL_ERROR":                -1,
	"SEGMENT_NOT_FOUND":             -101,
	"INVALID_KEY":                   -400,
	"INVALID_REPLICA":               -702,
	"REPLICA_IS_NOT_READY":          -703,
	"UNAVAILABLE_IN_CURRENT_STATUS": -1010,
	"UNAVAILABLE_IN_CURRENT_MODE":   -1011,
}

// codeFromName maps a Mooncake error name to its code; a name kvctl does
// not know is RPCFail.
func codeFromName(name string) pool.Code {
	if c, ok := pool.CodeByName(name); ok {
		return c
	}
	if c, ok := moreCodes[name]; ok {
		return c
	}
	return pool.RPCFail
}

// codeName is a code's Mooncake name, including the names package pool
// leaves out.
func codeName(c pool.Code) string {
	for name, code := range moreCodes {
		if code == c {
			return name
		}
	}
	return c.String()
}
