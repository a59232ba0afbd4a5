package cmd

import (
	"fmt"
	"strconv"
	"strings"
)

// Helpers that spell values for people, shared by the printers.

// humanBytes spells n with a binary unit and one decimal.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}

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
		return humanBytes(n)
	case backend == "redis":
		return "unlimited"
	default:
		return "unknown"
	}
}
