package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kvctl/kvctl/keys"
)

// engineKeysResult is the JSON shape of one prompt's blocks under an
// engine other than TensorRT-LLM (docs/json.md).
type engineKeysResult struct {
	ID             string            `json:"id,omitempty"`
	Engine         keys.Engine       `json:"engine"`
	TokensPerBlock int               `json:"tokens_per_block"`
	NumTokens      int               `json:"num_tokens"`
	NumBlocks      int               `json:"num_blocks"`
	Blocks         []engineKeysBlock `json:"blocks"`
}

// engineKeysBlock is one block of an engineKeysResult: hash as the engine
// spells it, hash_u64 the integer its KV events carry, block_hash
// Dynamo's local hash, page_keys its pool keys.
type engineKeysBlock struct {
	Index     int         `json:"index"`
	Start     int         `json:"start"`
	End       int         `json:"end"`
	Hash      string      `json:"hash"`
	HashU64   json.Number `json:"hash_u64"`
	BlockHash string      `json:"block_hash,omitempty"`
	PageKeys  []string    `json:"page_keys,omitempty"`
}

// isOtherEngine reports whether s keys an engine other than TensorRT-LLM.
func isOtherEngine(s keys.Settings) bool { return !s.IsTRTLLM() }

// spellsEngineKeys reports whether pool keys are spelled: the engine has
// a pool and a model key is given (SGLang's model prefix is optional).
func spellsEngineKeys(s keys.Settings) bool {
	return keys.EngineHasKeys(s.Engine) && (s.Namespace.ModelKey != "" || s.Engine == keys.EngineSGLang)
}

// engineResult spells one prompt's blocks under the engine, with their
// pool keys where the engine has them.
func engineResult(s keys.Settings, req keys.Request, blocks []keys.EngineBlock) engineKeysResult {
	r := engineKeysResult{ID: req.ID, Engine: s.Engine, TokensPerBlock: s.BlockTokens(), NumTokens: len(req.Tokens),
		NumBlocks: len(blocks), Blocks: make([]engineKeysBlock, len(blocks))}
	for i, b := range blocks {
		eb := engineKeysBlock{Index: i, Start: b.Start, End: b.End, Hash: b.Hash, HashU64: json.Number(b.EventHash), BlockHash: b.LocalHash}
		if spellsEngineKeys(s) {
			eb.PageKeys = s.AppendEngineKeys(nil, b)
		}
		r.Blocks[i] = eb
	}
	return r
}

// engineRendered is one prompt's output, rendered on a hashing worker:
// bytes to write (-o keys, jsonl) or a result to collect (table, json).
type engineRendered struct {
	out    []byte
	result *engineKeysResult
}

// engineRenderer returns how a hashed prompt is rendered for an output
// format.
func engineRenderer(s keys.Settings, output string) func(keys.Request, []keys.EngineBlock) engineRendered {
	return func(req keys.Request, blocks []keys.EngineBlock) engineRendered {
		r := engineResult(s, req, blocks)
		switch output {
		case "keys":
			return engineRendered{out: appendEngineKeyLines(nil, r)}
		case "jsonl":
			var b bytes.Buffer
			_ = writeJSONLine(&b, r)
			return engineRendered{out: b.Bytes()}
		}
		return engineRendered{result: &r}
	}
}

// runEngineKeys prints the keys of the prompts of source under an engine
// other than TensorRT-LLM, hashed in parallel over the cores
// (keys.HashEngineRequests) and printed in input order: -o keys and jsonl
// as they come, table and json at the end.
func runEngineKeys(ctx context.Context, ios *IOStreams, output string, s keys.Settings, source func(yield func(keys.Request) error) error) error {
	var results []engineKeysResult
	merged := func(yield func(keys.Request) error) error {
		return source(func(req keys.Request) error {
			req.Scope = mergeScope(s.Scope, req.Scope)
			return yield(req)
		})
	}
	emit := func(r engineRendered) error {
		if r.result == nil {
			_, err := ios.Out.Write(r.out)
			return err
		}
		results = append(results, *r.result)
		return nil
	}
	if err := keys.HashEngineRequests(ctx, s, 0, merged, engineRenderer(s, output), emit); err != nil {
		return err
	}
	return printEngineResults(ios, output, results)
}

// mergeScope gives a request without a lora_name the --lora-name of the
// flags: a request's own lora_name wins.
func mergeScope(flags, req keys.Scope) keys.Scope {
	if req.LoRAName == "" {
		req.LoRAName = flags.LoRAName
	}
	return req
}

// printEngineResults prints what runEngineKeys gathered: one prompt's
// table or JSON object, or a list of them.
func printEngineResults(ios *IOStreams, output string, rs []engineKeysResult) error {
	switch {
	case output == "json" && len(rs) == 1 && rs[0].ID == "":
		return writeJSON(ios.Out, rs[0])
	case output == "json":
		if rs == nil {
			rs = []engineKeysResult{}
		}
		return writeJSON(ios.Out, rs)
	case output == "table":
		return printEngineTable(ios, rs)
	}
	return nil
}

// appendEngineKeyLines appends one pool key per line.
func appendEngineKeyLines(dst []byte, r engineKeysResult) []byte {
	for _, b := range r.Blocks {
		for _, k := range b.PageKeys {
			dst = append(append(dst, k...), '\n')
		}
	}
	return dst
}

// printEngineTable prints every prompt's blocks, then a summary line each.
func printEngineTable(ios *IOStreams, rs []engineKeysResult) error {
	for _, r := range rs {
		tp := newTablePrinter(ios, "block", "tokens", "hash", "hash_u64", "keys")
		for _, b := range r.Blocks {
			tp.addRow(b.Index, fmt.Sprintf("%d-%d", b.Start, b.End), b.Hash, string(b.HashU64), strings.Join(b.PageKeys, " "))
		}
		if err := tp.render(); err != nil {
			return err
		}
		id := ""
		if r.ID != "" {
			id = r.ID + ": "
		}
		if _, err := fmt.Fprintf(ios.Out, "%sengine %s, %d tokens, %d blocks of %d\n", id, r.Engine, r.NumTokens, r.NumBlocks, r.TokensPerBlock); err != nil {
			return err
		}
	}
	return nil
}

// checkEngineKeys refuses -o keys where no pool keys are spelled, and
// notes a missing model key.
func (o *keysOptions) checkEngineKeys(ios *IOStreams, g *globalOptions, s keys.Settings) error {
	switch {
	case !keys.EngineHasKeys(s.Engine) && g.Output == "keys":
		return usagef("-o keys: %s's router keeps no pool, so its blocks have no pool keys", s.Engine)
	case !spellsEngineKeys(s) && g.Output == "keys":
		return usagef("-o keys needs --model-key: %s's keys contain the model", s.Engine)
	case keys.EngineHasKeys(s.Engine) && !spellsEngineKeys(s) && !g.Quiet:
		fmt.Fprintln(ios.ErrOut, "note: no --model-key: printing block hashes only (key strings need the model key)")
	}
	return nil
}

// runEngine reads the prompts of --tokens, --requests or --trace and
// prints their keys under an engine other than TensorRT-LLM.
func (o *keysOptions) runEngine(ctx context.Context, ios *IOStreams, g *globalOptions, s keys.Settings) error {
	if o.Requests != "" || o.Trace != "" {
		source, closeSource, err := o.requests(ios)
		if err != nil {
			return err
		}
		defer closeSource()
		return runEngineKeys(ctx, ios, g.Output, s, source)
	}
	format, err := keys.ParseTokensFormat(o.TokensFormat)
	if err != nil {
		return asUsage(fmt.Errorf("--tokens-format: %w", err))
	}
	name, r, err := openInput(ios, o.Tokens)
	if err != nil {
		return asUsage(fmt.Errorf("--tokens: %w", err))
	}
	defer r.Close()
	tokens, err := keys.ReadTokens(r, name, format)
	if err != nil {
		return err
	}
	one := func(yield func(keys.Request) error) error {
		return yield(keys.Request{Scope: s.Scope, Tokens: tokens})
	}
	return runEngineKeys(ctx, ios, g.Output, s, one)
}
