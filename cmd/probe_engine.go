package cmd

import (
	"fmt"

	"github.com/kvctl/kvctl/keys"
)

// checkProbeSettings refuses a probe of a pool that s cannot key: an
// engine without pool keys (Dynamo's router), or no model key where the
// engine's keys contain one (all but SGLang's, whose model prefix is
// optional).
func checkProbeSettings(s keys.Settings) error {
	if !keys.EngineHasKeys(s.Engine) {
		return usagef("--engine %s: its router keeps no pool, so its blocks have no keys to probe", s.Engine)
	}
	if s.Namespace.ModelKey == "" && s.Engine != keys.EngineSGLang {
		return usagef("--model-key is required to probe a pool (page keys contain it)")
	}
	return nil
}

// probedLayout names what a probe keyed: TensorRT-LLM's layout, or the
// engine, its block size and TP size.
func probedLayout(s keys.Settings) string {
	if s.IsTRTLLM() {
		return s.Layout.String()
	}
	return fmt.Sprintf("engine %s t%d world %d", s.Engine, s.BlockTokens(), s.Layout.World)
}
