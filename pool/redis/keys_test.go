package redis

import (
	"context"
	"strings"
	"testing"
)

func TestStoredKey(t *testing.T) {
	tests := []struct{ key, want string }{
		{"trtllm/m/w1r0/lg0/t32b1024/0123456789abcdef0123456789abcdef", "trtllm/m/w1r0/lg0/t32b1024/{0123456789abcdef0123456789abcdef}"},
		{"trtllm/m/w2/0123456789abcdef0123456789abcdef", "trtllm/m/w2/{0123456789abcdef0123456789abcdef}"},
		{"plain", "{plain}"},
		{"", "{}"},
		{"dir/", "dir/{}"},
		{"/", "/{}"},
		{"a{b}/c%d", "a%7Bb%7D/{c%25d}"},
		{"x/{}", "x/{%7B%7D}"},
		{"%7B", "{%257B}"},
	}
	for _, tt := range tests {
		if got := storedKey(tt.key); got != tt.want {
			t.Errorf("storedKey(%q) = %q, want %q", tt.key, got, tt.want)
		}
		if back, ok := poolKey(tt.want); !ok || back != tt.key {
			t.Errorf("poolKey(%q) = %q, %v, want %q, true", tt.want, back, ok, tt.key)
		}
	}
}

func TestPoolKeyRejectsForeignKeys(t *testing.T) {
	for _, s := range []string{
		"", "plain", "{a}b", "a{b}", "a/{b}/c", "a/{b/c}", "a/{b{c}", "a{/}{b}", "a}/{b}",
		"a/{b%}", "a/{b%2}", "a/{b%7b}", "a%zz/{b}", "{a}}", "a/b{c}",
	} {
		if k, ok := poolKey(s); ok {
			t.Errorf("poolKey(%q) = %q, true, want false", s, k)
		}
	}
}

// hashTag is the part of a Redis key that Redis Cluster hashes: what lies
// between the first "{" and the first "}" after it, when that is not empty;
// the whole key otherwise.
func hashTag(key string) string {
	open := strings.IndexByte(key, '{')
	if open < 0 {
		return key
	}
	end := strings.IndexByte(key[open+1:], '}')
	if end <= 0 {
		return key
	}
	return key[open+1 : open+1+end]
}

func TestBlockKeysShareHashTag(t *testing.T) {
	const h = "0123456789abcdef0123456789abcdef"
	keys := []string{
		"trtllm/org/model/w2r0/lg0/t32b1024/" + h,
		"trtllm/org/model/w2r1/lg0/t32b1024/" + h,
		"trtllm/org/model/w2r0/lg1/t32b2048/" + h,
		"trtllm/org/model/replicated/lg0/t32b64/" + h,
		"trtllm/org/model/w2/" + h,
		"we{ird}/ns/w1r0/lg0/t32b64/" + h,
	}
	for _, k := range keys {
		if got := hashTag(storedKey(k)); got != h {
			t.Errorf("hashTag(storedKey(%q)) = %q, want the block hash %q", k, got, h)
		}
	}
}

func TestScanPattern(t *testing.T) {
	tests := []struct{ prefix, want string }{
		{"", "*"},
		{"trtllm/m/", "trtllm/m/*"},
		{"trtllm/m/w1", "trtllm/m/*"},
		{"no-slash", "*"},
		{`a*b?[c]\/x`, `a\*b\?\[c\]\\/*`},
		{"x{y}%/z", "x%7By%7D%25/*"},
	}
	for _, tt := range tests {
		if got := scanPattern(tt.prefix); got != tt.want {
			t.Errorf("scanPattern(%q) = %q, want %q", tt.prefix, got, tt.want)
		}
	}
}

func TestClusterSlots(t *testing.T) {
	tg := targets()[2]
	s := tg.open(t)
	if !s.Cluster() {
		t.Fatalf("Open(%s).Cluster() = false, want a cluster", envCluster)
	}
	ctx := context.Background()
	const h = "00112233445566778899aabbccddeeff"
	slots := map[int64][]string{}
	for _, k := range []string{"ns/m/w2r0/lg0/t32b64/" + h, "ns/m/w2r1/lg1/t32b64/" + h, "ns/m/w2/" + h, "other/model/w1r0/lg0/t16b8/" + h} {
		slot, err := s.client.Do(ctx, s.client.B().ClusterKeyslot().Key(storedKey(k)).Build()).AsInt64()
		if err != nil {
			t.Fatalf("CLUSTER KEYSLOT %q = %v", storedKey(k), err)
		}
		slots[slot] = append(slots[slot], k)
	}
	if len(slots) != 1 {
		t.Errorf("keys of one block hash to %d slots, want 1: %v", len(slots), slots)
	}
	text, err := s.client.Do(ctx, s.client.B().ClusterNodes().Build()).ToString()
	if err != nil {
		t.Fatalf("CLUSTER NODES = %v", err)
	}
	wantMasters := 0
	for line := range strings.Lines(text) {
		if f := strings.Fields(line); len(f) > 2 && strings.Contains(f[2], "master") {
			wantMasters++
		}
	}
	nodes, err := s.masters(ctx, "test")
	if err != nil || len(nodes) != wantMasters {
		t.Errorf("masters() = %d nodes, %v, want the %d masters CLUSTER NODES lists", len(nodes), err, wantMasters)
	}
	one := mustOpen(t, "redis://"+s.addrsOf()[0])
	if !one.Cluster() {
		t.Errorf("Open(redis://%s).Cluster() = false, want a cluster found from one node", s.addrsOf()[0])
	}
}

// addrsOf is the store's init addresses.
func (s *Store) addrsOf() []string { return strings.Split(s.addr, ",") }

func FuzzKeyLayout(f *testing.F) {
	for _, s := range []string{"trtllm/m/w1r0/lg0/t32b64/00ff", "", "/", "a{b}/c%d", "{x}", "a/{b}", "%7B/%", "a*[b]?/\\c"} {
		f.Add(s, "")
		f.Add(s, "/x/y")
		f.Add(s, "zz")
	}
	f.Fuzz(func(t *testing.T, s, suffix string) {
		stored := storedKey(s)
		if back, ok := poolKey(stored); !ok || back != s {
			t.Fatalf("poolKey(storedKey(%q)) = %q, %v, want the key back", s, back, ok)
		}
		if tag, last := hashTag(stored), escaped(s[strings.LastIndexByte(s, '/')+1:]); last != "" && tag != last {
			t.Fatalf("hashTag(storedKey(%q)) = %q, want %q", s, tag, last)
		}
		if k, ok := poolKey(s); ok && storedKey(k) != s {
			t.Fatalf("storedKey(poolKey(%q)) = %q, want %q", s, storedKey(k), s)
		}
		// Every key that starts with the prefix s is selected by s's pattern.
		if longer := storedKey(s + suffix); !matchGlob(scanPattern(s), longer) {
			t.Fatalf("scanPattern(%q) = %q does not match storedKey(%q) = %q", s, scanPattern(s), s+suffix, longer)
		}
	})
}

// matchGlob is Redis's glob matching for the subset scanPattern produces:
// backslash escapes and a trailing "*".
func matchGlob(pattern, s string) bool {
	var lit strings.Builder
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case c == '\\' && i+1 < len(pattern):
			i++
			lit.WriteByte(pattern[i])
		case c == '*' && i == len(pattern)-1:
			return strings.HasPrefix(s, lit.String())
		default:
			lit.WriteByte(c)
		}
	}
	return s == lit.String()
}
