package mooncakestore

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadLibraryErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "libmooncake_store.so")
	tests := []struct {
		path     string
		mentions []string
	}{
		{missing, []string{missing, LibraryEnv, "--mooncake-lib"}},
		// libc has none of store_c.h's symbols: the first is named.
		{"libc.so.6", []string{"libc.so.6", "lacks symbol mooncake_store_create"}},
	}
	for _, tt := range tests {
		_, err := loadLibrary(tt.path)
		if !errors.Is(err, ErrNoLibrary) {
			t.Fatalf("loadLibrary(%q) = %v, want an error wrapping ErrNoLibrary", tt.path, err)
		}
		for _, m := range tt.mentions {
			if !strings.Contains(err.Error(), m) {
				t.Errorf("loadLibrary(%q) = %q, want it to mention %q", tt.path, err, m)
			}
		}
	}
}

func TestSymbolTableIsComplete(t *testing.T) {
	var l library
	seen := map[string]bool{}
	for _, s := range l.symbols() {
		if !strings.HasPrefix(s.name, "mooncake_store_") || seen[s.name] {
			t.Errorf("symbol %q: want a unique mooncake_store_ name", s.name)
		}
		seen[s.name] = true
	}
	// Every function of store_c.h the issue names, and get_size.
	for _, name := range []string{"create", "setup", "init_all", "put", "put_from", "batch_put_from", "get_into",
		"batch_get_into", "is_exist", "batch_is_exist", "get_size", "remove", "remove_all", "register_buffer",
		"unregister_buffer", "health_check", "destroy"} {
		if !seen["mooncake_store_"+name] {
			t.Errorf("symbols() lacks mooncake_store_%s", name)
		}
	}
}
