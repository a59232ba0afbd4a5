package mooncake

// MetadataBytesPerObject estimates what a Mooncake master holds in memory
// per object, whatever the object's size: about 1 KiB. It is counted, not
// measured, from the master's data structures at 3b5a5941 on x86-64 with
// libstdc++ (docs/pools.md shows the sum): the TenantState::metadata
// unordered_map node holding the key and ObjectMetadata inline (about
// 400 bytes), the key's second copy in ObjectMetadata::user_key plus both
// copies' heap bytes for keys longer than 15 bytes, one memory Replica and
// its AllocatedBuffer, the hash bucket and the allocator's headers.
const MetadataBytesPerObject = 1024

// MetadataBytesEstimate projects a master's object metadata memory for
// objects objects; an estimate (see MetadataBytesPerObject).
func MetadataBytesEstimate(objects int64) int64 {
	return max(objects, 0) * MetadataBytesPerObject
}
