package cmd

import (
	"strconv"
	"strings"

	"github.com/kvctl/kvctl/size"
)

// Helpers that spell values for people, shared by the printers.

// groupThousands writes n with a comma between groups of three digits
// (12,031), the way kvctl's messages write counts.
func groupThousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// capacityText spells a pool's (or a segment's) capacity for tables. JSON
// keeps 0 as "unknown"; a table says "unlimited" for Redis, where 0 means
// a server without maxmemory, and "unknown" for the other backends.
func capacityText(backend string, n int64) string {
	switch {
	case n > 0:
		return size.Human(n)
	case backend == "redis":
		return "unlimited"
	default:
		return "unknown"
	}
}
