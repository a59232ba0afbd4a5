package cmd

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/kvctl/kvctl/connector"
	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/server"
)

// runDisaggHTTP serves --disagg ctx=N,gen=M over HTTP in one process: N
// context and M generation servers on free 127.0.0.1 ports, each its own
// live engine on the shared pool st, and the disaggregated front on --addr
// over them, as the three kinds of process of serve --server-role and
// --disagg-front would. The first server to stop (Ctrl-C, SIGTERM, a
// failure) stops the others; st is closed once all have.
func runDisaggHTTP(ctx context.Context, ios *IOStreams, g *globalOptions, o *serveOptions, cfg engine.Config, st pool.Store) (err error) {
	defer func() {
		if cerr := st.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("closing the pool: %w", cerr))
		}
	}()
	fo, err := o.Disagg.frontOptions(server.FrontOptions{Addr: o.Addr, APIKey: o.apiKey(ios)})
	if err != nil {
		return err
	}
	grp := newServerGroup(ctx)
	for i := range cfg.Disagg.Context + cfg.Disagg.Generation {
		so := o.roleServer(ios, g, cfg, st, i)
		addr := grp.start(func(ready func(string)) error {
			so.Ready = ready
			return server.Run(grp.ctx, so)
		})
		if addr == "" {
			return grp.wait()
		}
		if so.Role == server.RoleContext {
			fo.Context = append(fo.Context, "http://"+addr)
		} else {
			fo.Generation = append(fo.Generation, "http://"+addr)
		}
	}
	fo.Logf = logfTo(ios, g, "")
	grp.start(func(ready func(string)) error {
		fo.Ready = func(addr string) {
			sayFrontListening(ios, addr, fo)
			ready(addr)
		}
		return server.RunFront(grp.ctx, fo)
	})
	return grp.wait()
}

// checkDisaggHTTP refuses what --disagg over HTTP cannot run with: a
// --server-role (it sets the roles), a bad --disagg-routing,
// --request-timeout or KV transfer.
func (o *serveOptions) checkDisaggHTTP() error {
	if o.Disagg.ServerRole != "" {
		return usagef("--server-role with --disagg: serve runs the context and generation servers of --disagg itself")
	}
	if _, err := o.Disagg.frontOptions(server.FrontOptions{}); err != nil {
		return err
	}
	return o.checkKVTransfer()
}

// roleServer is the i-th server of --disagg: the context servers first,
// then the generation servers, which, as in a replay, load only, reserve
// for completion unless --gen-completion-reservation=false and log no
// stats lines. The first context server runs on cfg's clock, the pool's;
// each other server on a clock of its own.
func (o *serveOptions) roleServer(ios *IOStreams, g *globalOptions, cfg engine.Config, st pool.Store, i int) server.Options {
	d := cfg.Disagg
	cfg.Disagg = engine.DisaggConfig{}
	role, n := server.RoleContext, i+1
	if i > 0 {
		cfg.Clock = engine.NewClock()
	}
	if i >= d.Context {
		role, n = server.RoleGeneration, i-d.Context+1
		cfg.Connector.Role = connector.RoleConsumer
		cfg.Scheduler.CompletionReservation = !d.GenerationReservationOff
		cfg.StatsLine = nil
	}
	return server.Options{
		Addr: "127.0.0.1:0", Engine: cfg, Pool: st, KeepPool: true, RealTime: o.RealTime,
		APIKey: o.apiKey(ios), Role: role, KVTransfer: o.kvTransfer(cfg), ModelName: cfg.Keys.Namespace.ModelKey,
		Logf: logfTo(ios, g, fmt.Sprintf("%s server %d: ", role, n)),
	}
}

// logfTo is a server's Logf: lines on stderr, each after prefix, unless
// --quiet.
func logfTo(ios *IOStreams, g *globalOptions, prefix string) func(string, ...any) {
	return func(format string, args ...any) {
		if !g.Quiet {
			fmt.Fprintf(ios.ErrOut, prefix+format+"\n", args...)
		}
	}
}

// serverGroup runs servers until the first one returns, then stops the
// others.
type serverGroup struct {
	ctx  context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup
	mu   sync.Mutex
	err  error
}

func newServerGroup(ctx context.Context) *serverGroup {
	ctx, stop := context.WithCancel(ctx)
	return &serverGroup{ctx: ctx, stop: stop}
}

// start runs serve in the group, which calls ready with its address once
// it listens, and waits for that: it returns the address, or "" when the
// group stopped first.
func (g *serverGroup) start(serve func(ready func(addr string)) error) string {
	ready := make(chan string, 1)
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		defer g.stop()
		if err := serve(func(addr string) { ready <- addr }); err != nil {
			g.mu.Lock()
			g.err = errors.Join(g.err, err)
			g.mu.Unlock()
		}
	}()
	select {
	case addr := <-ready:
		return addr
	case <-g.ctx.Done():
		return ""
	}
}

// wait waits for every server of the group to return and joins their
// errors.
func (g *serverGroup) wait() error {
	g.wg.Wait()
	g.stop()
	return g.err
}
