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
// (a Loader's and a Saver's), allocated once. A batch is at most slots
// pages. The pool holds StagingBuffers buffers of slots slots (default 2,
// reduced to what staging_bytes holds, at least 1) so that the store calls
// of one batch overlap the device copies of the previous one: a buffer is
// reused once an event recorded after its copies completed.
//
// A batch's Get or Put is split into up to Parallel concurrent store calls
// (default min(GOMAXPROCS, 16), shared evenly by async workers) of
// contiguous pages, each moving at least MinCallBytes (smaller batches
// are one call), run on goroutines while the calling one queues the
// previous batch's copies. The store must be safe for concurrent use.
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
// skipped, and only landed slots of requests still whole are copied. The
// copies of batch k are queued once all of its Gets returned, and run
// while the Gets of batch k+1 fill the other buffer; pages count as landed
// once their copies completed. Every call waits for its copies to finish.
//
// # Saves
//
// A Saver copies GPU pages to staging after an event (the forward pass),
// then puts them: Save for one request, SaveAll for a pass's requests,
// batched across them. Phases: resolve (validate, and with SkipExisting
// one Exist call per batch, skipping present keys), describe, stage
// (gather to staging with the copy mode), sync, put. Once batch k's gather
// finished its puts start, and batch k+1's gather is queued into the other
// buffer while they run. Put failures are counted per page and not
// retried; ObjectAlreadyExists answers are counted apart.
//
// # Direct mode
//
// With Direct, the pool's arenas are registered with the driver (mapped
// pinned memory; one registration per pool and device, shared by its
// loaders and savers) and pages move without staging: loads read values
// in place (ArenaStore.ViewBatch), saves reserve their values in the
// arenas (ArenaWriter.Reserve, Mooncake's PutStart), gather the pages
// into them and commit the reservations once the copies finished (PutEnd;
// a failure aborts them). pool/mem's Store is both. Direct mode works in
// sets of whole batches worth at least DirectLaunchBytes: a set's store
// calls (one per batch) and the description of its copies run on other
// goroutines while the previous set's copies are queued, and the set is
// copied in one launch. A set holds its
// views or reservations until its copies finished; up to StagingBuffers
// sets (default DefaultDirectDepth) are in flight. A request with a page
// missing fails as a whole: its pages in the same set are not copied.
//
// # Statistics
//
// Per-phase wall times, CPU times (Linux, CLOCK_THREAD_CPUTIME_ID) and
// counters go to a Stats sink when one is given; with a nil sink no clock
// is read. Wall times are those of the goroutine running the call (which
// stays on its thread for the call) and add up to the call's time. The
// phases overlap other work: get and put are the time that goroutine
// waits for a batch's store calls, which run on other goroutines while it
// describes and queues the other batch's copies (describe, unstage,
// stage), and while the device copies; sync is only the time spent
// waiting for the device (for a staging buffer to free up, and at the
// end). The CPU time of get and put is that of every thread that ran the
// batch's store calls, so it may exceed the wall time. The device's own
// copy time is measured with events (Totals.DeviceCopy). Bench drives a
// whole benchmark run (kvctl bench load|save).
package transfer
