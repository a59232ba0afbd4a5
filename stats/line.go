package stats

import (
	"strconv"
	"strings"
	"time"
)

// The markers that open each kind of statistics line.
const (
	HolesMarker     = "prefix-hole stats:"
	LoadMarker      = "load stats:"
	AsyncLoadMarker = "mooncake-store async-load stats:"
)

// NoRank is the rank that, passed to HolesLine or LoadLine, leaves rank=
// out of the line.
const NoRank = -1

// HolesLine formats h as a prefix-hole stats line (see the package doc),
// naming rank unless it is NoRank.
func HolesLine(rank int, h Holes) string {
	var w lineWriter
	w.b.WriteString(HolesMarker)
	w.rank(rank)
	w.int("lookups", h.Lookups)
	w.int("looked_up_blocks", h.LookedUpBlocks)
	w.int("hit_blocks", h.HitBlocks)
	w.int("holes", h.Holes)
	w.int("hole_blocks", h.HoleBlocks)
	w.int("behind_hole_blocks", h.BehindHoleBlocks)
	w.int("recomputed_tokens", h.RecomputedTokens)
	w.int("requests", h.Requests)
	w.int("blocks", h.Blocks)
	w.int("prompt_tokens", h.PromptTokens)
	w.int("hit_tokens", h.HitTokens)
	w.field("hit_rate", strconv.FormatFloat(h.HitRate(), 'f', 4, 64))
	return w.b.String()
}

// LoadLine formats l as a load stats line (see the package doc), naming
// rank unless it is NoRank. Phases that never ran are left out.
func LoadLine(rank int, l Load) string {
	var w lineWriter
	w.b.WriteString(LoadMarker)
	w.rank(rank)
	op := l.Op
	if op == "" {
		op = OpLoad
	}
	w.field("op", string(op))
	w.int("pages", l.Pages)
	w.int("store_calls", l.StoreCalls)
	w.int("bytes", l.Bytes)
	w.int("failed_pages", l.FailedPages)
	for i, p := range l.Phases {
		if p.Count > 0 || p.Wall > 0 || p.MaxWall > 0 || p.CPU > 0 || p.CPUCount > 0 {
			w.phase(Phase(i).String(), p)
		}
	}
	if a := l.Async; a != nil {
		w.int("workers", a.Workers)
		w.int("completed", a.Completed)
		w.ms("wait_ms_mean", a.WaitMean())
		w.ms("wait_ms_max", a.WaitMax)
		w.ms("transfer_ms_mean", a.TransferMean())
		w.ms("transfer_ms_max", a.TransferMax)
		w.int("queue", a.Queue)
		w.int("active", a.Active)
	}
	return w.b.String()
}

type lineWriter struct{ b strings.Builder }

func (w *lineWriter) field(key, value string) {
	w.b.WriteByte(' ')
	w.b.WriteString(key)
	w.b.WriteByte('=')
	w.b.WriteString(value)
}

func (w *lineWriter) int(key string, v int64) { w.field(key, strconv.FormatInt(v, 10)) }

// ms writes a duration in milliseconds with microsecond precision.
func (w *lineWriter) ms(key string, d time.Duration) {
	w.field(key, strconv.FormatFloat(float64(d.Round(time.Microsecond))/1e6, 'f', 3, 64))
}

func (w *lineWriter) rank(rank int) {
	if rank >= 0 {
		w.int("rank", int64(rank))
	}
}

func (w *lineWriter) phase(name string, p PhaseStats) {
	w.int(name+"_n", p.Count)
	w.ms(name+"_ms", p.Wall)
	w.ms(name+"_max_ms", p.MaxWall)
	w.ms(name+"_cpu_ms", p.CPU)
	if p.CPUCount != p.Count {
		w.int(name+"_cpu_n", p.CPUCount)
	}
}
