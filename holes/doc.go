// Package holes maps prefix holes in a KV-cache pool and predicts them.
//
// A prefix lookup stops at its first missing block, so a block evicted from
// the middle of a chain leaves a hole: the blocks stored behind it use space
// and are never read. Probe asks a pool which pages of each request's blocks
// exist (one batched, read-only exist per request or per chunk of keys, or
// the connector's leasing exist when asked) and analyses every request with
// stats.Analyze; ProbePrompt does the same for one prompt and keeps each
// page key's status. Simulate replays requests in arrival order into an embedded
// pool that the caller opens (kvctl opens pool/mem in metadata-only mode, so
// pools far larger than the machine can be modelled) with Mooncake's leases
// and eviction on the trace's virtual clock (the master's eviction thread
// every 10 ms of it, pool/replay's Clock): each request looks up its
// blocks as the connector does, then saves the blocks it computed, and the
// holes that eviction tears into prefixes are counted the same way.
package holes
