package mem

// capacityHeadroom is the fraction of a pool sized by CapacityFor that its
// objects may fill: below DefaultHighWatermark (0.90), so that the pool
// never evicts.
const capacityHeadroom = 0.85

// CapacityFor returns the capacity of a pool that holds count copies of
// objects of each of sizes without evicting: each object takes its size
// rounded up to its bin (as the offset allocator rounds it), the total is at most 85% of the capacity (below
// the default high watermark), rounded up to 1 MiB, at least 64 MiB. A
// pool allocates its arenas as it fills, so sizing for the worst case
// costs only what is stored.
func CapacityFor(count int64, sizes []int64) int64 {
	c := int64(float64(count*allocSizes(sizes)) / capacityHeadroom)
	const mib = 1 << 20
	return max(64*mib, (c+mib-1)/mib*mib)
}

// heapPerKey is about what a stored key costs the Go heap beside its
// value: its object, its share of the index's table and its packed key
// (the whole-trace replay's pool of 2.96M keys allocated 258, 32 and 47
// MiB for them: docs/benchmarks.md, "The index's own table").
const heapPerKey = 120

// HeapFor is about the most Go heap a pool takes that holds count copies
// of objects of each of sizes (as one sized by CapacityFor does): their
// values, each its size rounded up to its bin, and heapPerKey for each
// key.
func HeapFor(count int64, sizes []int64) int64 {
	return count * (allocSizes(sizes) + int64(len(sizes))*heapPerKey)
}

// allocSizes is the space objects of each of sizes take together, each
// rounded up to its bin.
func allocSizes(sizes []int64) int64 {
	var n int64
	for _, s := range sizes {
		n += allocSize(s, 0)
	}
	return n
}
