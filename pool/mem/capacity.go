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
	var per int64
	for _, s := range sizes {
		per += allocSize(s, 0)
	}
	c := int64(float64(count*per) / capacityHeadroom)
	const mib = 1 << 20
	return max(64*mib, (c+mib-1)/mib*mib)
}
