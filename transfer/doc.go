// Package transfer moves KV-cache pages between GPU page pools and a
// pool.Store: the worker half of the Mooncake-store connector
// (spec/connector.md).
//
// # Layout
//
// A Layout has one LayerGroup per layer group; a group's page is a list of
// regions (K, V, ...), and the page's value in the pool is the regions
// concatenated, bytes_per_page = the sum of the region sizes. On the GPU a
// PagePool holds N pages of one group in one device allocation split into
// per-region pools, region-major: region r of page i lies at
// regionBase[r] + i*RegionBytes[r]. A page's regions are therefore not
// contiguous on the GPU (as with separate K and V pools), which is why the
// memcpy copy mode moves one region per copy.
//
// # Staging
//
// Without direct mode, pages go through pinned host staging: slots of
// max_bytes_per_page bytes, slots = max(1, min(batch, staging_bytes /
// max_bytes_per_page)) (StagingGeometry), one staging pool per direction
// (a Loader's and a Saver's), allocated once. A batch of at most slots
// pages is one store call.
//
// # Loads
//
// A Loader runs LoadJobs (one per request) synchronously; an AsyncLoader
// runs them on N workers that share one FIFO queue, each with its own
// stream, copier and an even share of the staging budget (at least
// min(64, batch) slots), and reports finished jobs through Finished (the
// connector's get_finished). The phases of a load are resolve (validate
// page references), fence (the stream waits for each job's Fence event:
// the pages' previous use), describe (build the copy descriptors), get
// (pool Get into the staging slots), unstage (copy the landed slots to the
// GPU pages with the copy mode) and sync (stream synchronize). A page whose
// Get result is not its page size (missing, evicted) fails its request:
// the key is listed in LoadResult.Missing, the request's other pages are
// skipped, and only landed slots of requests still whole are copied.
//
// # Saves
//
// A Saver copies GPU pages to staging after an event (the forward pass),
// then puts them. Phases: resolve (validate, and with SkipExisting one
// Exist call per batch, skipping present keys), describe, stage (gather to
// staging with the copy mode), sync, put. Put failures are counted per
// page and not retried; ObjectAlreadyExists answers are counted apart.
//
// # Direct mode
//
// With Direct, a pool that offers its arenas (ArenaStore, as pool/mem
// does) has them registered with the driver (mapped pinned memory) and
// pages are copied from the pool's memory in place (View), without
// staging. Direct mode is for loads only: no pool offers a put that writes
// into its arenas from the device.
//
// # Statistics
//
// Per-phase wall times, the CPU time of the thread running each phase
// (Linux, CLOCK_THREAD_CPUTIME_ID; the goroutine stays on its thread for
// the call) and counters go to a Stats sink when one is given; with a nil
// sink no clock is read. Bench drives a whole benchmark run (kvctl bench
// load|save).
package transfer
