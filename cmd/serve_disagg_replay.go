package cmd

import (
	"fmt"
	"time"

	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/server"
	"github.com/kvctl/kvctl/size"
	"github.com/spf13/pflag"
)

// disaggReplayFlags are the flags of a disaggregated replay, beside --disagg.
var disaggReplayFlags = []string{"kv-transfer-gbps", "kv-transfer-timeout", "gen-completion-reservation",
	"fault-kv-transfer-error-rate", "fault-kv-transfer-delay"}

// registerDisaggReplay registers the flags of a disaggregated replay.
func (o *serveOptions) registerDisaggReplay(fs *pflag.FlagSet) {
	d := &o.Engine.Disagg
	fs.StringVar(&o.DisaggServers, "disagg", "", "disaggregated: ctx=N,gen=M context (prefill, first token) and generation (decode) servers, KV moved between them (in a replay; without --trace/--synthetic, over HTTP behind a front on --addr)")
	fs.Float64Var(&d.TransferGBps, "kv-transfer-gbps", engine.DefaultKVTransferGBps, "--disagg: each generation server's KV receive link, GB/s; --server-role generation: paces its KV fetches (unpaced when not given)")
	fs.DurationVar(&d.TransferTimeout, "kv-transfer-timeout", engine.DefaultKVTransferTimeout, "--disagg: kv_transfer_timeout_ms, modelled: a KV receive not done by then fails (DISAGG_TRANS_ERROR); --server-role: in wall time, a context server's hold of a request's KV and a generation server's fetch of it")
	fs.BoolVar(&o.GenReservation, "gen-completion-reservation", true, "--disagg: generation servers admit a request only while every admitted request's bound fits")
	fs.Float64Var(&d.ErrorRate, "fault-kv-transfer-error-rate", 0, "--disagg: probability that a KV transfer fails, on the context or the generation side; --server-role generation: that a KV fetch fails (seeded by --fault-seed)")
	fs.DurationVar(&d.Delay, "fault-kv-transfer-delay", 0, "--disagg: modelled delay added to every KV transfer; --server-role generation: wall-time delay before every KV fetch")
}

// parseDisaggReplay sets the servers of --disagg, and refuses the disaggregated
// flags without it; a --server-role server, and those --disagg runs over
// HTTP, take the KV transfer's.
func (o *serveOptions) parseDisaggReplay(fs *pflag.FlagSet, cfg *engine.Config) error {
	if o.DisaggServers == "" {
		for _, name := range disaggReplayFlags {
			if fs.Changed(name) && (o.Disagg.ServerRole == "" || name == "gen-completion-reservation") {
				return usagef("--%s needs --disagg ctx=N,gen=M%s", name, map[bool]string{true: " or --server-role"}[name != "gen-completion-reservation"])
			}
		}
		o.KVTransfer = kvTransferOf(fs, cfg.Disagg)
		cfg.Disagg = engine.DisaggConfig{}
		return o.checkKVTransfer()
	}
	ctx, gen, err := engine.ParseDisagg(o.DisaggServers)
	if err != nil {
		return asUsage(fmt.Errorf("--disagg: %w", err))
	}
	cfg.Disagg.Context, cfg.Disagg.Generation = ctx, gen
	cfg.Disagg.GenerationReservationOff = !o.GenReservation
	o.KVTransfer = kvTransferOf(fs, cfg.Disagg) // the servers' over HTTP
	return nil
}

// kvTransferOf is the KV transfer of a --server-role server, from the
// flags of a disaggregated replay; the link paces only when given.
func kvTransferOf(fs *pflag.FlagSet, d engine.DisaggConfig) server.KVTransferOptions {
	x := server.KVTransferOptions{Timeout: d.TransferTimeout, ErrorRate: d.ErrorRate, Delay: d.Delay}
	if fs.Changed("kv-transfer-gbps") {
		x.GBps = d.TransferGBps
	}
	return x
}

// checkKVTransfer refuses a KV transfer that cannot run.
func (o *serveOptions) checkKVTransfer() error {
	x := o.KVTransfer
	switch {
	case x.Timeout <= 0:
		return usagef("--kv-transfer-timeout %s: want a positive duration", x.Timeout)
	case x.GBps < 0:
		return usagef("--kv-transfer-gbps %g: want a positive bandwidth", x.GBps)
	case x.ErrorRate < 0 || x.ErrorRate > 1:
		return usagef("--fault-kv-transfer-error-rate %g: want a probability in [0, 1]", x.ErrorRate)
	case x.Delay < 0:
		return usagef("--fault-kv-transfer-delay %s: want no negative delay", x.Delay)
	}
	return nil
}

// addDisaggRows adds a disaggregated run's rows to the report's table.
func addDisaggRows(tp *tablePrinter, d *engine.DisaggReport) {
	tp.addRow("disaggregated", fmt.Sprintf("%d context, %d generation servers; KV link %g GB/s, timeout %v",
		d.ContextServers, d.GenerationServers, d.KVTransferGBps, time.Duration(d.KVTransferTimeoutMS*1e6)))
	tp.addRow("context servers", fmt.Sprintf("requests %s; first token ms p50/p90/p99 %s",
		joinInts(d.Context.ServerRequests), percentilesText(d.Context.TTFTMS, "%.1f")))
	tp.addRow("generation servers", fmt.Sprintf("requests %s; TTFT end to end ms %s; ITL ms %s",
		joinInts(d.Generation.ServerRequests), percentilesText(d.Generation.TTFTMS, "%.1f"), percentilesText(d.Generation.ITLMS, "%.2f")))
	x := d.KVTransfer
	tp.addRow("kv transfers", fmt.Sprintf("%d, %s; per transfer p50/p99 %s / %s, ms %s", x.Transfers, size.Human(x.Bytes),
		size.Human(x.BytesP50), size.Human(x.BytesP99), percentilesText(x.TimeMS, "%.2f")))
	c := d.Outcomes
	tp.addRow("outcomes", fmt.Sprintf("%d completed, %d kv transfer timeouts, %d kv transfer errors, %d context failures, %d generation failures, %d lost",
		c.Completed, c.KVTransferTimeouts, c.KVTransferErrors, c.ContextFailures, c.GenerationFailures, c.Lost))
}

// percentilesText spells p as "p50 / p90 / p99" in format f.
func percentilesText(p engine.Percentiles, f string) string {
	return fmt.Sprintf(f+" / "+f+" / "+f, p.P50, p.P90, p.P99)
}
