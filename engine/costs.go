package engine

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// Costs are the modelled time of an iteration, in milliseconds:
// IterationMS + prefill tokens × PrefillTokenMS + decode requests ×
// DecodeTokenMS + bytes moved / (TransferGBps × 1e6). With attention DP
// or tensor parallelism a pass costs its slowest owner, so the figures are
// one owner's: one GPU. The defaults are ModelCosts's DefaultModel.
type Costs struct {
	// IterationMS is the fixed cost of a forward step (reading the
	// weights once).
	IterationMS float64 `json:"iteration_ms"`
	// PrefillTokenMS is the cost of each prompt token a pass computes.
	PrefillTokenMS float64 `json:"prefill_ms_per_token"`
	// DecodeTokenMS is the cost of each request a pass decodes a token
	// for (reading its KV).
	DecodeTokenMS float64 `json:"decode_ms_per_request"`
	// TransferGBps is the bandwidth between the pool and the GPU, for
	// loads and saves.
	TransferGBps float64 `json:"pool_link_gbps"`
}

// DefaultModel is the model whose costs a zero Costs takes.
const DefaultModel = "llama-3-8b"

// Presets of ModelCosts. Each models one H200 (NVIDIA's figures: 4.8 TB/s
// of HBM3e, 1,979 TFLOPS dense FP8) holding the whole model in FP8, with
// BF16 KV, at a 2,048-token context:
//   - a step reads the weights once: bytes / 4.8 TB/s;
//   - a prefill token costs 2 × parameters FLOPs at 800 TFLOPS (40% of
//     the FP8 peak);
//   - a decoding request reads its context's KV: 2,048 × KV bytes a token
//     / 4.8 TB/s;
//   - pool and GPU move pages at 25 GB/s (a PCIe 5 x16 link in practice).
//
// Llama-3-8B (8.0 B parameters; 32 layers × 8 KV heads × 128 dims × 2 × 2
// bytes = 128 KiB of KV a token): 1.7 ms (rounded to 2 for launches and
// sampling), 0.020 ms, 0.056 ms (0.05). Llama-3-70B (70.6 B parameters;
// 80 layers × 8 × 128 × 2 × 2 = 320 KiB a token, a 10 MiB block at
// T = 32): 14.7 ms (15), 0.18 ms, 0.14 ms.
var presets = map[string]Costs{
	"llama-3-8b":  {IterationMS: 2, PrefillTokenMS: 0.02, DecodeTokenMS: 0.05, TransferGBps: 25},
	"llama-3-70b": {IterationMS: 15, PrefillTokenMS: 0.18, DecodeTokenMS: 0.14, TransferGBps: 25},
}

// Models are the names ModelCosts knows, sorted.
func Models() []string { return slices.Sorted(maps.Keys(presets)) }

// ModelCosts returns the preset costs of a model by name (Models), or an
// error naming the ones it knows.
func ModelCosts(model string) (Costs, error) {
	c, ok := presets[model]
	if !ok {
		return Costs{}, fmt.Errorf("model %q: no preset costs (known: %s)", model, strings.Join(Models(), ", "))
	}
	return c, nil
}

// DefaultCosts returns the default Costs, DefaultModel's.
func DefaultCosts() Costs { return presets[DefaultModel] }

func (c Costs) validate() error {
	for _, f := range []struct {
		name  string
		value float64
	}{
		{"iteration_ms", c.IterationMS}, {"prefill_ms_per_token", c.PrefillTokenMS},
		{"decode_ms_per_request", c.DecodeTokenMS}, {"pool_link_gbps", c.TransferGBps},
	} {
		if math.IsNaN(f.value) || math.IsInf(f.value, 0) || f.value < 0 {
			return fmt.Errorf("costs: %s %v: want a finite number, not negative", f.name, f.value)
		}
	}
	if c.TransferGBps == 0 {
		return fmt.Errorf("costs: pool_link_gbps 0: the bandwidth must be positive")
	}
	return nil
}
