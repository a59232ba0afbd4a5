package engine

// prefillBalance adds up how the owners of a run shared prefill, pass by
// pass (Report.OwnerPrefillTokens, Report.PrefillPerPass).
type prefillBalance struct {
	perOwner []int64
	// passes counts the passes in which any owner prefilled; sumMax adds
	// up the most prefill tokens of one owner in each, sumTotal every
	// owner's.
	passes, sumMax, sumTotal int64
	scratch                  []int
}

// start returns a zeroed slice for the prefill tokens of each of owners
// owners in a pass.
func (b *prefillBalance) start(owners int) []int {
	if len(b.perOwner) != owners {
		b.perOwner, b.scratch = make([]int64, owners), make([]int, owners)
	}
	clear(b.scratch)
	return b.scratch
}

// add records a pass's prefill tokens per owner.
func (b *prefillBalance) add(prefill []int) {
	most, total := 0, 0
	for i, n := range prefill {
		b.perOwner[i] += int64(n)
		most, total = max(most, n), total+n
	}
	if total == 0 {
		return
	}
	b.passes++
	b.sumMax += int64(most)
	b.sumTotal += int64(total)
}

// PrefillBalance is how evenly attention-DP owners shared prefill: over
// the passes in which any owner prefilled (Passes), Max is the mean of the
// most prefill tokens one owner computed in a pass and Mean the mean of
// the owners' mean; Imbalance is Max / Mean, 1 when every owner prefilled
// as much as the others. A pass costs its slowest owner's time, so
// prefill takes Imbalance times as long as an even share would.
type PrefillBalance struct {
	Passes    int64   `json:"passes"`
	Max       float64 `json:"max"`
	Mean      float64 `json:"mean"`
	Imbalance float64 `json:"imbalance"`
}

// report returns the balance, nil before any prefill.
func (b *prefillBalance) report() *PrefillBalance {
	if b.passes == 0 {
		return nil
	}
	n := float64(b.passes)
	mean := float64(b.sumTotal) / float64(len(b.perOwner)) / n
	most := float64(b.sumMax) / n
	return &PrefillBalance{Passes: b.passes, Max: most, Mean: mean, Imbalance: most / mean}
}
