package redis

import (
	"context"
	"strconv"
	"strings"

	"github.com/kvctl/kvctl/pool"
)

// nodeInfo is what Stat and List read from one node's INFO.
type nodeInfo struct {
	role        string
	usedMemory  int64
	maxMemory   int64
	evictedKeys int64
}

// parseInfo reads the fields kvctl uses from an INFO reply ("name:value"
// lines, "# Section" headers). Fields it does not find stay zero.
func parseInfo(text string) nodeInfo {
	var ni nodeInfo
	for line := range strings.Lines(text) {
		name, value, ok := strings.Cut(strings.TrimRight(line, "\r\n"), ":")
		if !ok {
			continue
		}
		switch name {
		case "role":
			ni.role = value
		case "used_memory":
			ni.usedMemory = parseCount(value)
		case "maxmemory":
			ni.maxMemory = parseCount(value)
		case "evicted_keys":
			ni.evictedKeys = parseCount(value)
		}
	}
	return ni
}

// parseCount reads a non-negative counter, 0 when it is not one.
func parseCount(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// Stat reports the pool from every master's INFO and DBSIZE, summed: Keys
// is DBSIZE (every key in the database, kvctl's or not), UsedBytes is
// used_memory (all of the server's memory, not only values),
// CapacityBytes is maxmemory (0 when a node has no limit, and then for the
// whole pool), EvictedKeys is evicted_keys. Each master is one Segment.
// Pins, puts of existing keys and evicted bytes are not known to Redis.
func (s *Store) Stat(ctx context.Context) (pool.Stat, error) {
	st := pool.Stat{Backend: "redis", Address: s.addr}
	nodes, err := s.masters(ctx, "stat")
	if err != nil {
		return st, err
	}
	unlimited := false
	for _, n := range nodes {
		keys, err := n.client.Do(ctx, n.client.B().Dbsize().Build()).AsInt64()
		if err != nil {
			return st, s.nodeError(ctx, "stat", n.addr, err)
		}
		st.Keys += keys
		st.UsedBytes += n.info.usedMemory
		st.CapacityBytes += n.info.maxMemory
		unlimited = unlimited || n.info.maxMemory == 0
		st.EvictedKeys += n.info.evictedKeys
		st.Segments = append(st.Segments, pool.Segment{
			Name: n.addr, CapacityBytes: n.info.maxMemory, UsedBytes: n.info.usedMemory,
		})
	}
	if unlimited {
		st.CapacityBytes = 0
	}
	return st, nil
}
