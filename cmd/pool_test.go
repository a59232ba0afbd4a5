package cmd

import (
	"testing"

	"github.com/spf13/pflag"
)

func TestWithStoreOption(t *testing.T) {
	tests := []struct{ raw, name, value, want string }{
		{"mooncake-store://m:50051", "lib", "/opt/libmooncake_store.so", "mooncake-store://m:50051?lib=%2Fopt%2Flibmooncake_store.so"},
		{"mooncake-store://m?admin=m:9003", "lib", "l.so", "mooncake-store://m?admin=m%3A9003&lib=l.so"},
		{"mooncake-store:?config=/etc/mc.json", "lib", "l.so", "mooncake-store:?config=%2Fetc%2Fmc.json&lib=l.so"},
		{"mooncake-store://m?lib=mine.so", "lib", "l.so", "mooncake-store://m?lib=mine.so"},
		{"mooncake-store://m", "lib", "", "mooncake-store://m"},
		{"mooncake-store://m", "config", "/etc/mc.json", "mooncake-store://m?config=%2Fetc%2Fmc.json"},
		{"mooncake-store://m?config=/mine.json", "config", "/etc/mc.json", "mooncake-store://m?config=/mine.json"},
		{"redis://h:6379", "lib", "l.so", "redis://h:6379"},
		{"mem://", "config", "/etc/mc.json", "mem://"},
	}
	for _, tt := range tests {
		if got := withStoreOption(tt.raw, tt.name, tt.value); got != tt.want {
			t.Errorf("withStoreOption(%q, %q, %q) = %q, want %q", tt.raw, tt.name, tt.value, got, tt.want)
		}
	}
}

// TestPoolResolveMooncakeConfig checks that --mooncake-config, where the
// command has it, else $MOONCAKE_CONFIG_PATH, becomes a mooncake-store
// URL's config=.
func TestPoolResolveMooncakeConfig(t *testing.T) {
	tests := []struct {
		name     string
		keyFlags bool
		args     []string
		env      string
		want     string
	}{
		{"flag", true, []string{"--mooncake-config", "/flag.json"}, "/env.json", "mooncake-store://m?config=%2Fflag.json"},
		{"env", true, nil, "/env.json", "mooncake-store://m?config=%2Fenv.json"},
		{"env without the key flags", false, nil, "/env.json", "mooncake-store://m?config=%2Fenv.json"},
		{"neither", true, nil, "", "mooncake-store://m"},
	}
	for _, tt := range tests {
		fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
		var p poolFlag
		p.register(fs)
		if tt.keyFlags {
			var k keyFlags
			k.register(fs, false)
		}
		if err := fs.Parse(append([]string{"--pool", "mooncake-store://m"}, tt.args...)); err != nil {
			t.Fatal(err)
		}
		ios, _, _ := NewTestIOStreams("")
		ios.Getenv = func(k string) string {
			if k == "MOONCAKE_CONFIG_PATH" {
				return tt.env
			}
			return ""
		}
		if got := p.resolve(ios); got != tt.want {
			t.Errorf("%s: resolve() = %q, want %q", tt.name, got, tt.want)
		}
	}
}
