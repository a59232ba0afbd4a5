package cmd

import (
	"fmt"
	"time"

	"github.com/kvctl/kvctl/engine"
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
	if o.Replay != "" && o.Synthetic != "" {
		return cfg, nil, usagef("give --replay FILE or --synthetic SPEC, not both (or neither, to serve HTTP on --addr)")
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
	// The production-path flags are bound to o.Live.Config; the rest are set here.
	cfg = o.Live.Config
	cfg.Layout, cfg.Namespace, cfg.Scheme, cfg.Lookahead = setup.Layout, setup.Namespace, setup.Scheme, setup.Lookahead
	cfg.GPUBlocks, cfg.MaxBatchSize, cfg.MaxNumTokens, cfg.Role = o.GPUBlocks, o.MaxBatchSize, o.MaxNumTokens, o.Role
	cfg.TransferBatchSize, cfg.StageThroughHost = o.TransferBatchSize, o.StageThroughHost
	cfg.SoftPinTTL, cfg.GroupBlocks = time.Duration(o.SoftPinTTLMS)*time.Millisecond, o.GroupBlocks
	cfg.StatsInterval, cfg.Verify, cfg.MemoryLimit = o.StatsInterval, !o.NoVerify, engine.SuggestedMemoryLimit
	if err := o.sizes(&cfg); err != nil {
		return cfg, nil, err
	}
	if err := o.Live.apply(&cfg); err != nil {
		return cfg, nil, err
	}
	if o.StatsInterval > 0 && !g.Quiet {
		cfg.StatsLine = func(line string) { fmt.Fprintln(ios.ErrOut, line) }
	}
	if o.Device != "" {
		if cfg.Device, err = openDevice(ios, g, o.Device); err != nil {
			return cfg, nil, err
		}
	}
	if o.Replay == "" && o.Synthetic == "" {
		return cfg, nil, nil
	}
	src, err := o.source()
	return cfg, src, err
}

func (o *serveOptions) sizes(cfg *engine.Config) error {
	var err error
	if o.GPUBytes != "" {
		if cfg.GPUBytes, err = positiveSize("--gpu-bytes", o.GPUBytes); err != nil {
			return err
		}
	}
	if cfg.StagingBufferBytes, err = positiveSize("--staging-bytes", o.StagingBytes); err != nil {
		return err
	}
	switch {
	case o.GPUBlocks < 0 || o.MaxBatchSize <= 0 || o.MaxNumTokens <= 0 || o.TransferBatchSize <= 0:
		return usagef("--gpu-blocks, --max-batch-size, --max-num-tokens and --transfer-batch-size must be positive")
	case o.GPUBlocks > 0 && o.GPUBytes != "":
		return usagef("give --gpu-blocks or --gpu-bytes, not both")
	case o.SoftPinTTLMS < 0 || o.StatsInterval < 0:
		return usagef("--soft-pin-ttl-ms and --stats-interval must not be negative")
	}
	return nil
}

func (o *serveOptions) source() (workload.Source, error) {
	if o.Synthetic != "" {
		conv, err := workload.ParseConversations(o.Synthetic)
		if err != nil {
			return nil, asUsage(fmt.Errorf("--synthetic: %w", err))
		}
		return conv, nil
	}
	src, err := workload.Open(o.Replay, o.TraceFormat)
	if err != nil {
		return nil, asUsage(err)
	}
	src.ReuseTokens = true
	return src, nil
}
