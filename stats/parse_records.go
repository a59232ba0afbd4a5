package stats

import (
	"math"
	"time"
)

// holes reads a prefix-hole stats line. The connector's fields are
// required; the request and token counts are optional.
func (f fields) holes() (Holes, error) {
	r := reader{f: f}
	h := Holes{
		Lookups:          r.int("lookups", true),
		LookedUpBlocks:   r.int("looked_up_blocks", true),
		HitBlocks:        r.int("hit_blocks", true),
		Holes:            r.int("holes", true),
		HoleBlocks:       r.int("hole_blocks", true),
		BehindHoleBlocks: r.int("behind_hole_blocks", true),
		RecomputedTokens: r.int("recomputed_tokens", true),
		Requests:         r.int("requests", false),
		Blocks:           r.int("blocks", false),
		PromptTokens:     r.int("prompt_tokens", false),
		HitTokens:        r.int("hit_tokens", false),
	}
	return h, r.err
}

// load reads a load stats line: the counters are required, phases and
// the async fields optional.
func (f fields) load() (Load, error) {
	op, err := parseOp(f["op"])
	if err != nil {
		return Load{}, err
	}
	r := reader{f: f}
	l := Load{
		Op:          op,
		Pages:       r.int("pages", true),
		StoreCalls:  r.int("store_calls", true),
		Bytes:       r.int("bytes", true),
		FailedPages: r.int("failed_pages", true),
	}
	for i := range l.Phases {
		l.Phases[i] = r.phase(Phase(i).String())
	}
	if _, has := f["completed"]; has {
		l.Async = r.async()
	}
	return l, r.err
}

func (r *reader) phase(name string) PhaseStats {
	p := PhaseStats{
		Count:   r.int(name+"_n", false),
		Wall:    r.ms(name+"_ms", false),
		MaxWall: r.ms(name+"_max_ms", false),
		CPU:     r.ms(name+"_cpu_ms", false),
	}
	p.CPUCount = p.Count
	if _, has := r.f[name+"_cpu_n"]; has {
		p.CPUCount = r.int(name+"_cpu_n", false)
	}
	return p
}

func (r *reader) async() *AsyncStats {
	a := &AsyncStats{
		Workers:     r.int("workers", false),
		Completed:   r.int("completed", true),
		WaitMax:     r.ms("wait_ms_max", true),
		TransferMax: r.ms("transfer_ms_max", true),
		Queue:       r.int("queue", true),
		Active:      r.int("active", true),
	}
	a.WaitSum = r.sum(r.ms("wait_ms_mean", true), a.Completed)
	a.TransferSum = r.sum(r.ms("transfer_ms_mean", true), a.Completed)
	return a
}

// sum is mean*n, or an error when it overflows a duration.
func (r *reader) sum(mean time.Duration, n int64) time.Duration {
	if n != 0 && mean > time.Duration(math.MaxInt64/n) {
		if r.err == nil {
			r.err = errTooLarge("mean times completed")
		}
		return 0
	}
	return mean * time.Duration(n)
}

type errTooLarge string

func (e errTooLarge) Error() string { return string(e) + " is too large" }

// asyncLoad reads TensorRT-LLM's async-load line; every field is required.
func (f fields) asyncLoad() (AsyncLoad, error) {
	r := reader{f: f}
	a := AsyncLoad{
		Workers:      r.int("workers", true),
		Completed:    r.int("completed", true),
		WaitMean:     r.ms("wait_ms_mean", true),
		WaitMax:      r.ms("wait_ms_max", true),
		TransferMean: r.ms("transfer_ms_mean", true),
		TransferMax:  r.ms("transfer_ms_max", true),
		Queue:        r.int("queue", true),
		Active:       r.int("active", true),
		FailedPages:  r.int("failed_pages", true),
		LoadedGiB:    r.float("loaded_gib", true),
	}
	return a, r.err
}
