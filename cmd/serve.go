package cmd

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/report"
	"github.com/kvctl/kvctl/server"
	"github.com/kvctl/kvctl/workload"
	"github.com/spf13/cobra"
)

// serveOptions are serve's flags. Those of the engine bind straight to the
// fields of Engine; the others are the command's own, or text parsed into
// Engine (sizes, milliseconds, --admission-query) by config.
type serveOptions struct {
	SingleRank  bool
	Trace       string
	TraceFormat string
	Synthetic   string
	Pool        poolFlag
	Keep        bool
	Addr        string
	RealTime    bool
	APIKey      string
	Key         keyFlags
	Engine      engine.Config
	Disagg      disaggFlags

	Device         string
	Copy           string
	GPUBytes       string
	StagingBytes   string
	SoftPinTTLMS   int64
	Verify         bool
	NoVerify       bool // deprecated spelling of --verify=false
	AdmissionQuery string
	DisaggServers  string // --disagg ctx=N,gen=M
	GenReservation bool
	// KVTransfer is the KV transfer of a --server-role server.
	KVTransfer    server.KVTransferOptions
	PoolSeed      uint64
	WriteRequests string // the file the replayed requests are written to
	Plot          plotFlag
	Sweep         serveSweep
	Costs         costFlags
}

func newServeCmd(ios *IOStreams, g *globalOptions) *cobra.Command {
	o := &serveOptions{}
	c := &cobra.Command{
		Use:   "serve --single-rank [--trace FILE | --synthetic SPEC | --addr HOST:PORT] [flags]",
		Short: "Run the connector + scheduler loop embedded, replaying a trace with every loaded byte verified",
		Long: `Run, in one process and without GPUs or a model, the loop a TensorRT-LLM server
runs around its Mooncake-store connector: a KV cache manager with local prefix
reuse, an FCFS scheduler with chunked prefill, the connector's scheduler half
(lookups, offers, saves of computed blocks only) and worker half (loads and
saves against the pool), and a synthetic model whose pages are a function of
their block's hash chain. Every page loaded from the pool is compared with the
bytes the model computes for it. Time is modelled (virtual), so an hour of
traffic replays as fast as the CPU allows.

Requests: --trace FILE (kvctl requests JSONL, or a Mooncake FAST'25 trace) or
--synthetic conversations=200,turns=6,system=2048,user=512,output=256. Without
either, serve listens on --addr: POST /v1/completions and /v1/chat/completions
(OpenAI subsets, streaming one chunk per token), GET /v1/models, /healthz,
/metrics, and the Mooncake master admin paths over its pool, so kvctl holes
--pool mooncake://ADDR reads it. --api-key (or $KVCTL_API_KEY) makes the /v1
paths require it as a Bearer token. Ctrl-C or SIGTERM shuts it down gracefully
(exit 130).
Disaggregated, across processes: --server-role context|generation makes the
HTTP front answer requests' disaggregated_params, and --disagg-front --ctx
URL,... --gen URL,... serves a front (no engine, no --single-rank) that sends
each request to a context server, then to a generation server, which takes
the request's KV from the context server over HTTP (GET /v1/disagg/kv/ID,
within --kv-transfer-timeout) instead of computing the prompt again.
The pool is --pool, else $KVCTL_POOL (serve says so on stderr), else an
embedded mem:// pool sized for the run, on the replay's clock; with --pool
redis://... several processes share one pool. Against a real Mooncake Store
(mooncake-store://) serve removes the pages it stored when it ends, unless
--keep. --disagg ctx=N,gen=M replays through N context servers and M
generation servers in this process, the KV moved between them over a
modelled link; without --trace or --synthetic it starts them as HTTP
servers on free 127.0.0.1 ports and serves their front on --addr.
The report and what each number means: docs/serve.md.

Exit codes: 3 when a loaded page differs from the computed one, a request
is lost or requests failed (after the report; one line says how many and why
the first failed), 4 when the pool is unreachable.`,
		Example: `$ kvctl serve --single-rank --trace testdata/trace-small.jsonl
$ kvctl serve --single-rank --synthetic conversations=50,turns=4 -o json
$ kvctl serve --single-rank --trace conversation.jsonl --pool redis://127.0.0.1:6379/0 --stats-interval 10s
$ kvctl serve --single-rank --trace conversation.jsonl --layer-group 0:10MiB --tp 8 --attention-dp --model llama-3-70b --sweep capacity=4TiB,6TiB,8TiB --plot sweep.svg
$ kvctl serve --single-rank --addr 127.0.0.1:8000
$ kvctl serve --single-rank --addr 0.0.0.0:8000 --api-key sk-local
$ kvctl serve --single-rank --server-role context --addr 127.0.0.1:8001
$ kvctl serve --disagg-front --ctx 127.0.0.1:8001 --gen 127.0.0.1:8002 --addr 127.0.0.1:8000
$ kvctl serve --single-rank --disagg ctx=2,gen=1 --addr 127.0.0.1:8000`,
		Args: noArgsAfterOldADP(&o.Key.AttentionDP),
		RunE: func(c *cobra.Command, _ []string) error {
			if o.Disagg.Front {
				fo, err := o.Disagg.checkFront(c)
				if err != nil {
					return err
				}
				return runDisaggFront(c.Context(), ios, g, o, fo)
			}
			cfg, src, err := o.config(c, ios, g)
			if err != nil {
				return err
			}
			if o.Sweep.active() {
				return runServeSweep(c.Context(), ios, g, o, cfg, src)
			}
			if src == nil {
				if o.Plot.Path != "" {
					return usagef("--plot draws a replay: give --trace or --synthetic")
				}
				return runServeHTTP(c.Context(), ios, g, o, cfg)
			}
			if err := o.Plot.open(); err != nil {
				return err
			}
			defer o.Plot.discard()
			return runServe(c.Context(), ios, g, o, cfg, src)
		},
	}
	fs := c.Flags()
	fs.BoolVar(&o.SingleRank, "single-rank", false, "run every rank's work in this process (required: the only mode so far)")
	fs.StringVar(&o.Trace, "trace", "", "replay this trace: kvctl requests JSONL or a Mooncake FAST'25 trace")
	deprecatedAlias(fs, "replay", "trace")
	fs.StringVar(&o.TraceFormat, "trace-format", "auto", "format of --trace: auto, kvctl or mooncake")
	fs.StringVar(&o.Synthetic, "synthetic", "", "replay a synthetic multi-turn workload, e.g. conversations=200,turns=6,system=2048,user=512,output=256")
	fs.StringVar(&o.WriteRequests, "write-requests", "", "write the requests replayed (from --trace or --synthetic) to FILE as kvctl requests JSONL, which keys and holes --requests read")
	o.Pool.registerDefault(fs, "an embedded mem:// pool sized for the run")
	fs.BoolVar(&o.Keep, "keep", false, "leave the pages the run stored in a mooncake-store:// --pool (removed when serve ends by default; other pools keep them)")
	fs.Uint64Var(&o.PoolSeed, "seed", 0, "seed of the embedded pool's random shard walks (a mem:// --pool takes seed= instead)")
	fs.StringVar(&o.Addr, "addr", "127.0.0.1:8000", "listen address of the HTTP front (without --trace/--synthetic)")
	fs.BoolVar(&o.RealTime, "real-time", false, "HTTP front: pace modelled iteration costs in wall time (realistic latency; default: as fast as the CPU allows)")
	fs.StringVar(&o.APIKey, "api-key", "", "HTTP front: require Authorization: Bearer KEY on the /v1 paths and /query_key (default $KVCTL_API_KEY; none: open)")
	o.Key.registerWithDefaults(fs, false, engine.DefaultTokensPerBlock, keys.DefaultLayerGroup.String())
	describeModelKeyDefault(fs, engine.DefaultModelKey)
	o.registerEngine(fs)
	o.Sweep.register(fs)
	o.Disagg.register(fs)
	o.registerDisaggReplay(fs)
	o.Plot.register(fs, "the pool's hit rate and occupancy over the replay (every --stats-interval, default 1s), TTFT and ITL distributions and load phases; with --sweep, hit rate, TTFT, evictions, recent misses and bursts against capacity")
	return c
}

func runServe(ctx context.Context, ios *IOStreams, g *globalOptions, o *serveOptions, cfg engine.Config, src workload.Source) error {
	total, err := o.attachPool(ctx, ios, &cfg, src)
	if err != nil {
		return err
	}
	defer cfg.Pool.Close()
	if cfg.GPU.Device != nil {
		defer cfg.GPU.Device.Close()
	}
	if total == 0 { // --pool: sizing no pool counted the requests
		if total, err = requestCount(ctx, src); err != nil {
			return interruptedAfter(err, 0, 0)
		}
	}
	bar := newProgress(ios, g, "replay", "requests", int(total))
	restoreGC := collectorOffToReport(cfg)
	defer restoreGC()
	rep, err := runRecorded(o.WriteRequests, src, func(src workload.Source) (engine.Report, error) {
		return engine.Run(ctx, cfg, src, func(p engine.Progress) {
			bar.update(int(p.Completed+p.Failed), fmt.Sprintf("hit rate %.1f%%, %.1f s modelled", 100*p.HitRate, p.VirtualMS/1000))
		})
	})
	bar.finish()
	if err != nil {
		if errors.Is(err, context.Canceled) && rep.Requests > 0 {
			_ = printServeReport(ios, g, rep)
		}
		return interruptedAfter(err, rep.Completed+rep.Failed, total)
	}
	if perr := printServeReport(ios, g, rep); perr != nil {
		return perr
	}
	if o.Plot.Path != "" {
		restoreGC() // the chart's garbage is collected
	}
	if perr := o.Plot.write(report.ServeChart(rep)); perr != nil {
		return perr
	}
	return checkServeReport(rep)
}

// checkServeReport is the verdict on a report already printed: exit 3 on
// any mismatch or lost request, else exit 4 when a pool call failed (the
// run went on without the pool's answers), else exit 3 when requests
// failed (one line names how many and the first one's error).
func checkServeReport(rep engine.Report) error {
	if rep.VerifyMismatches > 0 {
		return &verifyError{err: fmt.Errorf("%d loaded pages differ from the computed ones", rep.VerifyMismatches)}
	}
	if lost := rep.Requests - rep.Completed - rep.Failed; lost != 0 {
		return &verifyError{err: fmt.Errorf("%d of %d requests neither completed nor failed", lost, rep.Requests)}
	}
	if rep.PoolCallFailures > 0 {
		return fmt.Errorf("%d pool calls failed, the first at %.0f ms (request %d of %d): %w", rep.PoolCallFailures,
			*rep.FirstPoolFailureAtMS, *rep.FirstPoolFailureRequest, rep.Requests, pool.ErrUnreachable)
	}
	if rep.Failed > 0 {
		return &verifyError{err: fmt.Errorf("%s of %s requests failed%s", groupThousands(rep.Failed), groupThousands(rep.Requests), firstFailure(rep))}
	}
	return nil
}

// firstFailure spells the first failed request's error for the summary,
// "" when the report lists none.
func firstFailure(rep engine.Report) string {
	if len(rep.FailedRequests) == 0 {
		return ""
	}
	f := rep.FailedRequests[0]
	return fmt.Sprintf("; the first, request %q: %s", f.ID, f.Error)
}

// attachPool opens --pool (a mem:// one on the replay's clock), or an
// embedded pool sized for the run on the replay's clock. It returns the
// number of requests in src when sizing the pool counted them, else 0.
func (o *serveOptions) attachPool(ctx context.Context, ios *IOStreams, cfg *engine.Config, src workload.Source) (int64, error) {
	cfg.Clock = engine.NewClock()
	if o.Pool.URL != "" {
		st, err := openServePool(ctx, o.Pool.URL, cfg.Clock)
		cfg.Pool, cfg.RemovePages = st, o.removesPages()
		return 0, err
	}
	n, err := countSource(ctx, src)
	if err != nil {
		return 0, err // a bad line is workload.ErrBadInput (exit 2); a failed read exits 1
	}
	cfg.OutputTokens = n.outputTokens
	st, err := openRunPool(cfg.Clock, cfg.Keys.Layout, n.tokens, o.PoolSeed, cfg.MemoryLimit)
	cfg.Pool = st
	return n.requests, err
}

// removesPages reports whether serve removes the pages it stored from
// --pool when it ends: from a real Mooncake Store (mooncake-store://),
// whose space the run borrows, unless --keep. Other pools keep them, so
// that a later run can read them.
func (o *serveOptions) removesPages() bool {
	u, err := url.Parse(o.Pool.URL)
	return err == nil && u.Scheme == "mooncake-store" && !o.Keep
}

// sourceCount is what countSource counts: the requests, their prompt and
// output tokens together, and their output tokens alone.
type sourceCount struct {
	requests, tokens, outputTokens int64
}

// add counts a request of prompt and output tokens.
func (n *sourceCount) add(prompt, output int64) {
	n.requests++
	n.tokens += prompt + output
	n.outputTokens += output
}

// countSource counts the requests of a source and their prompt and output
// tokens; a cancelled ctx stops it (a large --synthetic workload takes a
// while to generate).
func countSource(ctx context.Context, src workload.Source) (sourceCount, error) {
	if n, ok, err := countTrace(ctx, src); ok {
		return n, err
	}
	var n sourceCount
	err := src.Each(func(r workload.Request) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		n.add(int64(len(r.Tokens)), int64(r.OutputLength))
		return nil
	})
	return n, err
}
