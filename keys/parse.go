package keys

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ParsedKey is a key taken apart: the inverse of Namespace.PageKey and
// Namespace.GroupKey, whose spellings docs/keys.md ("Key strings") gives:
//
//	page key  = {namespace}/{model_key}/{shard}/lg{layer_group}/t{T}b{bytes_per_page}/{hex(h)}
//	group key = {namespace}/{model_key}/w{world}/{hex(h)}
type ParsedKey struct {
	// Prefix is "{namespace}/{model_key}/" as spelled (Namespace.KeyPrefix).
	// Nothing is escaped, so where a "/" inside it falls, between namespace
	// and model key or inside either, cannot be told.
	Prefix string
	// Group says the key is an eviction-group key: only Shard.World and
	// Hash are set.
	Group bool
	// Shard, LayerGroup and TokensPerBlock are a page key's segments.
	Shard          Shard
	LayerGroup     LayerGroup
	TokensPerBlock int
	// Hash is the block hash.
	Hash Hash
}

// errNotAKey is wrapped by every error of ParseKey.
var errNotAKey = errors.New("not a page or group key")

// KeyPrefix returns the prefix every key of n starts with:
// "{namespace}/{model_key}/".
func (n Namespace) KeyPrefix() string { return string(n.appendPrefix(nil)) }

// ParseKey takes a page or group key apart, reading its segments from the
// right. It accepts only what Namespace.PageKey and Namespace.GroupKey
// spell for a valid layout: decimal numbers without sign or leading zeros,
// T in 1..MaxTokensPerBlock, a world in 1..MaxWorld with the rank inside
// it, positive page sizes, and 32 lower-case hex digits.
func ParseKey(s string) (ParsedKey, error) {
	segs := strings.Split(s, "/")
	if len(segs) < 4 {
		return ParsedKey{}, fmt.Errorf("%w: %q has too few segments", errNotAKey, s)
	}
	var k ParsedKey
	var err error
	n := len(segs)
	if k.Hash, err = parseKeyHash(segs[n-1]); err != nil {
		return ParsedKey{}, fmt.Errorf("%w: %q: %w", errNotAKey, s, err)
	}
	if w, ok := parseTagged(segs[n-2], "w"); ok {
		k.Group, k.Shard.World = true, w
		return k.withPrefix(s, segs[:n-2], checkRange(SettingWorld, int64(w), 1, MaxWorld))
	}
	if n < 6 {
		return ParsedKey{}, fmt.Errorf("%w: %q has too few segments", errNotAKey, s)
	}
	err = k.parsePageSegments(segs[n-4], segs[n-3], segs[n-2])
	if err != nil {
		err = fmt.Errorf("%q: %w", s, err)
	}
	return k.withPrefix(s, segs[:n-4], err)
}

// withPrefix sets the prefix from the segments before the structured
// ones, which must hold a namespace and a model key.
func (k ParsedKey) withPrefix(s string, prefix []string, err error) (ParsedKey, error) {
	if err != nil {
		return ParsedKey{}, fmt.Errorf("%w: %w", errNotAKey, err)
	}
	if len(prefix) < 2 {
		return ParsedKey{}, fmt.Errorf("%w: %q has no namespace and model key", errNotAKey, s)
	}
	k.Prefix = strings.Join(prefix, "/") + "/"
	return k, nil
}

// parsePageSegments parses "{shard}", "lg{id}" and "t{T}b{bytes}".
func (k *ParsedKey) parsePageSegments(shard, lg, tb string) error {
	var err error
	if k.Shard, err = parseShardSegment(shard); err != nil {
		return err
	}
	id, ok := parseTagged(lg, "lg")
	if !ok {
		return fmt.Errorf("layer group segment %q is not lg{id}", lg)
	}
	tText, bText, ok := strings.Cut(strings.TrimPrefix(tb, "t"), "b")
	t, tok := parseDecimal(tText)
	b, bok := parseDecimal(bText)
	if !strings.HasPrefix(tb, "t") || !ok || !tok || !bok || b == 0 {
		return fmt.Errorf("segment %q is not t{T}b{bytes_per_page}", tb)
	}
	k.LayerGroup, k.TokensPerBlock = LayerGroup{ID: id, BytesPerPage: int64(b)}, t
	return checkRange(SettingTokensPerBlock, int64(t), 1, MaxTokensPerBlock)
}

// parseShardSegment parses "replicated" or "w{world}r{rank}".
func parseShardSegment(s string) (Shard, error) {
	if s == "replicated" {
		return Shard{Replicated: true}, nil
	}
	wText, rText, ok := strings.Cut(strings.TrimPrefix(s, "w"), "r")
	w, wok := parseDecimal(wText)
	r, rok := parseDecimal(rText)
	if !strings.HasPrefix(s, "w") || !ok || !wok || !rok {
		return Shard{}, fmt.Errorf("shard segment %q is not w{world}r{rank} or replicated", s)
	}
	if err := checkRange(SettingWorld, int64(w), 1, MaxWorld); err != nil {
		return Shard{}, err
	}
	if r >= w {
		return Shard{}, fmt.Errorf("shard %q: rank %d is outside world size %d", s, r, w)
	}
	return Shard{World: w, Rank: r}, nil
}

// parseTagged parses "{tag}{n}" with n a canonical decimal.
func parseTagged(s, tag string) (int, bool) {
	if !strings.HasPrefix(s, tag) {
		return 0, false
	}
	return parseDecimal(s[len(tag):])
}

// parseDecimal parses a non-negative int as strconv.AppendInt spells it:
// no sign, no leading zeros.
func parseDecimal(s string) (int, bool) {
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

func parseKeyHash(s string) (Hash, error) {
	var h Hash
	if len(s) != 2*HashSize || strings.ToLower(s) != s {
		return h, fmt.Errorf("hash %q is not %d lower-case hex digits", s, 2*HashSize)
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, fmt.Errorf("hash %q is not %d lower-case hex digits", s, 2*HashSize)
	}
	return h, nil
}
