package mem

import "slices"

// A lease walk's order. grantLeases writes each present key as its rank
// in the walk (the distance of its shard below the start shard) in the
// upper 32 bits and its place in the call in the lower ones, in call
// order, and needs them sorted: by rank, then by place. The ranks have
// rankBits bits, so two stable counting passes of rankDigitBits bits each
// sort a call's keys in time linear in their number, where a comparison
// sort of a page call's 64 keys was a twentieth of a Get's CPU besides
// its copies.
const (
	rankBits      = 10 // MetadataShards is 1 << rankBits
	rankDigitBits = 5
	rankDigits    = 1 << rankDigitBits
	// sortSmallWalk is the most keys sorted by comparison: below it the
	// passes' counts cost more than they save.
	sortSmallWalk = 16
)

// The passes cover exactly the ranks' bits.
const (
	_ = uint(MetadataShards - 1<<rankBits)
	_ = uint(1<<rankBits - MetadataShards)
)

// sortWalk sorts order, entries rank<<32 | place written in place order,
// as slices.Sort does, using tmp (at least as long) as scratch.
func sortWalk(order, tmp []uint64) {
	if len(order) <= sortSmallWalk {
		slices.Sort(order)
		return
	}
	src, dst := order, tmp[:len(order)]
	for shift := 32; shift < 32+rankBits; shift += rankDigitBits {
		countingPass(src, dst, shift)
		src, dst = dst, src
	}
	if &src[0] != &order[0] {
		copy(order, src)
	}
}

// countingPass writes src into dst ordered by the rankDigitBits bits of
// each entry from bit shift up, keeping src's order among equal digits.
func countingPass(src, dst []uint64, shift int) {
	var at [rankDigits]int
	for _, v := range src {
		at[v>>shift%rankDigits]++
	}
	sum := 0
	for d, c := range at {
		at[d], sum = sum, sum+c
	}
	for _, v := range src {
		d := v >> shift % rankDigits
		dst[at[d]] = v
		at[d]++
	}
}
