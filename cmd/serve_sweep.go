package cmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/report"
	"github.com/kvctl/kvctl/sensitivity"
	"github.com/kvctl/kvctl/size"
	"github.com/kvctl/kvctl/workload"
	"github.com/spf13/pflag"
)

// serveSweep are serve's flags of a pool-size sweep
// (sensitivity.Sweep).
type serveSweep struct {
	Specs  []string
	Window time.Duration
	Recent time.Duration
}

func (s *serveSweep) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&s.Specs, "sweep", nil, "replay once per pool capacity, capacity=A,B,... (repeatable: the capacities add up), pages modelled at their --layer-group sizes; marks bursts of recently read chains missed")
	fs.DurationVar(&s.Window, "burst-window", 10*time.Second, "with --sweep: the windows of modelled time bursts are found in")
	fs.DurationVar(&s.Recent, "burst-recency", 5*time.Minute, "with --sweep: a chain found by a lookup this recently (modelled) and missed now counts toward a burst")
}

// active reports whether a sweep was asked for.
func (s *serveSweep) active() bool { return len(s.Specs) > 0 }

// checkSweep refuses what a sweep cannot do and returns its capacities.
func (o *serveOptions) checkSweep() ([]int64, error) {
	s := o.Sweep
	switch {
	case o.Trace == "" && o.Synthetic == "":
		return nil, usagef("--sweep replays: give --trace FILE or --synthetic SPEC")
	case o.Pool.URL != "" && !o.Pool.FromEnv:
		return nil, usagef("--sweep opens an embedded pool per capacity: leave out --pool")
	case o.WriteRequests != "" || o.Device != "" || o.Engine.StatsInterval != 0:
		return nil, usagef("--write-requests, --device and --stats-interval are for one replay, not --sweep")
	case s.Window <= 0 || s.Recent <= 0:
		return nil, usagef("--burst-window %v and --burst-recency %v must be positive", s.Window, s.Recent)
	}
	spec, err := capacitySweepValues(s.Specs)
	if err != nil {
		return nil, err
	}
	return parseCapacities(spec)
}

// validateEngine checks cfg as the engine will run it: with a sweep's
// proxy pages, whose GPU pages fit where the modelled ones would not.
func (o *serveOptions) validateEngine(cfg engine.Config) error {
	if o.Sweep.active() {
		sensitivity.NewScale(cfg.Keys.Layout).Apply(&cfg)
	}
	return cfg.Validate()
}

// sweepResult is serve --sweep's output.
type sweepResult struct {
	Model    string               `json:"model"`
	Costs    engine.Costs         `json:"costs"`
	Scale    sensitivity.Scale    `json:"scale"`
	WindowMS float64              `json:"window_ms"`
	RecentMS float64              `json:"recent_ms"`
	Criteria sensitivity.Criteria `json:"criteria"`
	Runs     []sensitivity.Run    `json:"runs"`
}

// runServeSweep replays src once per capacity of --sweep, each run on a
// fresh embedded pool and source (runs go in parallel), and prints the
// runs and their bursts.
func runServeSweep(ctx context.Context, ios *IOStreams, g *globalOptions, o *serveOptions, cfg engine.Config, src workload.Source) error {
	caps, err := o.checkSweep()
	if err != nil {
		return err
	}
	if err := o.Plot.open(); err != nil {
		return err
	}
	defer o.Plot.discard()
	n, err := countSource(ctx, src)
	if err != nil {
		return err
	}
	reqs := n.requests
	res := sweepResult{Model: o.Costs.Model, Costs: cfg.Costs, Scale: sensitivity.NewScale(cfg.Keys.Layout), WindowMS: ms(o.Sweep.Window), RecentMS: ms(o.Sweep.Recent),
		Criteria: sensitivity.DefaultCriteria()}
	bar := newProgress(ios, g, "replay", "requests", int(reqs)*len(caps))
	opts := sensitivity.Options{
		Config: cfg, WindowMS: res.WindowMS, RecentMS: res.RecentMS, Criteria: res.Criteria,
		OpenPool: func(capacity int64, clock *engine.Clock) (pool.Store, error) {
			return openEmbeddedPool(clock, capacity, o.PoolSeed)
		},
		Source:   o.source,
		Progress: func(capacity int64, p engine.Progress) { bar.updatePart(capacity, int(p.Completed+p.Failed), "") },
	}
	res.Runs, err = sensitivity.Sweep(ctx, opts, caps)
	bar.finish()
	if errors.Is(err, context.Canceled) {
		_ = printServeSweep(ios, g, res)
		return interruptedAfter(err, sweptRequests(res.Runs), reqs*int64(len(caps)))
	}
	if err != nil {
		return err
	}
	if err := printServeSweep(ios, g, res); err != nil {
		return err
	}
	if err := o.Plot.write(report.ServeSweepChart(res.Runs)); err != nil {
		return err
	}
	for _, r := range res.Runs {
		if err := checkServeReport(r.Report); err != nil {
			return fmt.Errorf("capacity %s: %w", size.Human(r.CapacityBytes), err)
		}
	}
	return nil
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// sweptRequests counts the requests the runs of a sweep finished.
func sweptRequests(runs []sensitivity.Run) int64 {
	var n int64
	for _, r := range runs {
		n += r.Report.Completed + r.Report.Failed
	}
	return n
}
