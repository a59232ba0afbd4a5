package engine

import (
	"errors"
	"testing"

	"github.com/kvctl/kvctl/connector"
)

func TestParseDisagg(t *testing.T) {
	tests := []struct {
		spec     string
		ctx, gen int
		ok       bool
	}{
		{"ctx=5,gen=1", 5, 1, true},
		{" gen=2 , ctx=3 ", 3, 2, true},
		{"ctx=1", 0, 0, false},
		{"ctx=0,gen=1", 0, 0, false},
		{"ctx=1,gen=1,ctx=2", 0, 0, false},
		{"ctx=1,gen=x", 0, 0, false},
		{"ctx=1,dec=1", 0, 0, false},
		{"ctx=1,gen=257", 0, 0, false},
		{"", 0, 0, false},
	}
	for _, tt := range tests {
		ctx, gen, err := ParseDisagg(tt.spec)
		if ctx != tt.ctx || gen != tt.gen || (err == nil) != tt.ok {
			t.Errorf("ParseDisagg(%q) = %d, %d, %v, want %d, %d, ok %v", tt.spec, ctx, gen, err, tt.ctx, tt.gen, tt.ok)
		}
	}
}

func FuzzParseDisagg(f *testing.F) {
	for _, s := range []string{"ctx=5,gen=1", "ctx=2,gen=2", "gen=1", "ctx=1,gen=1,", "ctx==1,gen=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		ctx, gen, err := ParseDisagg(spec)
		if err != nil {
			return
		}
		if ctx < 1 || gen < 1 || ctx > MaxDisaggServers || gen > MaxDisaggServers {
			t.Errorf("ParseDisagg(%q) = %d, %d, nil: outside 1..%d", spec, ctx, gen, MaxDisaggServers)
		}
	})
}

// TestDisaggConfigRefuses: settings a disaggregated run cannot take.
func TestDisaggConfigRefuses(t *testing.T) {
	tests := []struct {
		name  string
		tweak func(*Config)
	}{
		{"no generation server", func(c *Config) { c.Disagg.Generation = 0 }},
		{"error rate above 1", func(c *Config) { c.Disagg.ErrorRate = 1.5 }},
		{"negative delay", func(c *Config) { c.Disagg.Delay = -1 }},
		{"attention dp", func(c *Config) { c.AttentionDP = 2 }},
		{"async load", func(c *Config) { c.Connector.AsyncLoad = true }},
		{"consumer role", func(c *Config) { c.Connector.Role = connector.RoleConsumer }},
		{"routing one context server", func(c *Config) { c.Routing = RouteWorkAware }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Disagg: DisaggConfig{Context: 1, Generation: 1}}
			tt.tweak(&cfg)
			if err := cfg.Validate(); !errors.Is(err, ErrBadConfig) {
				t.Errorf("Validate() = %v, want ErrBadConfig", err)
			}
		})
	}
}

// TestDisaggGenerationReservation: generation servers reserve completion
// bounds unless it is turned off; context servers as configured.
func TestDisaggGenerationReservation(t *testing.T) {
	for _, off := range []bool{false, true} {
		cfg := Config{Disagg: DisaggConfig{Context: 1, Generation: 1, GenerationReservationOff: off}}
		gen, ctx := cfg.roleConfig(1, true), cfg.roleConfig(1, false)
		if gen.Scheduler.CompletionReservation == off || ctx.Scheduler.CompletionReservation {
			t.Errorf("off %v: generation reservation %v, context %v; want %v, false", off,
				gen.Scheduler.CompletionReservation, ctx.Scheduler.CompletionReservation, !off)
		}
	}
}
