package cmd

import (
	"fmt"
	"net"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/workload"
	"github.com/spf13/cobra"
)

// config checks the flags and builds the engine configuration and the
// request source.
func (o *serveOptions) config(c *cobra.Command, ios *IOStreams, g *globalOptions) (engine.Config, workload.Source, error) {
	var cfg engine.Config
	if err := g.checkOutput("table", "json"); err != nil {
		return cfg, nil, err
	}
	if !o.SingleRank {
		return cfg, nil, usagef("give --single-rank: serve runs every rank in this process (the only mode so far)")
	}
	if o.Trace != "" && o.Synthetic != "" {
		return cfg, nil, usagef("give --trace FILE or --synthetic SPEC, not both (or neither, to serve HTTP on --addr)")
	}
	if err := o.checkAddr(c.Flags().Changed("addr")); err != nil {
		return cfg, nil, err
	}
	if err := o.Disagg.checkRole(o.Trace != "" || o.Synthetic != ""); err != nil {
		return cfg, nil, err
	}
	if len(o.Disagg.Ctx)+len(o.Disagg.Gen) > 0 {
		return cfg, nil, usagef("--ctx and --gen are the servers of --disagg-front")
	}
	o.Pool.resolve(ios)
	if !o.Sweep.active() { // a sweep opens its own pools
		o.Pool.noteFromEnv(ios, g)
	}
	setup, err := o.Key.resolve(c, ios.Getenv)
	if err != nil {
		return cfg, nil, err
	}
	if setup.Layout.World > 1 {
		if c.Flags().Changed("rank") || o.Key.AllRanks {
			return cfg, nil, usagef("serve --single-rank --tp N holds every rank's shard: --rank and --all-ranks do not apply")
		}
		setup.Layout.Ranks = nil
	}
	if err := o.parseDisaggReplay(c.Flags(), &o.Engine); err != nil {
		return cfg, nil, err
	}
	if cfg, err = o.engineConfig(setup, ios, g); err != nil {
		return cfg, nil, err
	}
	if o.Device == "" && c.Flags().Changed("copy") {
		return cfg, nil, usagef("--copy applies with --device: without it pages move with host copies")
	}
	if o.Device != "" {
		if cfg.GPU.Device, err = openDevice(ios, g, o.Device); err != nil {
			return cfg, nil, err
		}
	}
	if o.Trace == "" && o.Synthetic == "" {
		return cfg, nil, o.checkLive(cfg)
	}
	src, err := o.source()
	return cfg, src, err
}

// checkLive refuses, for the HTTP front, the flags of a replay.
func (o *serveOptions) checkLive(cfg engine.Config) error {
	if o.WriteRequests != "" {
		return usagef("--write-requests is for a replay: give --trace FILE or --synthetic SPEC")
	}
	if cfg.Concurrency != 0 {
		return usagef("--concurrency is for a replay: give --trace FILE or --synthetic SPEC (HTTP clients bring their own)")
	}
	if cfg.Disagg.On() {
		return o.checkDisaggHTTP()
	}
	return nil
}

// checkAddr refuses --addr given with a replay, which listens on nothing,
// and an --addr that is not HOST:PORT.
func (o *serveOptions) checkAddr(given bool) error {
	if o.Trace != "" || o.Synthetic != "" {
		if given {
			return usagef("--addr is for the HTTP front: --trace and --synthetic print a report and listen on nothing")
		}
		return nil
	}
	if _, port, err := net.SplitHostPort(o.Addr); err != nil || port == "" {
		return usagef("--addr %q: want HOST:PORT, e.g. 127.0.0.1:8000 (port 0 picks a free one)", o.Addr)
	}
	return nil
}

// engineConfig completes o.Engine, which the engine flags are bound to,
// with the key settings and the flags given as text, and checks it.
func (o *serveOptions) engineConfig(settings keys.Settings, ios *IOStreams, g *globalOptions) (engine.Config, error) {
	cfg := o.Engine
	cfg.Keys, cfg.AttentionDP = settings, o.Key.owners
	cfg.Verify, cfg.MemoryLimit = o.Verify && !o.NoVerify, engine.SuggestedMemoryLimit
	if err := o.parse(&cfg); err != nil {
		return cfg, err
	}
	if err := o.validateEngine(cfg); err != nil {
		return cfg, err
	}
	if !g.Quiet { // stats lines (with --stats-interval) and warnings
		cfg.StatsLine = func(line string) { fmt.Fprintln(ios.ErrOut, line) }
	}
	return cfg, nil
}

// parse sets what flags give as text (sizes, milliseconds, the admission
// query) and refuses a flag of 0 where the engine would read 0 as its
// default.
func (o *serveOptions) parse(cfg *engine.Config) error {
	var err error
	if cfg.Costs, err = o.Costs.costs(); err != nil {
		return err
	}
	cfg.Model = o.Costs.Model
	if o.GPUBytes != "" {
		if cfg.GPU.Bytes, err = positiveSize("--gpu-bytes", o.GPUBytes); err != nil {
			return err
		}
	}
	if cfg.Connector.StagingBufferBytes, err = positiveSize("--staging-bytes", o.StagingBytes); err != nil {
		return err
	}
	if cfg.Connector.CopyMode, err = cuda.ParseCopyMode(o.Copy); err != nil {
		return asUsage(fmt.Errorf("--copy: %w", err))
	}
	if cfg.Connector.SoftPinTTL, err = softPinTTL(o.SoftPinTTLMS); err != nil {
		return err
	}
	if cfg.GPU.Blocks != 0 && o.GPUBytes != "" {
		return usagef("give --gpu-blocks or --gpu-bytes, not both")
	}
	for _, f := range []struct {
		name  string
		value int
	}{
		{"--max-batch-size", cfg.Scheduler.MaxBatchSize}, {"--max-num-tokens", cfg.Scheduler.MaxNumTokens},
		{"--transfer-batch-size", cfg.Connector.TransferBatchSize}, {"--async-load-workers", cfg.Connector.AsyncLoadWorkers},
	} {
		if f.value == 0 {
			return usagef("%s must be positive, got 0", f.name)
		}
	}
	if o.AdmissionQuery == "" {
		return nil
	}
	cfg.Scheduler.AdmissionQuery = true
	cfg.Scheduler.MaxUnchargedParks, cfg.Scheduler.MaxOfferDeferrals, err = parseAdmissionQuery(o.AdmissionQuery)
	return err
}

func (o *serveOptions) source() (workload.Source, error) {
	if o.Synthetic != "" {
		conv, err := workload.ParseConversations(o.Synthetic)
		if err != nil {
			return nil, asUsage(fmt.Errorf("--synthetic: %w", err))
		}
		return conv, nil
	}
	src, err := workload.Open(o.Trace, o.TraceFormat)
	if err != nil {
		return nil, asUsage(err)
	}
	src.ReuseTokens = true
	return src, nil
}
