package redis

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseInfo(t *testing.T) {
	tests := []struct {
		name, text string
		want       nodeInfo
	}{
		{"redis 7", "# Server\r\nredis_version:7.0.15\r\n\r\n# Memory\r\nused_memory:1054032\r\nused_memory_human:1.01M\r\nmaxmemory:0\r\nmaxmemory_human:0B\r\n\r\n# Stats\r\nevicted_keys:12\r\nexpired_keys:3\r\n\r\n# Replication\r\nrole:master\r\nconnected_slaves:0\r\n",
			nodeInfo{role: "master", usedMemory: 1054032, evictedKeys: 12}},
		{"replica with limit", "role:slave\nused_memory:10\nmaxmemory:4294967296\n", nodeInfo{role: "slave", usedMemory: 10, maxMemory: 4294967296}},
		{"miniredis", "# Clients\nconnected_clients:1\r\n# Stats\ntotal_connections_received:1\r\n", nodeInfo{}},
		{"garbage values", "used_memory:lots\r\nmaxmemory:-5\r\nevicted_keys:99999999999999999999\r\n", nodeInfo{}},
		{"empty", "", nodeInfo{}},
		{"no colon lines", "used_memory\r\n# Memory\r\n", nodeInfo{}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, parseInfo(tt.text), cmp.AllowUnexported(nodeInfo{})); diff != "" {
			t.Errorf("%s: parseInfo diff (-want +got):\n%s", tt.name, diff)
		}
	}
}

func FuzzParseInfo(f *testing.F) {
	f.Add("# Memory\r\nused_memory:1\r\nmaxmemory:2\r\n# Stats\r\nevicted_keys:3\r\nrole:master\r\n")
	f.Add("used_memory:-1\nrole:\n:\n")
	f.Fuzz(func(t *testing.T, text string) {
		ni := parseInfo(text)
		if ni.usedMemory < 0 || ni.maxMemory < 0 || ni.evictedKeys < 0 {
			t.Fatalf("parseInfo(%q) = %+v, want non-negative counters", text, ni)
		}
	})
}
