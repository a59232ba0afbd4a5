package stats

// TimelineSample is a replay's pool over one interval of modelled time:
// the lookups' hit rate over the interval and the pool's occupancy at its
// end.
type TimelineSample struct {
	// AtMS is the interval's end, modelled milliseconds since the replay
	// started.
	AtMS float64 `json:"at_ms"`
	// PromptTokens and HitTokens are those of the requests looked up in
	// the interval (Holes.PromptTokens and Holes.HitTokens); HitRate is
	// HitTokens / PromptTokens, 0 with none.
	PromptTokens int64   `json:"prompt_tokens"`
	HitTokens    int64   `json:"hit_tokens"`
	HitRate      float64 `json:"hit_rate"`
	// PoolUsedBytes and PoolCapacityBytes are the pool's occupancy at
	// AtMS (both 0 when the pool could not say).
	PoolUsedBytes     int64 `json:"pool_used_bytes"`
	PoolCapacityBytes int64 `json:"pool_capacity_bytes"`
}

// MaxTimelineSamples bounds a Timeline: when it is full, neighbouring
// samples merge in pairs and its interval doubles.
const MaxTimelineSamples = 512

// Timeline samples a replay at most once per interval of modelled time,
// keeping at most MaxTimelineSamples samples however long the replay: a
// full timeline merges neighbours in pairs (their tokens add up; the
// later one's time and occupancy stay) and samples half as often. The
// zero value is not usable; use NewTimeline. It is not safe for
// concurrent use.
type Timeline struct {
	everyMS float64
	nextMS  float64
	last    Holes // the counts at the last sample
	samples []TimelineSample
}

// NewTimeline returns a timeline that samples every everyMS modelled
// milliseconds (1 when everyMS is less).
func NewTimeline(everyMS float64) *Timeline {
	everyMS = max(everyMS, 1)
	return &Timeline{everyMS: everyMS, nextMS: everyMS}
}

// Due reports whether a sample is due at atMS.
func (t *Timeline) Due(atMS float64) bool { return atMS >= t.nextMS }

// Add samples the replay at atMS: total are the hole statistics of every
// lookup so far (the interval's are the difference from the last
// sample's), used and capacity the pool's occupancy.
func (t *Timeline) Add(atMS float64, total Holes, used, capacity int64) {
	if len(t.samples) == MaxTimelineSamples {
		t.halve()
	}
	s := TimelineSample{AtMS: atMS, PromptTokens: total.PromptTokens - t.last.PromptTokens,
		HitTokens: total.HitTokens - t.last.HitTokens, PoolUsedBytes: used, PoolCapacityBytes: capacity}
	s.HitRate = tokenShare(s.HitTokens, s.PromptTokens)
	t.samples, t.last = append(t.samples, s), total
	t.nextMS = atMS + t.everyMS
}

// halve merges neighbouring samples in pairs and doubles the interval.
func (t *Timeline) halve() {
	n := 0
	for i := 0; i < len(t.samples); i += 2 {
		s := t.samples[i]
		if i+1 < len(t.samples) {
			s = mergeSamples(s, t.samples[i+1])
		}
		t.samples[n] = s
		n++
	}
	t.samples = t.samples[:n]
	t.everyMS *= 2
}

// mergeSamples is the interval of a and the later b as one sample.
func mergeSamples(a, b TimelineSample) TimelineSample {
	b.PromptTokens += a.PromptTokens
	b.HitTokens += a.HitTokens
	b.HitRate = tokenShare(b.HitTokens, b.PromptTokens)
	return b
}

// SampledAt reports whether the last sample was taken at atMS.
func (t *Timeline) SampledAt(atMS float64) bool {
	return len(t.samples) > 0 && t.samples[len(t.samples)-1].AtMS == atMS
}

// Samples are the samples so far, in time order.
func (t *Timeline) Samples() []TimelineSample { return t.samples }

// tokenShare is n / of, 0 when of is 0.
func tokenShare(n, of int64) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}
