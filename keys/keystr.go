package keys

import (
	"encoding/hex"
	"errors"
	"strconv"
)

// DefaultNamespace is the key namespace of a configuration that names
// none: upstream's DEFAULT_NAMESPACE (and the older builds' default
// cache_prefix). Readers of a configuration apply it where the setting is
// absent; Namespace spells Name as given and never substitutes it.
const DefaultNamespace = "trtllm"

// Namespace is the prefix of every key: {Name}/{ModelKey}/... No escaping:
// a "/" inside either just adds path segments, as upstream.
type Namespace struct {
	// Name is spelled as given. An empty Name is an empty first segment
	// ("/model/..."), as upstream spells a configured namespace of "";
	// the default, DefaultNamespace, is applied by whoever reads the
	// configuration, where it names no namespace.
	Name string
	// ModelKey is required: no default is safe, since two models with the
	// same basename would share keys.
	ModelKey string
}

// Validate reports a missing model key.
func (n Namespace) Validate() error {
	if n.ModelKey == "" {
		return errors.New("model key is required in page keys (no default is safe)")
	}
	return nil
}

func (n Namespace) appendPrefix(b []byte) []byte {
	b = append(b, n.Name...)
	b = append(b, '/')
	b = append(b, n.ModelKey...)
	return append(b, '/')
}

// PageKey spells the key of one page:
// {namespace}/{model_key}/{shard}/lg{id}/t{T}b{bytes_per_page}/{hex(h)}.
func (n Namespace) PageKey(shard Shard, lg LayerGroup, tokensPerBlock int, h Hash) string {
	b := make([]byte, 0, 96+len(n.Name)+len(n.ModelKey))
	return string(n.appendPageKey(b, shard, lg, tokensPerBlock, h))
}

func (n Namespace) appendPageKey(b []byte, shard Shard, lg LayerGroup, tokensPerBlock int, h Hash) []byte {
	b = n.appendPrefix(b)
	b = shard.appendTo(b)
	b = appendPageSuffix(b, lg, tokensPerBlock)
	return appendHex(b, h)
}

// appendPageSuffix appends "/lg{id}/t{T}b{bytes}/".
func appendPageSuffix(b []byte, lg LayerGroup, tokensPerBlock int) []byte {
	b = append(b, "/lg"...)
	b = strconv.AppendInt(b, int64(lg.ID), 10)
	b = append(b, "/t"...)
	b = strconv.AppendInt(b, int64(tokensPerBlock), 10)
	b = append(b, 'b')
	b = strconv.AppendInt(b, lg.BytesPerPage, 10)
	return append(b, '/')
}

func appendHex(b []byte, h Hash) []byte {
	n := len(b)
	b = append(b, make([]byte, 2*HashSize)...)
	hex.Encode(b[n:], h[:])
	return b
}

// GroupKey spells a block's eviction-group key:
// {namespace}/{model_key}/w{world}/{hex(h)}. It leaves out shard, layer
// group, T and page size, but keeps the world size.
func (n Namespace) GroupKey(world int, h Hash) string {
	b := make([]byte, 0, 64+len(n.Name)+len(n.ModelKey))
	b = n.appendPrefix(b)
	b = append(b, 'w')
	b = strconv.AppendInt(b, int64(world), 10)
	b = append(b, '/')
	return string(appendHex(b, h))
}

// AppendBlockKeys appends every page key of one block, in the order a
// lookup asks for them: for each sharded layer group, each rank's shard in
// l.Ranks order; then each replicated layer group. The keys of one call
// share one allocation. To spell many blocks, BlockKeys is faster.
func (n Namespace) AppendBlockKeys(dst []string, l Layout, h Hash) []string {
	pages := l.PagesPerBlock()
	if pages == 0 {
		return dst
	}
	b := make([]byte, 0, pages*(100+len(n.Name)+len(n.ModelKey)))
	var small [16]int
	ends := small[:0]
	for _, lg := range l.LayerGroups {
		for _, r := range l.Ranks {
			b = n.appendPageKey(b, Shard{World: l.World, Rank: r}, lg, l.TokensPerBlock, h)
			ends = append(ends, len(b))
		}
	}
	for _, lg := range l.Replicated {
		b = n.appendPageKey(b, Shard{Replicated: true}, lg, l.TokensPerBlock, h)
		ends = append(ends, len(b))
	}
	all := string(b)
	start := 0
	for _, end := range ends {
		dst = append(dst, all[start:end])
		start = end
	}
	return dst
}

// BlockKeys spells the page keys of blocks of one namespace and layout.
// Everything in a key but the block hash is spelled once, up front.
type BlockKeys struct {
	prefixes []string // each page's key without the hash
	size     int      // bytes of one block's keys
}

// BlockKeys returns the key speller of the layout's blocks.
func (n Namespace) BlockKeys(l Layout) BlockKeys {
	var k BlockKeys
	add := func(shard Shard, lg LayerGroup) {
		b := n.appendPrefix(make([]byte, 0, 64+len(n.Name)+len(n.ModelKey)))
		b = appendPageSuffix(shard.appendTo(b), lg, l.TokensPerBlock)
		k.prefixes = append(k.prefixes, string(b))
		k.size += len(b) + 2*HashSize
	}
	for _, lg := range l.LayerGroups {
		for _, r := range l.Ranks {
			add(Shard{World: l.World, Rank: r}, lg)
		}
	}
	for _, lg := range l.Replicated {
		add(Shard{Replicated: true}, lg)
	}
	return k
}

// PagesPerBlock returns how many keys Append adds per block.
func (k BlockKeys) PagesPerBlock() int { return len(k.prefixes) }

// Append appends the page keys of the block with hash h, in the order of
// Namespace.AppendBlockKeys. The keys of one call share one allocation.
func (k BlockKeys) Append(dst []string, h Hash) []string {
	if len(k.prefixes) == 0 {
		return dst
	}
	var hexHash [2 * HashSize]byte
	hex.Encode(hexHash[:], h[:])
	b := make([]byte, 0, k.size)
	for _, p := range k.prefixes {
		b = append(append(b, p...), hexHash[:]...)
	}
	all := string(b)
	start := 0
	for _, p := range k.prefixes {
		end := start + len(p) + 2*HashSize
		dst = append(dst, all[start:end])
		start = end
	}
	return dst
}

// AppendLines appends the page keys of the block with hash h, in the
// order of Append, each followed by a newline: the text of Append's keys
// one a line, without allocating.
func (k BlockKeys) AppendLines(dst []byte, h Hash) []byte {
	var hexHash [2 * HashSize]byte
	hex.Encode(hexHash[:], h[:])
	for _, p := range k.prefixes {
		dst = append(append(append(dst, p...), hexHash[:]...), '\n')
	}
	return dst
}

// LinesSize returns how many bytes AppendLines appends per block.
func (k BlockKeys) LinesSize() int { return k.size + len(k.prefixes) }
