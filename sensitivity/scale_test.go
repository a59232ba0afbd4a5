package sensitivity

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/keys"
)

// llama70B is Llama-3-70B's KV at T = 32 as one layer group: 80 layers ×
// 8 KV heads × 128 dims × 2 (K, V) × 2 bytes × 32 tokens = 10 MiB.
var llama70B = keys.Layout{TokensPerBlock: 32, LayerGroups: []keys.LayerGroup{{ID: 0, BytesPerPage: 80 * 8 * 128 * 2 * 2 * 32}}, World: 1, Ranks: []int{0}}

func TestScale(t *testing.T) {
	two := keys.Layout{TokensPerBlock: 32, World: 2, LayerGroups: []keys.LayerGroup{{ID: 0, BytesPerPage: 4096}, {ID: 1, BytesPerPage: 64}},
		Replicated: []keys.LayerGroup{{ID: 2, BytesPerPage: 1024}}}
	tests := []struct {
		name   string
		layout keys.Layout
		want   Scale
	}{
		{"70B at T=32", llama70B, Scale{ModelledBlockBytes: 10 << 20, ProxyBlockBytes: 128, Ratio: 81920}},
		{"pages already small", engine.DefaultLayout(32), Scale{ModelledBlockBytes: 128, ProxyBlockBytes: 128, Ratio: 1}},
		{"two ranks, a small group and a replicated one", two, Scale{ModelledBlockBytes: 2*(4096+64) + 1024, ProxyBlockBytes: 2*(128+64) + 128, Ratio: 9344.0 / 512}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NewScale(tt.layout)
			if diff := cmp.Diff(tt.want, got, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Proxy" }, cmp.Ignore())); diff != "" {
				t.Errorf("NewScale(%v) differs (-want +got):\n%s", tt.layout, diff)
			}
			if got.Proxy.TokensPerBlock != tt.layout.TokensPerBlock || len(got.Proxy.LayerGroups) != len(tt.layout.LayerGroups) {
				t.Errorf("NewScale(%v).Proxy = %v, want the same T and layer groups", tt.layout, got.Proxy)
			}
		})
	}
}

func TestScaleKeepsBlocksAndLoadTime(t *testing.T) {
	s := NewScale(llama70B)
	const capacity = 5936 << 30
	if got, want := s.PoolBytes(capacity)/s.ProxyBlockBytes, s.Blocks(capacity); got != want {
		t.Errorf("proxy pool of %d bytes holds %d blocks, want the modelled %d", s.PoolBytes(capacity), got, want)
	}
	if got, want := s.Blocks(capacity), int64(607_846); got != want {
		t.Errorf("Blocks(5,936 GiB) = %d, want %d", got, want)
	}
	cfg := engine.Config{Keys: keys.Settings{Layout: llama70B}, GPU: engine.GPUConfig{Bytes: 320 << 30}}
	s.Apply(&cfg)
	modelled := float64(10<<20) / (engine.DefaultCosts().TransferGBps * 1e6)
	if got := float64(s.ProxyBlockBytes) / (cfg.Costs.TransferGBps * 1e6); got < modelled*0.999999 || got > modelled*1.000001 {
		t.Errorf("a proxy block's load costs %.6f ms, want the modelled 10 MiB's %.6f ms", got, modelled)
	}
	if got := cfg.GPU.Bytes / s.ProxyBlockBytes; got != 32768 {
		t.Errorf("320 GiB of GPU scaled holds %d proxy blocks, want 32768", got)
	}
	if cfg.Keys.Layout.LayerGroups[0].BytesPerPage != ProxyPageBytes || llama70B.LayerGroups[0].BytesPerPage != 10<<20 {
		t.Errorf("Apply: layout pages %d (modelled layout now %d), want %d and the modelled layout untouched",
			cfg.Keys.Layout.LayerGroups[0].BytesPerPage, llama70B.LayerGroups[0].BytesPerPage, ProxyPageBytes)
	}
}
