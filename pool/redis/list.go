package redis

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/redis/rueidis"
)

// scanCount is the COUNT hint of each SCAN call.
const scanCount = 1000

// List calls fn for every pool key that starts with prefix, scanning every
// master node with SCAN MATCH (the prefix's directory part, glob-escaped).
// Redis keys that kvctl's layout cannot produce are skipped. As SCAN
// guarantees, every key present for the whole scan is reported; a key may be
// reported twice when the server resizes its table during the scan.
func (s *Store) List(ctx context.Context, prefix string, fn func(key string) error) error {
	nodes, err := s.masters(ctx, "list")
	if err != nil {
		return err
	}
	pattern := scanPattern(prefix)
	for _, n := range nodes {
		if err := s.scanNode(ctx, n, pattern, prefix, fn); err != nil {
			return err
		}
	}
	return nil
}

// scanNode runs one SCAN iteration over one node.
func (s *Store) scanNode(ctx context.Context, n node, pattern, prefix string, fn func(string) error) error {
	var cursor uint64
	for {
		cmd := n.client.B().Scan().Cursor(cursor).Match(pattern).Count(scanCount).Build()
		entry, err := n.client.Do(ctx, cmd).AsScanEntry()
		if err != nil {
			return s.nodeError(ctx, "list", n.addr, err)
		}
		for _, stored := range entry.Elements {
			k, ok := poolKey(stored)
			if !ok || !strings.HasPrefix(k, prefix) {
				continue
			}
			if err := fn(k); err != nil {
				return err
			}
		}
		if entry.Cursor == 0 {
			return nil
		}
		cursor = entry.Cursor
	}
}

// node is one server of the pool, with what its INFO said.
type node struct {
	addr   string
	client rueidis.Client
	info   nodeInfo
}

// masters lists the nodes that own data, in address order: the one server,
// or a cluster's masters (nodes whose INFO does not say role:slave).
func (s *Store) masters(ctx context.Context, op string) ([]node, error) {
	all := s.client.Nodes()
	nodes := make([]node, 0, len(all))
	for addr, c := range all {
		nodes = append(nodes, node{addr: addr, client: c})
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].addr < nodes[j].addr })
	masters := nodes[:0]
	for _, n := range nodes {
		text, err := n.client.Do(ctx, n.client.B().Info().Build()).ToString()
		if err != nil {
			return nil, s.nodeError(ctx, op, n.addr, err)
		}
		n.info = parseInfo(text)
		if n.info.role != "slave" && n.info.role != "replica" {
			masters = append(masters, n)
		}
	}
	return masters, nil
}

// nodeError wraps a failed command to one node.
func (s *Store) nodeError(ctx context.Context, op, addr string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("redis %s: %w", op, ctx.Err())
	}
	return s.classify(op+" at node "+addr, "", err).err
}
