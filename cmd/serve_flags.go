package cmd

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kvctl/kvctl/connector"
	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/size"
	"github.com/spf13/pflag"
)

// registerEngine registers the flags of the engine configuration, bound to
// the fields of o.Engine they set (engine.Config checks them) or, for text
// to parse, to o.
func (o *serveOptions) registerEngine(fs *pflag.FlagSet) {
	cfg := &o.Engine
	s, c, f := &cfg.Scheduler, &cfg.Connector, &cfg.Faults
	fs.IntVar(&cfg.GPU.Blocks, "gpu-blocks", 0, fmt.Sprintf("KV blocks of GPU memory, 1..%d (default %d, or --gpu-bytes worth)", engine.MaxGPUBlocks, engine.DefaultGPUBlocks))
	fs.StringVar(&o.GPUBytes, "gpu-bytes", "", "GPU memory for KV pages, e.g. 4GiB (instead of --gpu-blocks)")
	fs.StringVar(&o.Device, "device", "", "move pages through package transfer on this device (host, cuda, cuda:N); default: direct host copies")
	fs.StringVar(&o.Copy, "copy", string(cuda.ModeMemcpy), "with --device: how pages move between the pool's side and the GPU: memcpy (one copy per page, as the connector makes them), kernel (one gather or scatter kernel per set) or batch")
	fs.DurationVar(&cfg.StatsInterval, "stats-interval", 0, "log prefix-hole and load stats lines on stderr at most this often (modelled time; 0: never)")
	fs.BoolVar(&o.Verify, "verify", true, "compare every loaded page with the computed one (--verify=false: do not)")
	fs.BoolVar(&o.NoVerify, "no-verify", false, "do not compare loaded pages with the computed ones")
	markDeprecated(fs, "no-verify", "--verify=false")
	o.Costs.register(fs)
	fs.StringVar(&cfg.Draft.Kind, "draft", "", "speculative prefill with a one-model draft: mtp, mtp-eagle or eagle3 (context-only requests)")
	fs.IntVar(&cfg.Draft.MaxLen, "max-draft-len", 0, "max_draft_len of --draft")

	fs.IntVar(&cfg.Concurrency, "concurrency", 0, "replay closed loop: this many clients, each sending its next request when its last one finished (0: open loop, at the arrival times)")
	fs.StringVar((*string)(&cfg.Routing), "adp-routing", string(engine.RouteLeastLoaded), "attention-DP routing: least-loaded (fewest in flight), round-robin, kv-aware (most local reuse) or work-aware (least uncached prefill)")
	fs.IntVar(&s.MaxBatchSize, "max-batch-size", engine.DefaultMaxBatchSize, "max_batch_size: requests per iteration")
	fs.IntVar(&s.MaxNumTokens, "max-num-tokens", engine.DefaultMaxNumTokens, "max_num_tokens: token budget per iteration")
	fs.StringVar(&o.AdmissionQuery, "admission-query", "", "admission query: max_uncharged_parks=N,max_offer_deferrals=M")
	fs.BoolVar(&s.CompletionReservation, "completion-reservation", false, "admit a request only while every admitted request's bound fits (wait instead of preempting)")
	fs.StringVar(&s.LocalReuseBackoff, "local-reuse-backoff", engine.BackoffOff, "local_reuse_backoff with a draft: off or align")
	fs.IntVar(&s.ReuseMatchAlignment, "reuse-match-alignment", 1, "reuse_match_alignment: a positive divisor of T")

	fs.StringVar(&c.Role, "role", connector.RoleBoth, "connector role: both, producer (saves only), consumer (loads only) or capacity (moves nothing)")
	fs.IntVar(&c.TransferBatchSize, "transfer-batch-size", connector.DefaultTransferBatchSize, "transfer_batch_size: pages per store call")
	fs.StringVar(&o.StagingBytes, "staging-bytes", size.Format(connector.DefaultStagingBufferBytes), "staging_buffer_bytes per direction")
	fs.BoolVar(&c.StageThroughHost, "stage-through-host", false, "stage_through_host: move pages through staging buffers (off, with --device and the embedded pool: loads and saves go straight between the pool's arenas and the device)")
	fs.Int64Var(&o.SoftPinTTLMS, "soft-pin-ttl-ms", 0, fmt.Sprintf("soft-pin every put for this many milliseconds, 0..%d", maxSoftPinTTLMS))
	fs.BoolVar(&c.GroupBlocks, "group-blocks", false, "put every page of a block into the block's eviction group")
	fs.BoolVar(&c.AsyncLoad, "async-load", false, "async_load: load offers in the background while the request is parked")
	fs.IntVar(&c.AsyncLoadWorkers, "async-load-workers", connector.DefaultAsyncLoadWorkers, "async_load_workers sharing one FIFO queue")

	fs.Float64Var(&f.MissingRate, "fault-missing-rate", 0, "probability that a page vanishes between lookup and load (the request restarts)")
	fs.Float64Var(&f.PutErrorRate, "fault-put-error-rate", 0, "probability that a page's put fails (a future miss)")
	fs.DurationVar(&f.PoolLatency, "fault-pool-latency", 0, fmt.Sprintf("real delay added to every pool call, 0..%v", connector.MaxFaultPoolLatency))
	fs.Uint64Var(&f.Seed, "fault-seed", 0, "seed of the fault draws (a run is deterministic given it)")
}

// parseAdmissionQuery parses "max_uncharged_parks=N,max_offer_deferrals=M"
// (either may be left out: 0).
func parseAdmissionQuery(spec string) (parks, deferrals int, err error) {
	for _, part := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		n, perr := strconv.Atoi(v)
		if !ok || perr != nil || n < 0 {
			return 0, 0, usagef("--admission-query %q: %q: want NAME=N with N >= 0", spec, part)
		}
		switch k {
		case "max_uncharged_parks":
			parks = n
		case "max_offer_deferrals":
			deferrals = n
		default:
			return 0, 0, usagef("--admission-query %q: unknown setting %q (want max_uncharged_parks, max_offer_deferrals)", spec, k)
		}
	}
	return parks, deferrals, nil
}
