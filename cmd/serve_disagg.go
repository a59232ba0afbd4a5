package cmd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kvctl/kvctl/server"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// disaggFlags are serve's flags of disaggregated serving across
// processes: the front (--disagg-front, --ctx, --gen, --disagg-routing,
// --request-timeout) and a server's role (--server-role).
type disaggFlags struct {
	Front          bool
	Ctx, Gen       []string
	Routing        string
	RequestTimeout time.Duration
	ServerRole     string
}

// frontFlags are the flags --disagg-front takes; it runs no engine, so
// the others do not apply.
var frontFlags = map[string]bool{"disagg-front": true, "ctx": true, "gen": true, "disagg-routing": true,
	"request-timeout": true, "addr": true, "api-key": true}

func (d *disaggFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&d.Front, "disagg-front", false, "serve the disaggregated front on --addr: each request to a --ctx server (context only), then to a --gen server (no engine here)")
	fs.StringSliceVar(&d.Ctx, "ctx", nil, "with --disagg-front: the context servers, URL[,URL...] (http:// when left out; repeatable)")
	fs.StringSliceVar(&d.Gen, "gen", nil, "with --disagg-front: the generation servers, URL[,URL...] (http:// when left out; repeatable)")
	fs.StringVar(&d.Routing, "disagg-routing", server.RouteRoundRobin, "with --disagg-front or --disagg over HTTP: how a request's context and generation servers are picked, round-robin or least-loaded (fewest in flight)")
	fs.DurationVar(&d.RequestTimeout, "request-timeout", server.DefaultLegTimeout, "with --disagg-front or --disagg over HTTP: bound on each leg, the context leg to its answer and the generation leg to its first chunk")
	fs.StringVar(&d.ServerRole, "server-role", "", "HTTP front: answer disaggregated requests as a context or generation server (default: plain requests only)")
}

// checkFront refuses what --disagg-front cannot run with: a flag of the
// engine or a replay, a bad server URL or routing.
func (d *disaggFlags) checkFront(c *cobra.Command) (server.FrontOptions, error) {
	var opts server.FrontOptions
	var other []string
	c.Flags().Visit(func(f *pflag.Flag) {
		if !frontFlags[f.Name] && c.LocalFlags().Lookup(f.Name) != nil {
			other = append(other, "--"+f.Name)
		}
	})
	if len(other) > 0 {
		return opts, usagef("%s: the disaggregated front runs no engine; give engine flags to the context and generation servers", strings.Join(other, ", "))
	}
	var err error
	if opts.Context, err = upstreams("--ctx", d.Ctx); err != nil {
		return opts, err
	}
	if opts.Generation, err = upstreams("--gen", d.Gen); err != nil {
		return opts, err
	}
	return d.frontOptions(opts)
}

// frontOptions sets the routing and leg timeout of opts, the front's,
// refusing a bad --disagg-routing or --request-timeout.
func (d *disaggFlags) frontOptions(opts server.FrontOptions) (server.FrontOptions, error) {
	if d.Routing != server.RouteRoundRobin && d.Routing != server.RouteLeastLoaded {
		return opts, usagef("--disagg-routing %q: want %s or %s", d.Routing, server.RouteRoundRobin, server.RouteLeastLoaded)
	}
	if d.RequestTimeout <= 0 {
		return opts, usagef("--request-timeout %s: want a positive duration, e.g. 180s", d.RequestTimeout)
	}
	opts.Routing, opts.LegTimeout = d.Routing, d.RequestTimeout
	return opts, nil
}

// upstreams checks the URLs of one flag: at least one, each a server URL.
func upstreams(flag string, urls []string) ([]string, error) {
	if len(urls) == 0 {
		return nil, usagef("--disagg-front needs %s URL[,URL...]: the servers started with kvctl serve --server-role %s", flag,
			map[string]string{"--ctx": server.RoleContext, "--gen": server.RoleGeneration}[flag])
	}
	out := make([]string, len(urls))
	for i, u := range urls {
		var err error
		if out[i], err = server.ParseUpstream(u); err != nil {
			return nil, usagef("%s: %v", flag, err)
		}
	}
	return out, nil
}

// checkRole refuses an unknown --server-role, and one given with a
// replay or the front.
func (d *disaggFlags) checkRole(replay bool) error {
	switch {
	case d.ServerRole == "":
		return nil
	case d.ServerRole != server.RoleContext && d.ServerRole != server.RoleGeneration:
		return usagef("--server-role %q: want %s or %s", d.ServerRole, server.RoleContext, server.RoleGeneration)
	case replay:
		return usagef("--server-role is for the HTTP front: --trace and --synthetic replay in one process")
	}
	return nil
}

// runDisaggFront serves the disaggregated front until the context ends
// (Ctrl-C or SIGTERM: a graceful shutdown).
func runDisaggFront(ctx context.Context, ios *IOStreams, g *globalOptions, o *serveOptions, opts server.FrontOptions) error {
	if err := o.checkAddr(true); err != nil {
		return err
	}
	opts.Addr, opts.APIKey = o.Addr, o.apiKey(ios)
	opts.Logf = func(format string, args ...any) {
		if !g.Quiet {
			fmt.Fprintf(ios.ErrOut, format+"\n", args...)
		}
	}
	opts.Ready = func(addr string) { sayFrontListening(ios, addr, opts) }
	return server.RunFront(ctx, opts)
}

// sayFrontListening is the front's line on stderr once it listens on addr.
func sayFrontListening(ios *IOStreams, addr string, opts server.FrontOptions) {
	fmt.Fprintf(ios.ErrOut, "kvctl serve: disaggregated front listening on http://%s (context %s; generation %s; %s)\n",
		addr, strings.Join(opts.Context, ","), strings.Join(opts.Generation, ","), opts.Routing)
}

// roleNote is how the listening line names a server's role.
func (d *disaggFlags) roleNote() string {
	if d.ServerRole == "" {
		return ""
	}
	return " as a " + d.ServerRole + " server"
}
