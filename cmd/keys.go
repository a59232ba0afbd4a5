package cmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/workload"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type keysOptions struct {
	Tokens       string
	TokensFormat string
	Requests     string
	Trace        string
	TraceFormat  string
	Diff         []string
	Key          keyFlags
}

func newKeysCmd(ios *IOStreams, g *globalOptions) *cobra.Command {
	opts := &keysOptions{}
	c := &cobra.Command{
		Use:   "keys (--tokens FILE|- | --requests FILE | --trace FILE) [flags]",
		Short: "Compute the pool block keys TensorRT-LLM's Mooncake-store connector uses for a prompt",
		Long: `Compute the block hashes and pool page keys that TensorRT-LLM's Mooncake-store
connector writes and looks up for a prompt, byte for byte: scheme, scope (cache
salt, LoRA task, multimodal items), prompt lookahead, TP and attention-DP shards,
layer groups and eviction group keys.

Tokens come from --tokens (a JSON array, whitespace- or comma-separated integers,
or raw little-endian int64 with --tokens-format i64; "-" reads stdin) or from a
requests file (--requests, JSONL: {"id", "tokens", "cache_salt", "lora_task_id",
"lora_name", "multimodal_hashes"} per line) or a trace (--trace: kvctl JSONL or a Mooncake
FAST'25 trace, whose tokens are synthesised per 512-token block from its hash
ids, as holes and serve synthesise them), processed in parallel and printed in
input order.

Without --model-key only block hashes are printed: key strings need the model key.
Blocks the connector would offer (all but the block holding the last prompt token)
are marked in the table.

The first segment of every key is the Mooncake config's namespace, read as
TensorRT-LLM reads it: absent is trtllm, "" an empty segment ("/model/..."), null
the string None. Under --scheme trtllm-fork and trtllm-legacy it is the config's
cache_prefix instead, and a non-empty $TRTLLM_MOONCAKE_STORE_PREFIX wins over it.
--namespace wins over all of them.

Reconstructed, not from public code: the framed scope seed combined with prompt
lookahead (scheme trtllm, TensorRT-LLM PR #21195, whose code is not public: the
public builds have either the framed scope without lookahead or lookahead with
the fork's seed), the eviction group key spelling (--group-keys), and the prompt
lookahead derived from --llm-config's speculative_config. See docs/keys.md.

--engine computes the keys of the other engines that share Mooncake pools
instead: vllm (prefix-cache block hashes, MooncakeStoreConnector keys; needs
--hash-seed), lmcache (chunk hashes, CacheEngineKey; needs --hash-seed), sglang
(HiCache page hashes and keys) and dynamo (KV-router block and sequence hashes,
no pool keys). Multimodal items are refused. See docs/keys.md, Engines.

--diff A --diff B compares two settings on the --tokens prompt, each a quoted
string of key flags added to the ones given outside --diff: it prints the inputs
that differ and the first block whose hash or pool keys differ, with each side's
(why two instances do not share). Output: table or json.

Output: table (default), json, jsonl (one object per request), keys (one page key
per line, to pipe into other tools).

Exit codes: 2 for bad flags or unreadable/invalid input.`,
		Example: `$ kvctl keys --tokens testdata/prompt-64.json --tokens-per-block 16 --model-key m
$ seq 0 63 | kvctl keys --tokens - --tokens-per-block 16 --model-key m -o keys
$ kvctl keys --requests testdata/requests.jsonl --tokens-per-block 32 --model-key m --tp 4 --all-ranks -o jsonl
$ kvctl keys --engine vllm --hash-seed 0 --tokens testdata/prompt-64.json --tokens-per-block 16 --model-key meta-llama/Llama-3.1-8B-Instruct
$ kvctl keys --tokens testdata/prompt-64.json --tokens-per-block 16 --model-key m --diff "--engine vllm --hash-seed 0" --diff "--engine vllm --hash-seed 1"`,
		Args: noArgsAfterOldADP(&opts.Key.AttentionDP),
		RunE: func(c *cobra.Command, _ []string) error {
			if c.Flags().Changed("diff") {
				if err := opts.validateDiff(g); err != nil {
					return err
				}
				return opts.runDiff(c.Context(), c, ios, g)
			}
			setup, err := opts.validate(c, ios, g)
			if err != nil {
				return err
			}
			return runKeys(c.Context(), ios, g, opts, setup)
		},
	}
	fs := c.Flags()
	fs.StringVar(&opts.Tokens, "tokens", "", "prompt token ids: a file or - for stdin")
	fs.StringVar(&opts.TokensFormat, "tokens-format", "auto", "token input format: auto, json, text or i64 (raw little-endian int64)")
	fs.StringVar(&opts.Requests, "requests", "", "requests file (JSONL, one request a line)")
	fs.StringVar(&opts.Trace, "trace", "", "trace file: kvctl JSONL or a Mooncake FAST'25 trace")
	fs.StringVar(&opts.TraceFormat, "trace-format", "auto", "format of --trace: auto, kvctl or mooncake")
	fs.StringArrayVar(&opts.Diff, "diff", nil, "compare two settings on the --tokens prompt: give it twice, each a quoted string of key flags (e.g. --diff \"--engine vllm --hash-seed 0\" --diff \"--engine vllm --hash-seed 1\"); the other key flags apply to both")
	registerKeySettingFlags(fs, &opts.Key)
	return c
}

// registerKeySettingFlags registers the flags that decide a prompt's keys
// under kvctl keys: the key flags and the engine flags (also each side of
// --diff).
func registerKeySettingFlags(fs *pflag.FlagSet, k *keyFlags) {
	k.register(fs, true)
	k.Engines.register(fs)
}

// validateDiff checks --diff: two sides, one --tokens prompt, table or
// JSON output.
func (o *keysOptions) validateDiff(g *globalOptions) error {
	if err := g.checkOutput("table", "json"); err != nil {
		return err
	}
	if len(o.Diff) != 2 {
		return usagef("--diff compares two settings: give it twice, e.g. --diff \"--hash-seed 0\" --diff \"--hash-seed 1\" (got %d)", len(o.Diff))
	}
	if o.Tokens == "" || o.Requests != "" || o.Trace != "" {
		return usagef("--diff compares the keys of one prompt: give it with --tokens")
	}
	return nil
}

func (o *keysOptions) validate(c *cobra.Command, ios *IOStreams, g *globalOptions) (keysSpelling, error) {
	if err := g.checkOutput("table", "json", "jsonl", "keys"); err != nil {
		return keysSpelling{}, err
	}
	if given := countNonEmpty(o.Tokens, o.Requests, o.Trace); given != 1 {
		return keysSpelling{}, usagef("give exactly one of --tokens, --requests or --trace")
	}
	if g.Output == "jsonl" && o.Tokens != "" {
		return keysSpelling{}, usagef("-o jsonl is for --requests and --trace (one object per request); use -o json with --tokens")
	}
	if err := refuseTrace(o.Requests); o.Requests != "" && err != nil {
		return keysSpelling{}, err
	}
	s, err := o.Key.resolve(c, ios.Getenv)
	if err != nil {
		return keysSpelling{}, err
	}
	if isOtherEngine(s) {
		return newKeysSpelling(s, false), o.checkEngineKeys(ios, g, s)
	}
	if s.Namespace.ModelKey == "" {
		if g.Output == "keys" {
			return keysSpelling{}, usagef("-o keys needs --model-key (or model_key in --mooncake-config): key strings contain it")
		}
		if !g.Quiet {
			fmt.Fprintln(ios.ErrOut, "note: no --model-key: printing block hashes only (key strings need the model key)")
		}
	}
	return newKeysSpelling(s, o.Key.GroupKeys), nil
}

func runKeys(ctx context.Context, ios *IOStreams, g *globalOptions, o *keysOptions, sp keysSpelling) error {
	if isOtherEngine(sp.Settings) {
		return o.runEngine(ctx, ios, g, sp.Settings)
	}
	if o.Requests != "" || o.Trace != "" {
		source, closeSource, err := o.requests(ios)
		if err != nil {
			return err
		}
		defer closeSource()
		return runKeysRequests(ctx, ios, g, source, sp)
	}
	_, tokens, err := readTokensFlag(ios, o.Tokens, o.TokensFormat)
	if err != nil {
		return err
	}
	res, err := computeKeys(sp, tokens)
	if err != nil {
		return err
	}
	switch g.Output {
	case "json":
		return writeJSON(ios.Out, res)
	case "keys":
		_, err := ios.Out.Write(appendKeyLines(nil, res))
		return err
	}
	return printKeysTable(ios, res)
}

// requests opens --requests or --trace as a source of requests for
// keys.HashRequests, and a function that closes it.
func (o *keysOptions) requests(ios *IOStreams) (func(yield func(keys.Request) error) error, func(), error) {
	if o.Trace != "" {
		src, err := workload.Open(o.Trace, o.TraceFormat)
		if err != nil {
			return nil, nil, asUsage(fmt.Errorf("--trace: %w", err))
		}
		return traceSource(src), func() {}, nil
	}
	name, r, err := openInput(ios, o.Requests)
	if err != nil {
		return nil, nil, asUsage(fmt.Errorf("--requests: %w", err))
	}
	return requestsSource(r, name), func() { r.Close() }, nil
}

// countNonEmpty counts the strings that are not empty.
func countNonEmpty(values ...string) int {
	n := 0
	for _, v := range values {
		if v != "" {
			n++
		}
	}
	return n
}

// runKeysRequests hashes requests in parallel over the cores
// (keys.HashRequests) and prints them in input order: -o keys and jsonl as
// they come, table and json at the end.
func runKeysRequests(ctx context.Context, ios *IOStreams, g *globalOptions, source func(yield func(keys.Request) error) error, sp keysSpelling) error {
	var results []keysResult
	var lines sync.Pool // -o keys: buffers written, for the next requests' lines
	emit := func(k keysRendered) error {
		if k.result == nil {
			_, err := ios.Out.Write(k.out)
			if g.Output == "keys" {
				lines.Put(&k.out)
			}
			return err
		}
		results = append(results, *k.result)
		return nil
	}
	if err := keys.HashRequests(ctx, sp.Settings, 0, source, sp.renderer(g.Output, &lines), emit); err != nil {
		return err
	}
	switch g.Output {
	case "json":
		if results == nil {
			results = []keysResult{}
		}
		return writeJSON(ios.Out, results)
	case "table":
		return printRequestsTable(ios, results)
	}
	return nil
}

// requestsSource reads a requests file for keys.HashRequests (a bad line
// is workload.ErrBadInput, exit 2; a failed read exits 1).
// Each request's tokens go back to the reader once hashed, for the
// requests after it (workload.TokenBuffers).
func requestsSource(r io.Reader, name string) func(yield func(keys.Request) error) error {
	return func(yield func(keys.Request) error) error {
		bufs := workload.NewTokenBuffers()
		return workload.ReadRequestsInto(r, name, bufs, func(_ int, req workload.Request) error {
			return yield(keys.Request{ID: req.ID, Scope: req.Scope(), Tokens: req.Tokens, Release: bufs.Give})
		})
	}
}

// traceSource reads a trace (kvctl request lines, or a Mooncake trace
// whose tokens are synthesised) for keys.HashRequests; a bad record is
// workload.ErrBadInput (exit 2).
// Each request's tokens go back to the source once hashed, for the
// requests after it (workload.TokenBuffers).
func traceSource(src *workload.FileSource) func(yield func(keys.Request) error) error {
	return func(yield func(keys.Request) error) error {
		bufs := workload.NewTokenBuffers()
		src.Tokens = bufs
		return src.Each(func(req workload.Request) error {
			return yield(keys.Request{ID: req.ID, Scope: req.Scope(), Tokens: req.Tokens, Release: bufs.Give})
		})
	}
}

// keysRendered is one request's output, rendered on a hashing worker:
// bytes to write (-o keys, jsonl) or a result to collect (table, json).
type keysRendered struct {
	out    []byte
	result *keysResult
}

// renderer returns how a hashed request is rendered for an output format;
// -o keys renders into a buffer of lines when it has one (a *[]byte),
// which saves zeroing and faulting in fresh memory for every request.
func (sp keysSpelling) renderer(output string, lines *sync.Pool) func(keys.Request, *keys.Chain) keysRendered {
	switch output {
	case "keys":
		return func(_ keys.Request, c *keys.Chain) keysRendered {
			var buf []byte
			if b, ok := lines.Get().(*[]byte); ok {
				buf = (*b)[:0]
			}
			return keysRendered{out: sp.appendChainKeys(buf, c)}
		}
	case "jsonl":
		return func(req keys.Request, c *keys.Chain) keysRendered {
			var b bytes.Buffer
			_ = writeJSONLine(&b, sp.result(req.ID, len(req.Tokens), c))
			return keysRendered{out: b.Bytes()}
		}
	case "table":
		return func(req keys.Request, c *keys.Chain) keysRendered {
			r := keysSummary(sp.TokensPerBlock(), req.ID, len(req.Tokens), c)
			return keysRendered{result: &r}
		}
	}
	return func(req keys.Request, c *keys.Chain) keysRendered {
		r := sp.result(req.ID, len(req.Tokens), c)
		return keysRendered{result: &r}
	}
}
