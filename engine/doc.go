// Package engine is the serving loop of `kvctl serve --single-rank`: a KV
// cache manager, a scheduler, a synthetic model and an executor that drive
// the Mooncake-store connector (package connector) against a pool, in
// virtual time, with byte-level verification of every page loaded from
// the pool (spec/connector.md).
//
// # KV cache manager
//
// One page pool per page slot (each layer group's shard on this rank, then
// each replicated layer group) of Config.GPU.Blocks pages; a KV block is the
// same page index in every slot. A request holds a block table. Blocks
// whose KV is complete are cached in a radix tree over chain hashes (the
// hash of a block commits to every token before it) for local prefix
// reuse; blocks no request references are reclaimed least recently used
// first when pages run out. A local match is whole blocks, capped before
// the block holding the last token, backed off per local_reuse_backoff and
// trimmed to reuse_match_alignment (a positive divisor of T).
//
// # Arrivals
//
// Open loop, requests arrive at their arrival times. Closed loop
// (Config.Concurrency C), C clients each send the source's next request
// when their last one finished, at that moment of the virtual clock, as
// serving benchmarks run; the report gives the output tokens and
// requests per modelled second.
//
// # Scheduler
//
// First come, first served. Each iteration takes the running requests in
// admission order (a decoding request one token, a prefilling one a chunk
// of the remaining max_num_tokens budget), then admits waiting requests
// while slots (max_batch_size), tokens and pages remain. A running request
// that finds no page preempts the newest running request (itself when it
// is the newest): its pages are freed, and it is readmitted at the front of
// the queue, recomputing from its local and pool matches.
//
// # Connector
//
// At admission the scheduler half looks the request up (one batched,
// leasing exist for the candidate blocks) and the offer is honoured as far
// as the pages allow. Each pass then builds the connector metadata; the
// worker loads the honoured blocks before the forward and saves the blocks
// the pass computed after it. A request whose page went missing at load
// time (evicted since the lookup) is restarted: its allocation is freed
// and rewound, its bound saves dropped, and it is readmitted and looked up
// afresh.
//
// Opt-in admission controls (Config.Scheduler): CompletionReservation
// admits a request only while every admitted request's bound (prompt and
// output limit, in blocks) fits, so it waits instead of being preempted
// later; AdmissionQuery defers a request whose offer the pages cannot cover
// (up to MaxOfferDeferrals passes), and charges parking requests a slot,
// and tokens beyond MaxUnchargedParks a pass. Speculative prefill
// (Config.Draft) keys blocks with the one-model draft's prompt lookahead
// and refuses requests that are not context-only.
//
// With Config.Connector.AsyncLoad (async_load) an admitted request with
// blocks to load is parked outside the batch instead: it takes no slot and
// no token while its load runs on one of AsyncLoadWorkers load workers (one
// FIFO queue, the bandwidth shared between them, in virtual time; the
// pages are fetched from the pool when the worker starts the transfer, so
// a page whose lease expired while the request waited can be evicted by
// then), and rejoins the running requests when its pages landed
// (get_finished), or restarts when one was missing. A request offered
// blocks parks even when the pages honour none of them: its empty transfer
// completes at once. A pass that would be empty while loads are in flight
// is skipped to the next load's end or arrival, fetching the loads that
// start on the way.
//
// # Tensor and attention data parallelism
//
// With Config.Keys.Layout.World N > 1 (TP) the engine holds every rank's shard of
// each page (w{N}r{rank}): a lookup needs every shard, every rank's worker
// half loads and saves its shards, and each shard is verified against its
// rank's model bytes. A page missing at load time is fatal then
// (connector.LoadFailedError), as upstream. With Config.AttentionDP N > 1
// there are N owners, each with its own KV cache, queues, batch and
// connector halves, sharing the pool and the w1r0 key space; a router
// places each request on an owner by Config.Routing (the fewest in flight,
// in turn, the most local reuse, or the least uncached prefill). The
// owners run each pass in lock step on one goroutine (deterministic), and
// a pass costs the slowest owner's time; the report says how evenly they
// shared prefill (PrefillBalance).
//
// # Disaggregated serving
//
// With Config.Disagg (ctx=N,gen=M) a front sends each request to one of N
// context servers and then to one of M generation servers, each server an
// owner of its role's cluster (the attention-DP machinery: its own KV
// cache, queues and connector halves). The servers of a role run their
// passes in lock step; the two roles run theirs independently on the
// shared clock, each pass ending at its own modelled time, so prefill on a
// context server does not stretch a decode step. The entries (across
// processes, Live's holds and installs below take their place):
//
//   - contextOnly routes a request to a context server (least in flight,
//     or Config.Routing) as a context-only request: it prefills (pool
//     lookups and saves, the connector role producer or both) and
//     generates the first token; holdForTransfer then keeps its pages and
//     fills the leg (the transfer handle) with that token.
//   - generationOnly queues the leg on the generation server with the
//     fewest requests; at the top of its loop (generationTop, between
//     passes or while idle) the server starts the receive once its pages
//     and completion reservation (on by default, as TensorRT-LLM turns it
//     on for transferring roles; DisaggConfig.GenerationReservationOff)
//     take it. The request's full prompt blocks (their pages in every layer
//     group) move over the server's link at TransferGBps, one transfer
//     after the other, plus DisaggConfig.Delay; landed, they are copied and
//     verified against the model like loads from the pool, and the request
//     decodes from its first token (connector role consumer: it loads only
//     when readmitted after a preemption).
//
// The top of a generation server's loop also fails a receive whose
// transfer failed, or that is not done TransferTimeout
// (kv_transfer_timeout_ms) after it started, with DISAGG_TRANS_ERROR, even
// when the server runs no forward step, as TensorRT-LLM's executor checks
// timed-out transfers at the top of its loop
// (_check_kv_transfer_timeout); a failure on the context side (the send)
// cancels the paired receive at once. Every request ends in one outcome
// (DisaggReport.Outcomes), none lost.
//
// Across processes (the HTTP servers of package server) a Live engine is
// one server of a role. Live.SubmitWith's SubmitOptions.HoldAs keeps a
// completed request's pages under a name, as holdForTransfer does;
// Live.TakeKV copies its full prompt blocks out (KVBlocks: hashes and
// pages) and ends the hold, Live.ReleaseKV ends it without copying, and
// LiveOptions.KVHoldTimeout ends it untaken. SubmitOptions.KV is the
// receiving end: at arrival each block's hash is checked against the
// prompt's chain and its pages against the model (a mismatch counts in
// VerifyMismatches and fails the request with ErrKVTransfer), and the
// blocks are pinned in the KV cache until the request's admission matches
// them as its local prefix; it then computes only the prompt's last partial
// block and decodes from the first token. All of it runs on the engine
// goroutine (the calls wait for it); LiveStats counts holds and installs.
//
// # Fault injection
//
// Config.Faults (connector.Faults): MissingRate removes pages from the pool
// between lookup and load, PutErrorRate fails puts, PoolLatency delays
// every pool call in real time (connector.FaultMover, connector.SlowProber);
// draws are deterministic given Seed. Single-rank requests restart; a lost
// put is only a future miss.
//
// # Synthetic model
//
// A page's bytes are a function of (chain hash, layer group, rank,
// region) (Model); computing a block writes them into its pages, and every
// page loaded from the pool is compared with them (Config.Verify).
// Decoding emits deterministic tokens (NextToken) that extend the chain,
// so generated blocks are saved like prompt blocks.
//
// # Configuration
//
// Config groups the settings, each group a type validated where it is
// defined: Keys (keys.Settings: scheme, lookahead, layout, namespace),
// Scheduler (SchedulerConfig: batch, token budget, reuse, admission),
// Connector (ConnectorConfig: role, batches, staging, async loads), Faults
// (connector.Faults), GPU (GPUConfig: KV blocks, device), Draft
// (DraftConfig) and Costs; what spans groups (tensor parallelism against
// attention DP, the draft's lookahead against Keys.Lookahead) is checked
// by Config. Zero fields take documented defaults. Every validation error
// matches ErrBadConfig, and the owning package's sentinel too
// (keys.ErrBadSettings, connector.ErrBadConfig).
//
// # Virtual time
//
// An iteration costs Costs (a fixed step, per prefill token, per decoding
// request, per byte moved). The clock advances by that cost and jumps over
// idle gaps to the next arrival, so TTFT and inter-token latency are
// modelled milliseconds and a replay runs as fast as the CPU allows. Give
// the pool the same clock (Config.Clock) so that leases and eviction age in
// virtual time; the engine runs the eviction step of a pool.Evicter in
// manual mode every Config.EvictEvery of it.
//
// # Memory and cost
//
// A request keeps no tokens: its prompt is hashed into its chain when it
// is read, on a goroutine that reads the source ahead of the engine, a
// batch of prompts at a time (keys.ExtendAll), and generated tokens are a
// function of its decode seed, so that goroutine hashes the blocks of its
// output ahead too (keys.Chain.HashAhead). The
// pool holds the pages. Cost grows linearly with prompt tokens: hashing,
// key building and page generation are per block, with buffers reused
// from pass to pass. With the default layout (T=32, one 128-byte page per
// block), verification on, an embedded pool sized by PoolDemand and
// Config.MemoryLimit = SuggestedMemoryLimit, the 12,031-request Mooncake
// conversation trace (145M prompt tokens, ~3M pages stored) replays in
// about 8 CPU seconds on a 2-core VM, under 1 GiB resident, with a hit
// rate equal to the trace's ideal prefix reuse (0.374; no eviction);
// docs/benchmarks.md has the profile. The connector spells the keys of a lookup or load into a
// reused buffer and the radix tree indexes blocks in a small table: little
// garbage is made, and the pool's keys, objects and index are most of the
// memory.
package engine
