package mem

import "math/bits"

// binCount bins cover every int64 size: a bin is a size rounded down to a
// float with a 3-bit mantissa (the bins of an offset allocator), so sizes in
// one bin differ by at most 12.5%.
const (
	binCount  = 512
	scanLimit = 8
)

// maxBinSize is the largest size upstream's offset allocator bins
// (SmallFloat::MAX_BIN_SIZE, offset_allocator.cpp, 3.75 GB): a segment
// larger than it is allocated in quanta of 2^quantumBits bytes.
const maxBinSize = 4026531840

// alignUp rounds n up to a multiple of Granule.
func alignUp(n int64) int64 { return (n + Granule - 1) &^ (Granule - 1) }

// quantumBits is how many low bits of a size upstream's OffsetAllocator
// drops for a segment of capacity bytes (calculateMultiplier,
// offset_allocator.cpp): the fewest that bring the capacity to at most
// maxBinSize.
func quantumBits(capacity int64) uint {
	var b uint
	for capacity>>b > maxBinSize {
		b++
	}
	return b
}

// binRoundUp is the size the offset allocator consumes for n bytes
// (OffsetAllocator::allocate and __Allocator::allocate, the round-up to
// the bin size, offset_allocator.cpp): n in quanta of 2^qbits rounded up,
// then rounded up to a float with a 3-bit mantissa
// (SmallFloat::uintToFloatRoundUp): exact below 8 quanta, otherwise to a
// multiple of 2^(e-3) where 2^e is n's highest bit, so m*2^k with m <= 15
// is exact and anything else grows by less than 12.5%.
func binRoundUp(n int64, qbits uint) int64 {
	q := (n + 1<<qbits - 1) >> qbits
	if q >= 8 {
		step := int64(1) << (bits.Len64(uint64(q)) - 4)
		q = (q + step - 1) &^ (step - 1)
	}
	return q << qbits
}

// allocSize is what an object of n bytes takes of a segment whose sizes
// are in quanta of 2^qbits: its bin size (binRoundUp), aligned to
// Granule (a no-op from 512 bytes up, where bins are multiples of 64).
func allocSize(n int64, qbits uint) int64 { return alignUp(binRoundUp(n, qbits)) }

// binDown is the bin holding free extents of size n.
func binDown(n int64) int {
	u := uint64(n)
	e := bits.Len64(u) - 1
	if e < 3 {
		return int(u)
	}
	m := (u >> (e - 3)) & 7
	return (e-2)<<3 | int(m)
}

// binLow is the smallest size that falls in bin b.
func binLow(b int) int64 {
	if b < 8 {
		return int64(b)
	}
	e := b>>3 + 2
	return int64(8|b&7) << (e - 3)
}

// binUp is the first bin whose every extent can hold n bytes.
func binUp(n int64) int {
	b := binDown(n)
	if binLow(b) < n {
		b++
	}
	return b
}
