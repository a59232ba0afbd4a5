package engine

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestModelCosts(t *testing.T) {
	for _, model := range Models() {
		c, err := ModelCosts(model)
		if err != nil {
			t.Errorf("ModelCosts(%q) = %v", model, err)
			continue
		}
		if err := c.validate(); err != nil {
			t.Errorf("ModelCosts(%q) = %+v, which does not validate: %v", model, c, err)
		}
	}
	if got, want := DefaultCosts(), presets[DefaultModel]; got != want {
		t.Errorf("DefaultCosts() = %+v, want %s's %+v", got, DefaultModel, want)
	}
	small, _ := ModelCosts("llama-3-8b")
	large, _ := ModelCosts("llama-3-70b")
	if !(large.IterationMS > small.IterationMS && large.PrefillTokenMS > small.PrefillTokenMS && large.DecodeTokenMS > small.DecodeTokenMS) {
		t.Errorf("ModelCosts(llama-3-70b) = %+v, want every time above llama-3-8b's %+v", large, small)
	}
}

func TestModelCostsUnknown(t *testing.T) {
	_, err := ModelCosts("gpt-2")
	if err == nil || !strings.Contains(err.Error(), `"gpt-2"`) || !strings.Contains(err.Error(), "llama-3-70b") {
		t.Errorf("ModelCosts(gpt-2) = %v, want an error naming it and the known models", err)
	}
	if diff := cmp.Diff([]string{"llama-3-70b", "llama-3-8b"}, Models()); diff != "" {
		t.Errorf("Models() (-want +got):\n%s", diff)
	}
}

func TestCostsValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Costs)
		want string // "" for valid
	}{
		{"defaults", func(*Costs) {}, ""},
		{"free steps", func(c *Costs) { c.IterationMS, c.DecodeTokenMS = 0, 0 }, ""},
		{"negative prefill", func(c *Costs) { c.PrefillTokenMS = -1 }, "prefill_ms_per_token -1"},
		{"NaN step", func(c *Costs) { c.IterationMS = math.NaN() }, "iteration_ms NaN"},
		{"infinite decode", func(c *Costs) { c.DecodeTokenMS = math.Inf(1) }, "decode_ms_per_request +Inf"},
		{"no bandwidth", func(c *Costs) { c.TransferGBps = 0 }, "pool_link_gbps 0"},
		{"infinite bandwidth", func(c *Costs) { c.TransferGBps = math.Inf(1) }, "pool_link_gbps +Inf"},
	}
	for _, tt := range tests {
		c := DefaultCosts()
		tt.edit(&c)
		err := c.validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: validate() = %v, want nil", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: validate() = %v, want an error with %q", tt.name, err, tt.want)
		}
	}
}

// A run with no costs takes its model's preset, and its report names the
// model and the costs that timed it.
func TestRunReportsItsCosts(t *testing.T) {
	large, _ := ModelCosts("llama-3-70b")
	faster := large
	faster.IterationMS = 1
	tests := []struct {
		model     string
		costs     Costs
		wantModel string
		want      Costs
	}{
		{"", Costs{}, DefaultModel, DefaultCosts()},
		{"llama-3-70b", Costs{}, "llama-3-70b", large},
		{"llama-3-70b", faster, "llama-3-70b", faster},
	}
	for _, tt := range tests {
		cfg, _ := testConfig(t)
		cfg.Model, cfg.Costs = tt.model, tt.costs
		rep := runOK(t, cfg, testWorkload)
		if rep.Model != tt.wantModel || rep.Costs != tt.want {
			t.Errorf("Run(model %q, costs %+v): report model %q, costs %+v; want %q, %+v", tt.model, tt.costs, rep.Model, rep.Costs, tt.wantModel, tt.want)
		}
	}
	cfg, _ := testConfig(t)
	cfg.Model = "gpt-2"
	if _, err := Run(context.Background(), cfg, testWorkload, nil); err == nil || !strings.Contains(err.Error(), `"gpt-2"`) {
		t.Errorf("Run(model gpt-2) = %v, want an error naming the model", err)
	}
}
