package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/kvctl/kvctl/chart"
	"github.com/kvctl/kvctl/connector"
	"github.com/kvctl/kvctl/holes"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/size"
	"github.com/kvctl/kvctl/workload"
	"github.com/spf13/cobra"
)

type holesOptions struct {
	Seed          uint64
	Pool          poolFlag
	Requests      string
	Trace         string
	TraceFormat   string
	Key           keyFlags
	Layout        probeLayout
	Leasing       bool
	Simulate      bool
	Capacity      string
	Sweep         []string
	SweepCapacity string // deprecated spelling of --sweep capacity=
	SoftPinTTLMS  int64
	GroupBlocks   bool
	EvictionRatio float64
	Watermark     float64
	SegmentBytes  int64
	KeyBytes      string
	Plot          plotFlag
}

func newHolesCmd(ios *IOStreams, g *globalOptions) *cobra.Command {
	o := &holesOptions{}
	c := &cobra.Command{
		Use:   "holes (--pool URL | --simulate) (--requests FILE | --trace FILE) [flags]",
		Short: "Map prefix holes in a pool, or predict them by replaying a trace",
		Long: `A prefix lookup stops at the first missing block, so a block evicted from the
middle of a chain makes every stored block behind it useless. holes shows where.

With --pool (or $KVCTL_POOL) it probes a pool for every request's blocks (read-only: no lease is
granted; --leasing probes as the connector's batch_is_exist does, and says so),
one batched call per request, and prints per request its counts and a block map:
'#' present, '.' missing (inside a hole or at the tail). A block is present only
if every page of it exists: every layer group, every TP rank's shard, every
replicated page. Given no layout flag, the probe reads the layout from the
pool's own keys and says what it found (--layout auto); a probe with an explicit
layout that finds nothing says which key segment the pool's pages differ in.

--engine probes a pool that vLLM, SGLang or LMCache wrote, as that engine's
connector looks a prompt up (the flags of kvctl keys --engine; each request's
cache_salt and lora_name): an SGLang page is present only if every rank's _k and
_v key is, a vLLM block only if every rank's key is. --layout auto reads
TensorRT-LLM's layouts only: with another engine the flags give the layout.

With --simulate it replays the requests in arrival order into an embedded pool
(metadata only, so large pools fit on a small machine) with Mooncake's leases
and eviction on the trace's clock, and reports the same statistics;
--sweep capacity=A,B,... runs several capacities in parallel and charts hit
rate and stranded blocks against capacity. With --engine vllm, sglang or
lmcache the replay is keyed as that engine's connector writes and looks up,
each key's value --key-bytes long.

Requests: --requests (kvctl JSONL) or --trace (kvctl JSONL or a Mooncake FAST'25
trace, whose tokens are synthesised per 512-token block from its hash ids).
Definitions: docs/holes.md.

Exit codes: 2 for bad flags or input (and for a pool holding several layouts
of the model under --layout auto), 4 when the pool is unreachable.`,
		Example: `$ kvctl holes --pool mooncake://10.0.0.5:9003 --requests reqs.jsonl --tokens-per-block 32 --model-key m
$ kvctl holes --pool redis://127.0.0.1:6379/0 --requests reqs.jsonl --tokens-per-block 32 --model-key m -o json
$ kvctl holes --simulate --trace conversation.jsonl --tokens-per-block 32 --layer-group 0:64KiB --model-key m --sweep capacity=16GiB,64GiB,256GiB
$ kvctl holes --simulate --trace conversation.jsonl --engine sglang --tokens-per-block 64 --key-bytes 4MiB --capacity 64GiB`,
		Args: noArgsAfterOldADP(&o.Key.AttentionDP),
		RunE: func(c *cobra.Command, _ []string) error {
			setup, src, err := o.validate(c, ios, g)
			if err != nil {
				return err
			}
			if err := o.Plot.open(); err != nil {
				return err
			}
			defer o.Plot.discard()
			if o.Simulate {
				return runHolesSimulate(c, ios, g, o, setup, src)
			}
			return runHolesProbe(c, ios, g, o, setup, src)
		},
	}
	fs := c.Flags()
	o.Pool.register(fs)
	fs.StringVar(&o.Requests, "requests", "", "requests file (kvctl JSONL)")
	fs.StringVar(&o.Trace, "trace", "", "trace file: kvctl JSONL or a Mooncake FAST'25 trace")
	fs.StringVar(&o.TraceFormat, "trace-format", "auto", "trace format: auto, kvctl or mooncake")
	o.Key.register(fs, false)
	o.Key.Engines.register(fs)
	o.Layout.register(fs)
	fs.BoolVar(&o.Leasing, "leasing", false, "probe as the connector does, granting leases (changes eviction)")
	fs.BoolVar(&o.Simulate, "simulate", false, "predict holes by replaying into an embedded pool with Mooncake eviction")
	fs.StringVar(&o.Capacity, "capacity", "", "simulated pool capacity, e.g. 64GiB")
	fs.StringArrayVar(&o.Sweep, "sweep", nil, "simulate several capacities, PARAM=V1,V2,... with PARAM capacity, e.g. capacity=16GiB,64GiB,256GiB (repeatable: the capacities add up)")
	fs.StringVar(&o.SweepCapacity, "sweep-capacity", "", "simulate several capacities, e.g. 16GiB,64GiB,256GiB")
	markDeprecated(fs, "sweep-capacity", "--sweep capacity=A,B")
	fs.Int64Var(&o.SoftPinTTLMS, "soft-pin-ttl-ms", 0, fmt.Sprintf("soft-pin every simulated put for this many milliseconds, 0..%d", maxSoftPinTTLMS))
	fs.BoolVar(&o.GroupBlocks, "group-blocks", false, "put every page of a block into the block's eviction group")
	fs.Float64Var(&o.EvictionRatio, "eviction-ratio", 0.05, "eviction_ratio of the simulated master")
	fs.Float64Var(&o.Watermark, "watermark", 0.90, "eviction_high_watermark_ratio of the simulated master")
	fs.Int64Var(&o.SegmentBytes, "segment-bytes", connector.DefaultGlobalSegmentSize, "global_segment_size of the simulated pool's segments: capacity / this many segments, the last one holding the remainder")
	fs.StringVar(&o.KeyBytes, "key-bytes", "", "--simulate with --engine vllm, sglang or lmcache: size of each pool key's value (a vLLM or LMCache chunk of one rank, an SGLang k or v page), e.g. 2MiB")
	fs.Uint64Var(&o.Seed, "seed", 0, "seed of the simulated master's random shard walks (a run is deterministic given it)")
	o.Plot.register(fs, "the hole map (a probe or one simulated capacity) or hit rate and holes against capacity (--sweep)")
	return c
}

func (o *holesOptions) validate(c *cobra.Command, ios *IOStreams, g *globalOptions) (keys.Settings, workload.Source, error) {
	if err := g.checkOutput("table", "json"); err != nil {
		return keys.Settings{}, nil, err
	}
	if (o.Requests == "") == (o.Trace == "") {
		return keys.Settings{}, nil, usagef("give exactly one of --requests or --trace")
	}
	if o.Simulate && o.Pool.URL != "" {
		return keys.Settings{}, nil, usagef("give --pool (probe a pool) or --simulate, not both")
	}
	if !o.Simulate && o.Pool.resolve(ios) == "" {
		return keys.Settings{}, nil, usagef("give --pool (or set %s) to probe a pool, or --simulate", poolEnv)
	}
	if !o.Simulate && (o.Capacity != "" || o.isSweep() || c.Flags().Changed("segment-bytes")) {
		return keys.Settings{}, nil, usagef("--capacity, --sweep and --segment-bytes are for --simulate")
	}
	if o.Simulate && o.Leasing {
		return keys.Settings{}, nil, usagef("--leasing is for probing a pool; a simulation always looks up as the connector does")
	}
	if err := o.checkEngineSimulation(c); err != nil {
		return keys.Settings{}, nil, err
	}
	if o.Simulate && o.simulatesTRTLLM() && !c.Flags().Changed("layer-group") {
		return keys.Settings{}, nil, usagef("--simulate sizes its pool in pages: give your model's page size with --layer-group ID:BYTES (e.g. --layer-group 0:64KiB); the default %s pages spell keys, they are no model's", keys.DefaultLayerGroup)
	}
	if err := o.checkLayout(c); err != nil {
		return keys.Settings{}, nil, err
	}
	setup, err := o.Key.resolve(c, ios.Getenv)
	if err != nil {
		return setup, nil, err
	}
	if err := o.checkEngine(setup); err != nil {
		return setup, nil, err
	}
	if setup.Namespace.ModelKey == "" && o.Simulate {
		setup.Namespace.ModelKey = "kvctl"
	}
	path, format := o.Trace, o.TraceFormat
	if o.Requests != "" {
		if err := refuseTrace(o.Requests); err != nil {
			return setup, nil, err
		}
		path, format = o.Requests, workload.FormatKvctl
	}
	src, err := workload.Open(path, format)
	if err != nil {
		return setup, nil, asUsage(err)
	}
	src.ReuseTokens = true
	return setup, src, nil
}

func runHolesProbe(c *cobra.Command, ios *IOStreams, g *globalOptions, o *holesOptions, s keys.Settings, src workload.Source) error {
	st, err := o.Pool.open(c.Context(), ios)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := o.Layout.apply(c.Context(), ios, st, &s); err != nil {
		return err
	}
	total, err := requestCount(c.Context(), src)
	if err != nil {
		return interruptedAfter(err, 0, 0)
	}
	bar := newProgress(ios, g, "probing", "requests", int(total))
	rep, err := holes.Probe(c.Context(), st, o.Pool.URL, src, holes.ProbeOptions{
		Keys: s, Leasing: o.Leasing,
		Progress: func(done int) { bar.update(done, "") },
	})
	bar.finish()
	if rep.Interrupted {
		_ = printHolesProbe(ios, g, rep)
		return interruptedAfter(err, int64(len(rep.Requests)), total)
	}
	if err != nil {
		return err
	}
	rep.Diagnosis = o.Layout.explainMiss(c.Context(), ios, st, s, rep.Summary.HitBlocks, rep.Summary.Blocks)
	if err := printHolesProbe(ios, g, rep); err != nil {
		return err
	}
	return o.Plot.write(chart.HoleMap(rep.Requests))
}

// checkEngine refuses a probe the engine's keys cannot make
// (checkProbeSettings), and a replay of an engine without pool keys.
func (o *holesOptions) checkEngine(s keys.Settings) error {
	if !o.Simulate {
		return checkProbeSettings(s)
	}
	if !keys.EngineHasKeys(s.Engine) {
		return usagef("--engine %s: its router keeps no pool, so there are no keys to replay", s.Engine)
	}
	return nil
}

// simulatesTRTLLM reports whether --engine is TensorRT-LLM's, whose pages
// are sized by the layer groups.
func (o *holesOptions) simulatesTRTLLM() bool {
	e := o.Key.Engines.Engine
	return e == "" || e == string(keys.EngineTRTLLM)
}

// checkEngineSimulation checks the flags of a replay keyed as another
// engine's connector: each key's value is sized by --key-bytes, and
// eviction groups are TensorRT-LLM's.
func (o *holesOptions) checkEngineSimulation(c *cobra.Command) error {
	other := o.Simulate && !o.simulatesTRTLLM()
	switch {
	case !other && c.Flags().Changed("key-bytes"):
		return usagef("--key-bytes is for --simulate with --engine vllm, sglang or lmcache (TensorRT-LLM's pages are sized by --layer-group)")
	case other && o.KeyBytes == "":
		return usagef("--simulate --engine %s sizes its pool by key: give the size of each key's value with --key-bytes (e.g. --key-bytes 2MiB)", o.Key.Engines.Engine)
	case other && o.GroupBlocks:
		return usagef("--group-blocks puts TensorRT-LLM's pages into eviction groups: --engine %s has none", o.Key.Engines.Engine)
	}
	return nil
}

// keyBytes parses --key-bytes (0 when it is not given).
func (o *holesOptions) keyBytes() (int64, error) {
	if o.KeyBytes == "" {
		return 0, nil
	}
	n, err := size.Parse(o.KeyBytes)
	if err != nil || n <= 0 {
		return 0, usagef("--key-bytes %q: want a positive size such as 2MiB", o.KeyBytes)
	}
	return n, nil
}

// checkLayout decides whether a probe reads its layout from the pool
// (probeLayout.decide); a simulation takes no --layout.
func (o *holesOptions) checkLayout(c *cobra.Command) error {
	if !o.Simulate {
		return o.Layout.decide(c, &o.Key)
	}
	if c.Flags().Changed("layout") {
		return usagef("--layout is for probing a pool (--pool)")
	}
	return nil
}

// isSweep reports whether a capacity sweep was asked for.
func (o *holesOptions) isSweep() bool { return len(o.Sweep) > 0 || o.SweepCapacity != "" }

// sweptCapacities returns the capacities of --sweep capacity=... (and of
// the deprecated --sweep-capacity), comma-separated.
func (o *holesOptions) sweptCapacities() (string, error) {
	spec, err := capacitySweepValues(o.Sweep)
	if err != nil || o.SweepCapacity == "" {
		return spec, err
	}
	if spec == "" {
		return o.SweepCapacity, nil
	}
	return o.SweepCapacity + "," + spec, nil
}

func (o *holesOptions) capacities() ([]int64, error) {
	spec, err := o.sweptCapacities()
	if err != nil {
		return nil, err
	}
	if (o.Capacity == "") == (spec == "") {
		return nil, usagef("give exactly one of --capacity or --sweep capacity=... with --simulate")
	}
	if spec == "" {
		spec = o.Capacity
	}
	return parseCapacities(spec)
}

func runHolesSimulate(c *cobra.Command, ios *IOStreams, g *globalOptions, o *holesOptions, s keys.Settings, src workload.Source) error {
	caps, err := o.capacities()
	if err != nil {
		return err
	}
	ttl, err := softPinTTL(o.SoftPinTTLMS)
	if err != nil {
		return err
	}
	if o.SegmentBytes <= 0 {
		return usagef("--segment-bytes must be positive")
	}
	keyBytes, err := o.keyBytes()
	if err != nil {
		return err
	}
	bar := newProgress(ios, g, "hashing", "requests", 0)
	reqs, err := holes.Prepare(c.Context(), src, s)
	bar.finish()
	if err != nil {
		return interruptedAfter(err, int64(len(reqs)), 0)
	}
	bar = newProgress(ios, g, "simulating", "requests", len(reqs)*len(caps))
	opts := holes.SimOptions{
		Keys: s, SoftPinTTL: ttl, KeyBytes: keyBytes,
		GroupBlocks: o.GroupBlocks, OpenPool: simulatedPool(o.EvictionRatio, o.Watermark, o.SegmentBytes, o.Seed),
		Progress: func(capacity int64, n int) { bar.updatePart(capacity, n, "") },
		KeepMaps: o.Plot.Path != "" && !o.isSweep(),
	}
	runs, err := holes.Sweep(c.Context(), reqs, opts, caps)
	bar.finish()
	if errors.Is(err, context.Canceled) {
		_ = printSimulation(ios, g, o.isSweep(), runs, nil)
		return interruptedAfter(err, simulatedRequests(runs), int64(len(reqs)*len(caps)))
	}
	if err != nil {
		return asUsage(err)
	}
	return o.finishSimulation(ios, g, s, src, runs)
}

// simulatedRequests counts the requests the runs of a sweep replayed.
func simulatedRequests(runs []holes.Run) int64 {
	var n int64
	for _, r := range runs {
		n += r.Summary.Requests
	}
	return n
}

// finishSimulation prints the runs of a finished simulation and draws
// --plot: one capacity's hole map (its JSON then carries the maps), or a
// sweep's runs against capacity, with the trace's ideal prefix reuse,
// which its JSON carries too.
func (o *holesOptions) finishSimulation(ios *IOStreams, g *globalOptions, s keys.Settings, src workload.Source, runs []holes.Run) error {
	if !o.isSweep() {
		if err := printSimulation(ios, g, false, runs, nil); err != nil {
			return err
		}
		return o.Plot.write(chart.HoleMap(runs[0].Requests))
	}
	ideal, err := workload.IdealPrefixReuse(src, s.Layout.TokensPerBlock)
	if err != nil {
		return err
	}
	if err := printSimulation(ios, g, true, runs, &ideal); err != nil {
		return err
	}
	return o.Plot.write(chart.CapacitySweep(runs, &ideal.Fraction))
}
