package sensitivity

import (
	"math"
	"slices"

	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/keys"
)

// ProxyPageBytes is the size of the page a sweep moves in place of each
// larger page: the engine's default page (engine.DefaultPageBytes).
const ProxyPageBytes = engine.DefaultPageBytes

// Scale is how a sweep models a layout's pages with proxy pages: every
// page larger than ProxyPageBytes is moved as a page of ProxyPageBytes,
// and what depends on bytes is divided by Ratio, the modelled bytes of a
// block over its proxy bytes: the pool's capacity (so that it holds as
// many blocks), the transfer bandwidth (so that a load or save costs the
// modelled time of the real pages) and GPU bytes. With one layer group,
// as a model's KV usually is, the pool then holds exactly the blocks the
// modelled capacity holds; with several, a block's pages keep their
// count but not their relative sizes.
type Scale struct {
	// ModelledBlockBytes and ProxyBlockBytes are one block's pages, every
	// rank's shard included, as modelled and as moved.
	ModelledBlockBytes int64 `json:"modelled_block_bytes"`
	ProxyBlockBytes    int64 `json:"proxy_block_bytes"`
	// Ratio is ModelledBlockBytes / ProxyBlockBytes, 1 when no page is
	// larger than ProxyPageBytes.
	Ratio float64 `json:"ratio"`
	// Proxy is the layout the engine runs with.
	Proxy keys.Layout `json:"-"`
}

// NewScale returns the scale of layout l.
func NewScale(l keys.Layout) Scale {
	p := l
	p.LayerGroups, p.Replicated = proxyGroups(l.LayerGroups), proxyGroups(l.Replicated)
	s := Scale{ModelledBlockBytes: blockBytes(l), ProxyBlockBytes: blockBytes(p), Proxy: p, Ratio: 1}
	if s.ProxyBlockBytes > 0 {
		s.Ratio = float64(s.ModelledBlockBytes) / float64(s.ProxyBlockBytes)
	}
	return s
}

// proxyGroups returns groups with every page above ProxyPageBytes made
// ProxyPageBytes.
func proxyGroups(groups []keys.LayerGroup) []keys.LayerGroup {
	out := slices.Clone(groups)
	for i := range out {
		out[i].BytesPerPage = min(out[i].BytesPerPage, ProxyPageBytes)
	}
	return out
}

// blockBytes is one block's pages over every rank whose shard the engine
// holds (every rank 0..World-1 when l names none).
func blockBytes(l keys.Layout) int64 {
	ranks := int64(len(l.Ranks))
	if ranks == 0 {
		ranks = int64(max(1, l.World))
	}
	var b int64
	for _, g := range l.LayerGroups {
		b += ranks * g.BytesPerPage
	}
	for _, g := range l.Replicated {
		b += g.BytesPerPage
	}
	return b
}

// PoolBytes is the proxy pool's capacity for a modelled capacity.
func (s Scale) PoolBytes(modelled int64) int64 {
	return int64(math.Ceil(float64(modelled) / s.Ratio))
}

// Blocks is how many whole blocks a modelled capacity holds.
func (s Scale) Blocks(modelled int64) int64 {
	if s.ModelledBlockBytes == 0 {
		return 0
	}
	return modelled / s.ModelledBlockBytes
}

// Apply makes cfg, a configuration of the modelled layout, run the proxy
// layout: its layout, transfer bandwidth and GPU bytes are scaled.
func (s Scale) Apply(cfg *engine.Config) {
	cfg.Keys.Layout = s.Proxy
	if cfg.Costs == (engine.Costs{}) {
		cfg.Costs = engine.DefaultCosts()
	}
	cfg.Costs.TransferGBps /= s.Ratio
	if cfg.GPU.Bytes > 0 {
		cfg.GPU.Bytes = int64(math.Ceil(float64(cfg.GPU.Bytes) / s.Ratio))
	}
}
