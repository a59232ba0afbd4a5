package keys

import (
	"errors"
	"fmt"
)

// ErrBadSettings is wrapped by every error of Settings.Validate: the
// settings a user gave (flags, config files) cannot key a page.
var ErrBadSettings = errors.New("bad key settings")

// Settings is everything that decides a request's page keys: the one home
// of the key recipe. Flags, the Mooncake client JSON and the TensorRT-LLM
// LLM-API YAML fill it; keys, holes, serve and the connector build their
// chains and key spellers from it.
type Settings struct {
	// Engine is the engine whose keys these are; empty means
	// EngineTRTLLM, the only one that reads Scheme and Lookahead.
	Engine Engine
	// Engines holds the options of the other engines.
	Engines EngineOptions
	// Scheme is the seed scheme; empty means SchemeTRTLLM.
	Scheme Scheme
	// Lookahead is the prompt lookahead L of a one-model MTP/EAGLE3 draft
	// (0: none).
	Lookahead int
	// Layout holds T, the shards and the layer groups of the page keys.
	Layout Layout
	// Namespace and model key spelled in every page key.
	Namespace Namespace
	// Scope is the scope of requests that bring none of their own (cache
	// salt, LoRA task, multimodal items).
	Scope Scope
}

// TokensPerBlock returns T.
func (s Settings) TokensPerBlock() int { return s.Layout.TokensPerBlock }

// SeedScheme returns the scheme the seeds use: Scheme, or SchemeTRTLLM
// when it is empty.
func (s Settings) SeedScheme() Scheme {
	if s.Scheme == "" {
		return SchemeTRTLLM
	}
	return s.Scheme
}

// Validate checks the settings: a lookahead in 0..MaxLookahead (a
// *RangeError), a known scheme with a lookahead it can seed (Seed), and a
// valid layout (Layout.Validate), then the options of an engine other than
// TensorRT-LLM (a hash seed for vLLM and LMCache, ranges). The model key is not
// required here: chains need none, only spelled page keys do
// (Namespace.Validate). Every error wraps ErrBadSettings.
func (s Settings) Validate() error {
	if err := checkRange(SettingLookahead, int64(s.Lookahead), 0, MaxLookahead); err != nil {
		return fmt.Errorf("%w: %w", ErrBadSettings, err)
	}
	if _, err := Seed(s.SeedScheme(), s.Scope, s.Lookahead); err != nil {
		return fmt.Errorf("%w: %w", ErrBadSettings, err)
	}
	if err := s.Layout.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrBadSettings, err)
	}
	if err := s.validateEngine(); err != nil {
		return fmt.Errorf("%w: %w", ErrBadSettings, err)
	}
	return nil
}

// NewChain returns an empty chain seeded for scope: the seed of the scheme
// (Seed), then blocks of T tokens with the lookahead.
func (s Settings) NewChain(scope Scope) (*Chain, error) {
	seed, err := Seed(s.SeedScheme(), scope, s.Lookahead)
	if err != nil {
		return nil, err
	}
	return NewChain(seed, s.Layout.TokensPerBlock, s.Lookahead)
}

// Hashes returns the block hashes of a prompt under s and scope.
func (s Settings) Hashes(scope Scope, tokens []int64) ([]Hash, error) {
	c, err := s.NewChain(scope)
	if err != nil {
		return nil, err
	}
	c.Extend(tokens)
	return c.Hashes(), nil
}

// BlockKeys returns the speller of the page keys of one block under s.
func (s Settings) BlockKeys() BlockKeys { return s.Namespace.BlockKeys(s.Layout) }

// GroupKey spells the eviction-group key of the block with hash h under s
// (Namespace.GroupKey with the layout's world size).
func (s Settings) GroupKey(h Hash) string { return s.Namespace.GroupKey(s.Layout.World, h) }

// AppendBlockKeys appends the page keys of the block with hash h under s
// (Namespace.AppendBlockKeys with the layout).
func (s Settings) AppendBlockKeys(dst []string, h Hash) []string {
	return s.Namespace.AppendBlockKeys(dst, s.Layout, h)
}
