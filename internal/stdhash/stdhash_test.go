package stdhash

import (
	"encoding/json"
	"os"
	"testing"
)

// The values libstdc++ gives (see spec/mooncake-fidelity.md).
func TestStringKnownValues(t *testing.T) {
	tests := []struct {
		in    string
		want  uint64
		shard uint64
	}{
		{"", 6142509188972423790, 622},
		{"a", 4993892634952068459, 363},
		{"kvctl-test/k0000", 18288186019424284116, 468},
		{"c000", 7133723845064717428, 116},
	}
	for _, tt := range tests {
		if got := String(tt.in); got != tt.want || got%1024 != tt.shard {
			t.Errorf("String(%q) = %d (shard %d), want %d (shard %d)", tt.in, got, got%1024, tt.want, tt.shard)
		}
		if got := Bytes([]byte(tt.in), Seed); got != tt.want {
			t.Errorf("Bytes([]byte(%q), Seed) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// TestStringRecordedShards checks every key_shard a real master's
// recording gives (std::hash<std::string>(key) % 1024).
func TestStringRecordedShards(t *testing.T) {
	b, err := os.ReadFile("../../testdata/mooncake-real/eviction-E2-K32.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		KeyShard map[string]uint64 `json:"key_shard"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.KeyShard) == 0 {
		t.Fatal("recording has no key_shard")
	}
	for k, want := range rec.KeyShard {
		if got := String(k) % 1024; got != want {
			t.Errorf("String(%q) %% 1024 = %d, want %d", k, got, want)
		}
	}
}

func BenchmarkString(b *testing.B) {
	k := "trtllm/llama-3-8b/0123456789abcdef0123456789abcdef/L0"
	for b.Loop() {
		String(k)
	}
}
