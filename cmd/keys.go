package cmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/workload"
	"github.com/spf13/cobra"
)

type keysOptions struct {
	Tokens       string
	TokensFormat string
	Requests     string
	Key          keyFlags
}

func newKeysCmd(ios *IOStreams, g *globalOptions) *cobra.Command {
	opts := &keysOptions{}
	c := &cobra.Command{
		Use:   "keys (--tokens FILE|- | --requests FILE) --tokens-per-block T [flags]",
		Short: "Compute the pool block keys TensorRT-LLM's Mooncake-store connector uses for a prompt",
		Long: `Compute the block hashes and pool page keys that TensorRT-LLM's Mooncake-store
connector writes and looks up for a prompt, byte for byte: scheme, scope (cache
salt, LoRA task, multimodal items), prompt lookahead, TP and attention-DP shards,
layer groups and eviction group keys.

Tokens come from --tokens (a JSON array, whitespace- or comma-separated integers,
or raw little-endian int64 with --tokens-format i64; "-" reads stdin) or from a
requests file (--requests, JSONL: {"id", "tokens", "cache_salt", "lora_task_id",
"multimodal_hashes"} per line), processed in parallel and printed in input order.

Without --model-key only block hashes are printed: key strings need the model key.
Blocks the connector would offer (all but the block holding the last prompt token)
are marked in the table.

Output: table (default), json, jsonl (one object per request), keys (one page key
per line, to pipe into other tools).

Exit codes: 2 for bad flags or unreadable/invalid input.`,
		Example: `$ kvctl keys --tokens testdata/prompt-64.json --tokens-per-block 16 --model-key m
$ seq 0 63 | kvctl keys --tokens - --tokens-per-block 16 --model-key m -o keys
$ kvctl keys --requests testdata/requests.jsonl --tokens-per-block 32 --model-key m --tp 4 --all-ranks -o jsonl`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
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
	opts.Key.register(fs, true)
	return c
}

func (o *keysOptions) validate(c *cobra.Command, ios *IOStreams, g *globalOptions) (keySetup, error) {
	if err := g.checkOutput("table", "json", "jsonl", "keys"); err != nil {
		return keySetup{}, err
	}
	if (o.Tokens == "") == (o.Requests == "") {
		return keySetup{}, usagef("give exactly one of --tokens or --requests")
	}
	if g.Output == "jsonl" && o.Requests == "" {
		return keySetup{}, usagef("-o jsonl is for --requests (one object per request); use -o json with --tokens")
	}
	setup, err := o.Key.resolve(c, ios.Getenv)
	if err != nil {
		return setup, err
	}
	if setup.Namespace.ModelKey == "" {
		if g.Output == "keys" {
			return setup, usagef("-o keys needs --model-key (or model_key in --mooncake-config): key strings contain it")
		}
		if !g.Quiet {
			fmt.Fprintln(ios.ErrOut, "note: no --model-key: printing block hashes only (key strings need the model key)")
		}
	}
	return setup, nil
}

func runKeys(ctx context.Context, ios *IOStreams, g *globalOptions, o *keysOptions, s keySetup) error {
	if o.Requests != "" {
		return runKeysRequests(ctx, ios, g, o.Requests, s)
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
		return asUsage(err)
	}
	res, err := computeKeys(s, "", s.Scope, tokens)
	if err != nil {
		return asUsage(err)
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

// keysBatchSize is the number of requests a worker hashes together: the
// chains of a batch are hashed several at a time (keys.ExtendAll).
const keysBatchSize = 16

// keysJob is a batch of requests on its way through the workers.
type keysJob struct {
	seq  int
	reqs []workload.Request
	out  chan keysDone
}

type keysDone struct {
	out []byte
	err error
}

// runKeysRequests hashes requests in parallel over the cores and prints
// them in input order.
func runKeysRequests(ctx context.Context, ios *IOStreams, g *globalOptions, path string, s keySetup) error {
	name, r, err := openInput(ios, path)
	if err != nil {
		return asUsage(fmt.Errorf("--requests: %w", err))
	}
	defer r.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan keysJob, 8)
	order := make(chan chan keysDone, 64)
	var table []keysResult
	render := keysRenderer(s, g.Output, &table)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() { keysWorker(s, jobs, render) })
	}
	readErr := make(chan error, 1)
	go func() {
		defer close(order)
		defer close(jobs)
		readErr <- feedKeysJobs(ctx, r, name, jobs, order)
	}()
	werr := writeInOrder(ios.Out, order)
	cancel()
	for range order {
	}
	wg.Wait()
	if err := <-readErr; err != nil && werr == nil {
		werr = err
	}
	if werr != nil {
		return werr
	}
	return finishKeysOutput(ios, g.Output, table)
}

// feedKeysJobs reads requests and hands them to the workers in batches,
// queueing each batch's result channel in input order.
func feedKeysJobs(ctx context.Context, r io.Reader, name string, jobs chan<- keysJob, order chan<- chan keysDone) error {
	seq := 0
	var batch []workload.Request
	send := func() error {
		done := make(chan keysDone, 1)
		select {
		case order <- done:
		case <-ctx.Done():
			return ctx.Err()
		}
		select {
		case jobs <- keysJob{seq: seq, reqs: batch, out: done}:
		case <-ctx.Done():
			return ctx.Err()
		}
		seq += len(batch)
		batch = nil
		return nil
	}
	err := workload.ReadRequests(r, name, func(line int, req workload.Request) error {
		batch = append(batch, req)
		if len(batch) == keysBatchSize {
			return send()
		}
		return nil
	})
	if err == nil && len(batch) > 0 {
		err = send()
	}
	return asUsage(err)
}

func keysWorker(s keySetup, jobs <-chan keysJob, render keysRenderFunc) {
	for j := range jobs {
		chains := make([]*keys.Chain, len(j.reqs))
		tokens := make([][]int64, len(j.reqs))
		var err error
		for i, req := range j.reqs {
			if chains[i], err = newKeysChain(s, req.Scope()); err != nil {
				err = asUsage(fmt.Errorf("request %q: %w", req.ID, err))
				break
			}
			tokens[i] = req.Tokens
		}
		if err != nil {
			j.out <- keysDone{err: err}
			continue
		}
		keys.ExtendAll(chains, tokens)
		var out []byte
		for i, req := range j.reqs {
			out = render(out, j.seq+i, hashedPrompt{id: req.ID, numTokens: len(req.Tokens), chain: chains[i]})
		}
		j.out <- keysDone{out: out}
	}
}

// writeInOrder writes each job's output as it completes, in submission order.
func writeInOrder(w io.Writer, order <-chan chan keysDone) error {
	for done := range order {
		d := <-done
		if d.err != nil {
			return d.err
		}
		if _, err := w.Write(d.out); err != nil {
			return err
		}
	}
	return nil
}

// hashedPrompt is one request after hashing.
type hashedPrompt struct {
	id        string
	numTokens int
	chain     *keys.Chain
}

// keysRenderFunc appends a hashed prompt's output to dst; seq is its input
// position.
type keysRenderFunc func(dst []byte, seq int, p hashedPrompt) []byte

// keysRenderer returns the renderer for an output format: keys and jsonl
// stream; table and json collect results (in any order, sorted later).
func keysRenderer(s keySetup, output string, collected *[]keysResult) keysRenderFunc {
	bk := keysSpeller(s)
	switch output {
	case "keys":
		return func(dst []byte, _ int, p hashedPrompt) []byte { return appendChainKeyLines(dst, s, bk, p.chain) }
	case "jsonl":
		return func(dst []byte, _ int, p hashedPrompt) []byte {
			var b bytes.Buffer
			_ = writeJSONLine(&b, keysFromChain(s, bk, p.id, p.numTokens, p.chain))
			return append(dst, b.Bytes()...)
		}
	}
	var mu sync.Mutex
	return func(dst []byte, seq int, p hashedPrompt) []byte {
		var r keysResult
		if output == "table" {
			r = keysSummary(s, p)
		} else {
			r = keysFromChain(s, bk, p.id, p.numTokens, p.chain)
		}
		r.seq = seq
		mu.Lock()
		*collected = append(*collected, r)
		mu.Unlock()
		return dst
	}
}

func finishKeysOutput(ios *IOStreams, output string, results []keysResult) error {
	switch output {
	case "json":
		sortKeysResults(results)
		if results == nil {
			results = []keysResult{}
		}
		return writeJSON(ios.Out, results)
	case "table":
		sortKeysResults(results)
		return printRequestsTable(ios, results)
	}
	return nil
}
