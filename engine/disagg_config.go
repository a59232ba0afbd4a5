package engine

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kvctl/kvctl/connector"
)

// Defaults of DisaggConfig.
const (
	// DefaultKVTransferGBps is the link between a context and a generation
	// server when DisaggConfig.TransferGBps is zero: Costs' default
	// bandwidth.
	DefaultKVTransferGBps = 25
	// DefaultKVTransferTimeout is kv_transfer_timeout_ms when
	// DisaggConfig.TransferTimeout is zero: 60 s of modelled time.
	DefaultKVTransferTimeout = 60 * time.Second
	// MaxDisaggServers bounds each role's servers.
	MaxDisaggServers = 256
)

// DisaggConfig is disaggregated serving in one process: Context servers
// prefill each request and generate its first token, then its KV moves
// over a modelled link to one of Generation servers, which decodes the
// rest. Zero Context and Generation leave it off.
type DisaggConfig struct {
	// Context and Generation are the servers of each role (ParseDisagg).
	Context, Generation int
	// TransferGBps is each generation server's receive link, in GB/s
	// (default DefaultKVTransferGBps); its transfers take turns on it.
	TransferGBps float64
	// TransferTimeout is kv_transfer_timeout_ms: a receive not done this
	// long after it started is cancelled and its request fails
	// (default DefaultKVTransferTimeout).
	TransferTimeout time.Duration
	// GenerationReservationOff turns off the completion reservation that
	// generation servers run by default (SchedulerConfig.CompletionReservation).
	GenerationReservationOff bool
	// ErrorRate is the probability that a transfer fails, drawn from
	// Faults.Seed: on the sending side (the context server's failure, the
	// paired generation leg is cancelled) or on the receiving side, with
	// even odds. Delay is added to every transfer's time.
	ErrorRate float64
	Delay     time.Duration
}

// On reports whether the run is disaggregated.
func (d DisaggConfig) On() bool { return d.Context > 0 || d.Generation > 0 }

func (d DisaggConfig) withDefaults() DisaggConfig {
	if !d.On() {
		return d
	}
	d.TransferGBps = cmp.Or(d.TransferGBps, DefaultKVTransferGBps)
	d.TransferTimeout = cmp.Or(d.TransferTimeout, DefaultKVTransferTimeout)
	return d
}

// validate checks d, defaults filled, against the rest of c.
func (d DisaggConfig) validate(c *Config) error {
	if !d.On() {
		return nil
	}
	switch {
	case d.Context < 1 || d.Generation < 1 || d.Context > MaxDisaggServers || d.Generation > MaxDisaggServers:
		return fmt.Errorf("disagg ctx=%d,gen=%d: want 1..%d servers of each role", d.Context, d.Generation, MaxDisaggServers)
	case d.TransferGBps <= 0 || d.TransferTimeout <= 0 || d.Delay < 0:
		return fmt.Errorf("kv transfer at %g GB/s, timeout %v, delay %v: want a positive bandwidth and timeout and no negative delay", d.TransferGBps, d.TransferTimeout, d.Delay)
	case d.ErrorRate < 0 || d.ErrorRate > 1:
		return fmt.Errorf("kv transfer error rate %g is outside [0, 1]", d.ErrorRate)
	case c.AttentionDP > 0 || c.Keys.Layout.World > 1:
		return errors.New("disagg runs servers of one rank each: not with attention dp or tp (the servers are the owners)")
	case c.Connector.AsyncLoad || c.Draft.Kind != connector.DraftNone:
		return errors.New("disagg does not run async loads or a draft")
	case d.Context == 1 && c.Routing != RouteLeastLoaded:
		return fmt.Errorf("adp routing %s places requests on context servers: it needs ctx above 1", c.Routing)
	case !c.Connector.saves():
		return fmt.Errorf("disagg context servers save what they prefill: connector role %s, want %s or %s", c.Connector.Role, connector.RoleProducer, connector.RoleBoth)
	}
	return nil
}

// ParseDisagg parses "ctx=N,gen=M", the servers of each role, both needed.
func ParseDisagg(spec string) (ctx, gen int, err error) {
	seen := map[string]bool{}
	for _, part := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		n, perr := strconv.Atoi(strings.TrimSpace(v))
		if !ok || perr != nil || n < 1 || n > MaxDisaggServers {
			return 0, 0, fmt.Errorf("disagg %q: %q: want ctx=N,gen=M with N and M in 1..%d", spec, part, MaxDisaggServers)
		}
		k = strings.TrimSpace(k)
		if seen[k] {
			return 0, 0, fmt.Errorf("disagg %q: %s given twice", spec, k)
		}
		seen[k] = true
		switch k {
		case "ctx":
			ctx = n
		case "gen":
			gen = n
		default:
			return 0, 0, fmt.Errorf("disagg %q: unknown role %q (want ctx, gen)", spec, k)
		}
	}
	if ctx == 0 || gen == 0 {
		return 0, 0, fmt.Errorf("disagg %q: want both ctx=N and gen=M", spec)
	}
	return ctx, gen, nil
}

// roleConfig is c, defaults filled, for the servers of one role: n
// owners; generation servers load only (after a preemption), run the
// completion reservation unless turned off and emit no statistics lines.
func (c Config) roleConfig(n int, generation bool) Config {
	reserve := !c.Disagg.GenerationReservationOff
	c.AttentionDP, c.Disagg = n, DisaggConfig{}
	if generation {
		c.Routing = RouteLeastLoaded
		c.Connector.Role = connector.RoleConsumer
		c.Scheduler.CompletionReservation = reserve
		c.StatsInterval = 0 // they look nothing up: the context servers' lines say it all
	}
	return c
}
