package cmd

import (
	"fmt"
	"strings"

	"github.com/kvctl/kvctl/engine"
	"github.com/spf13/pflag"
)

// costFlags are serve's flags of the modelled model's costs
// (engine.Costs): a preset by model name, each field overridable.
type costFlags struct {
	Model string
	Costs engine.Costs
	fs    *pflag.FlagSet
}

// The flags that override one field of the preset.
const (
	flagIterationMS  = "iteration-ms"
	flagPrefillMS    = "prefill-ms-per-token"
	flagDecodeMS     = "decode-ms-per-request"
	flagPoolLinkGBps = "pool-link-gbps"
)

func (f *costFlags) register(fs *pflag.FlagSet) {
	f.fs = fs
	fs.StringVar(&f.Model, "model", engine.DefaultModel, "the modelled model, whose preset costs time each pass: "+strings.Join(engine.Models(), " or ")+" (one H200 each, FP8 weights: docs/serve.md)")
	fs.Float64Var(&f.Costs.IterationMS, flagIterationMS, 0, "modelled ms of a forward step, beside its tokens (default: --model's)")
	fs.Float64Var(&f.Costs.PrefillTokenMS, flagPrefillMS, 0, "modelled ms of each prompt token a pass computes (default: --model's)")
	fs.Float64Var(&f.Costs.DecodeTokenMS, flagDecodeMS, 0, "modelled ms of each request a pass decodes a token for (default: --model's)")
	fs.Float64Var(&f.Costs.TransferGBps, flagPoolLinkGBps, 0, "modelled GB/s between pool and GPU for loads and saves (default: --model's)")
}

// costs returns --model's preset with the fields a flag gave replaced
// (engine.Config checks them).
func (f *costFlags) costs() (engine.Costs, error) {
	c, err := engine.ModelCosts(f.Model)
	if err != nil {
		return c, usagef("--model: %w", err)
	}
	for _, o := range []struct {
		name  string
		field *float64
		value float64
	}{
		{flagIterationMS, &c.IterationMS, f.Costs.IterationMS}, {flagPrefillMS, &c.PrefillTokenMS, f.Costs.PrefillTokenMS},
		{flagDecodeMS, &c.DecodeTokenMS, f.Costs.DecodeTokenMS}, {flagPoolLinkGBps, &c.TransferGBps, f.Costs.TransferGBps},
	} {
		if f.fs != nil && f.fs.Changed(o.name) {
			*o.field = o.value
		}
	}
	return c, nil
}

// costsNote names the model and its costs, for a table's note.
func costsNote(model string, c engine.Costs) string {
	return fmt.Sprintf("%s costs: %g ms a step, %g ms a prefill token, %g ms a decoding request, %g GB/s pool link",
		model, c.IterationMS, c.PrefillTokenMS, c.DecodeTokenMS, c.TransferGBps)
}
