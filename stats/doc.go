// Package stats computes and reports kvctl's KV-cache statistics:
// prefix-hole statistics of pool lookups (Analyze, Holes, HolesRecorder),
// transfer statistics of loads and saves with per-phase wall and CPU times
// (Load, LoadRecorder, PhaseTimer), periodic log lines and their parser
// (HolesLine, LoadLine, Interval, ParseLine, ParseLog), Prometheus
// collectors (NewHolesCollector, NewLoadCollector, NewPoolCollector), and
// the series a replay's figures draw, each bounded in size however long
// the replay: the pool's hit rate and occupancy over modelled time
// (Timeline) and latency distributions (LatencyHistogram).
//
// # Pool metrics
//
// NewPoolCollector is the one exposition of a pool.Stat: the Mooncake
// master's metric names, which both kvctl serve's /metrics and the
// master-compatible admin handler (pool/mooncake) serve, and which the
// mooncake backend reads back from a live master (MasterStatField). It
// lives here, beside the other collectors, because it needs only pool.Stat:
// server and pool/mooncake both import stats, pool itself stays free of
// Prometheus, and no package imports a backend to reach it.
//
// # Prefix holes
//
// For one request, with blocks of T tokens, a block is present when every
// page of it is in the pool. hit_blocks are the leading present blocks; a
// hole is a maximal run of missing blocks followed later by a present
// block; hole_blocks are the missing blocks inside holes;
// behind_hole_blocks are the present blocks after the first missing one
// (stored, but unreachable by a prefix lookup); recomputed_tokens =
// behind_hole_blocks * T. The map has one character per block, '#'
// present and '.' missing: "####.##..#" has 4 hit blocks, 2 holes, 3 hole
// blocks and 3 blocks behind a hole.
//
// # Log lines
//
// Statistics lines are one line each: a marker, then space-separated
// key=value fields. Keys are snake_case; counts are decimal integers;
// times are milliseconds with three decimals; an optional rank=R comes
// first. Every line covers the interval since the previous line of the
// same rank (an Interval gates them, at most one per period), so counts
// add up across lines. Readers ignore keys they do not know, so fields may
// be added but never renamed or removed.
//
//	prefix-hole stats: rank=0 lookups=4 looked_up_blocks=27 hit_blocks=10 holes=3 hole_blocks=4 behind_hole_blocks=7 recomputed_tokens=112 requests=4 blocks=27 prompt_tokens=432 hit_tokens=160 hit_rate=0.3704
//
// The fields from lookups to recomputed_tokens are required; requests,
// blocks, prompt_tokens and hit_tokens are optional (0 when absent);
// hit_rate (hit_tokens / prompt_tokens) is informational.
//
//	load stats: rank=0 op=load pages=4096 store_calls=64 bytes=268435456 failed_pages=0 get_n=64 get_ms=210.500 get_max_ms=5.120 get_cpu_ms=12.000 ... workers=2 completed=30 wait_ms_mean=1.250 wait_ms_max=4.000 transfer_ms_mean=7.100 transfer_ms_max=9.900 queue=3 active=2
//
// op is load or save. op, pages, store_calls, bytes and failed_pages are
// required. Each phase that ran has <phase>_n (runs), <phase>_ms (total
// wall time), <phase>_max_ms (longest run), <phase>_cpu_ms (total thread
// CPU time of the runs measured) and, when CPU time was measured on fewer
// runs than ran (a thread change, or a recorder that samples:
// LoadRecorder.SampleCPU), <phase>_cpu_n. Phases: resolve, fence, describe, get, unstage, sync for
// loads; resolve, describe, stage, put, sync for saves. Asynchronous loads
// add workers, completed, wait_ms_mean, wait_ms_max, transfer_ms_mean,
// transfer_ms_max, and the live gauges queue and active; when completed is
// present the others but workers are required.
//
// ParseLine also reads TensorRT-LLM's asynchronous loader line,
//
//	mooncake-store async-load stats: rank 0 workers 2 completed=30 wait_ms mean=1.2 max=4.0 transfer_ms mean=7.1 max=9.9 queue=3 active=2 failed_pages=0 loaded_gib=1.50
//
// and finds every kind anywhere in a log line, after timestamps and levels.
package stats
