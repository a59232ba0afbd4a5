package keys

import (
	"errors"
	"strings"
	"testing"
)

func validSettings() Settings {
	return Settings{
		Layout: Layout{TokensPerBlock: 4, World: 1, Ranks: []int{0},
			LayerGroups: []LayerGroup{{ID: 0, BytesPerPage: 128}}},
		Namespace: Namespace{Name: DefaultNamespace, ModelKey: "m"},
	}
}

func TestSettingsValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Settings)
		ok     bool
	}{
		{"valid", func(*Settings) {}, true},
		{"unknown scheme", func(s *Settings) { s.Scheme = "nope" }, false},
		{"negative lookahead", func(s *Settings) { s.Lookahead = -1 }, false},
		{"largest lookahead", func(s *Settings) { s.Lookahead = MaxLookahead }, true},
		{"lookahead 2^61", func(s *Settings) { s.Lookahead = 1 << 61 }, false},
		{"lookahead 2^62", func(s *Settings) { s.Lookahead = 1 << 62 }, false},
		{"largest T", func(s *Settings) { s.Layout.TokensPerBlock = MaxTokensPerBlock }, true},
		{"T 2^61", func(s *Settings) { s.Layout.TokensPerBlock = 1 << 61 }, false},
		{"legacy with lookahead", func(s *Settings) { s.Scheme, s.Lookahead = SchemeLegacy, 2 }, false},
		{"zero T", func(s *Settings) { s.Layout.TokensPerBlock = 0 }, false},
		{"no model key", func(s *Settings) { s.Namespace.ModelKey = "" }, true},
	}
	for _, tt := range tests {
		s := validSettings()
		tt.change(&s)
		err := s.Validate()
		if (err == nil) != tt.ok {
			t.Errorf("%s: Validate() = %v, want ok %v", tt.name, err, tt.ok)
		}
		var re *RangeError
		if strings.Contains(tt.name, "2^") && !errors.As(err, &re) {
			t.Errorf("%s: Validate() = %v, want a *RangeError", tt.name, err)
		}
		if err != nil && !errors.Is(err, ErrBadSettings) {
			t.Errorf("%s: Validate() = %v, want it to wrap ErrBadSettings", tt.name, err)
		}
	}
}

func TestSettingsHashesMatchChain(t *testing.T) {
	s := validSettings()
	s.Lookahead = 1
	salt := Scope{CacheSalt: "x"}
	tokens := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	got, err := s.Hashes(salt, tokens)
	if err != nil {
		t.Fatal(err)
	}
	seed, err := Seed(SchemeTRTLLM, salt, 1)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewChain(seed, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	c.Extend(tokens)
	want := c.Hashes()
	if len(got) != len(want) || len(got) == 0 {
		t.Fatalf("Hashes() = %d hashes, want %d (> 0)", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Hashes()[%d] = %s, want %s", i, got[i], want[i])
		}
	}
	if n := s.BlockKeys().PagesPerBlock(); n != 1 {
		t.Errorf("BlockKeys().PagesPerBlock() = %d, want 1", n)
	}
	if got, want := s.AppendBlockKeys(nil, want[0]), s.Namespace.AppendBlockKeys(nil, s.Layout, want[0]); len(got) != 1 || got[0] != want[0] {
		t.Errorf("AppendBlockKeys(nil, h) = %q, want %q", got, want)
	}
}

func TestSettingsSeedScheme(t *testing.T) {
	for _, tt := range []struct{ scheme, want Scheme }{
		{"", SchemeTRTLLM}, {SchemeFork, SchemeFork}, {SchemeLegacy, SchemeLegacy},
	} {
		s := Settings{Scheme: tt.scheme}
		if got := s.SeedScheme(); got != tt.want {
			t.Errorf("Settings{Scheme: %q}.SeedScheme() = %q, want %q", tt.scheme, got, tt.want)
		}
	}
}

func TestSettingsGroupKey(t *testing.T) {
	s := validSettings()
	s.Layout.World, s.Layout.Ranks = 4, []int{0, 1, 2, 3}
	h := Hash{0xab}
	if got, want := s.GroupKey(h), s.Namespace.GroupKey(4, h); got != want {
		t.Errorf("GroupKey(%s) = %q, want %q (the layout's world size)", h, got, want)
	}
}
