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
// # Sets and the pipeline
//
// Pages move in sets: one launch of copies each, after the set's store
// calls, which run on the lane's crew (Options.Parallel threads, the
// goroutine waiting for them included; default: DefaultParallel). Loads,
// saves, staged and direct, are one loop (pipeline.run) with two stages
// per set, one on the crew and one on the device: while the device moves
// one set, the crew works on the next ones, and the goroutine running the
// call queues copies. Up to StagingBuffers sets (default
// DefaultStagingBuffers) are in flight: a load's set starts as soon as
// its buffer is free, so its store calls for the next sets queue on the
// crew (which takes them in order) while a set's copies are queued; so
// does a staged save's, whose buffer is free once the crew put it (the
// next sets' gathers queue on the stream while the crew puts a set); a
// direct save keeps one set ahead (the next set's reservations on the
// crew while a set's copies are queued). A set is reused once an event
// recorded after its copies completed.
//
// # Staging
//
// Without direct mode, a set lies in a buffer of pinned host staging,
// its pages one after the other, so that in kernel mode the set moves
// with one contiguous copy (a copy engine, through a device bounce
// buffer) and the scatter or gather kernel on the device.
// The copier moves the contiguous copies on a stream of its own
// (cuda.Copier.SetOverlap), so one set's copy overlaps the kernel of the
// set before (loads) or after (saves); direct sets of adjacent pool
// values move the same way. A set is
// SetBytes of pages for a save, LoadSetBytes for a load (each of n async
// workers' SetBytes/n, at least 2 MiB; at least one page, and as far as
// 64 MiB allows, a load's grows to one page per crew thread, a save's to
// four): fewer when StagingBuffers
// buffers of it do not fit staging_bytes, but at least one batch of
// slots = max(1, min(batch, staging_bytes / max_bytes_per_page)) pages
// (StagingGeometry, the connector's store-call size); the buffers are
// reduced to what the budget holds, at least 1 (Geometry). A set is
// split into store calls of at most slots pages, about four per crew
// thread and at least MinCallBytes each (one call per batch with a crew
// of one): the calls make the copies between the pool's values and
// staging, so the crew's size is the number of threads copying. In
// kernel mode a load's Get calls also write the set's scatter
// descriptors (cuda.DescSet, one per set, as in direct mode below: each
// call its pages' share, staging rebased into the set's bounce buffer),
// so the goroutine only empties the descriptors of requests that failed
// and launches; the calls' shares join into one run, one copy-engine
// copy of the set. A save's gather descriptors are written on the
// goroutine before the set's puts, in one pass into the set's DescSet
// (cuda.RunWriter: the set is one run), while the crew puts the set
// before: on the crew they measured no better. A described set's runs are
// joined before its start event is recorded, so that a call's device time
// counts the device's work alone. A pool
// that takes buffer registrations (pool.BufferRegistrar, a Mooncake
// Store's register_buffer) gets the staging registered while the lane
// lives, so its calls move values straight into and out of it. The
// store must be safe for concurrent use.
//
// # Loads
//
// A Loader runs LoadJobs (one per request) synchronously; an AsyncLoader
// runs them on N workers that share one FIFO queue, each with its own
// stream, copier, crew (an even share of the threads) and an even share
// of the staging budget (at least min(64, batch) slots), and reports
// finished jobs through Finished (the connector's get_finished). The
// phases of a load are resolve (validate page references), fence (the
// stream waits for each job's Fence event: the pages' previous use),
// get (waiting for the set's store calls: pool Get into staging, or views
// in direct mode; the calls also describe the copies, and in kernel mode
// write their descriptors), describe (take the next sets'
// pages and queue their calls; drop the copies of failed requests),
// unstage (queue the copies to the GPU pages with the copy mode; in
// kernel mode join the calls' runs and launch) and sync
// (waiting for the device). A page
// whose Get result is not its page size (missing, evicted) fails its
// request: the key is listed in LoadResult.Missing, the request's pages
// in the same set are not copied and its later pages are skipped; pages
// of sets queued before stay landed. Once set k's calls returned, the
// calls of set k+1 start before set k's copies are queued; pages count
// as landed once their copies completed. Every call waits for its
// copies to finish.
//
// # Saves
//
// A Saver copies GPU pages to the pool once an event (the forward pass)
// completed: Save for one request, SaveAll for a pass's requests, in
// sets across them. Staged, the device gathers a set into its staging
// buffer first (phases resolve, with SkipExisting one Exist call per
// batch skipping present keys; describe; stage; sync), then the crew
// puts it (put), while the gathers of the next sets are queued. Pages of
// more than PartBytes move in parts where the pool can take them: a load
// gets each part with its own call (pool.PartGetter), a save reserves the
// set's places (pool.Reserver), copies the parts into them on the crew and
// commits them. Put failures are counted per page and not retried;
// ObjectAlreadyExists answers are counted apart.
//
// # Direct mode
//
// With Direct, the pool's arenas are registered with the driver (mapped
// pinned memory) in a registry, Arenas (Options.Arenas, default
// DefaultArenas): one registration per pool and device, shared by the
// loaders and savers that name the registry. Pages move without staging: loads read values
// in place (ArenaStore.ViewBatch), saves reserve their values in the
// arenas (ArenaWriter.Reserve, Mooncake's PutStart) on the crew first,
// gather the pages into them and commit the reservations once the
// copies finished (PutEnd; a failure aborts them). pool/mem's Store is
// both. A direct set is whole batches worth at least SetBytes, one store
// call per batch, and holds its views or reservations until its copies
// finished; then a goroutine of the call's (finisher) ends the views or
// commits the reservations while later sets move, and the views of the
// sets still in flight when the call drains end on the crew. A request
// with a page missing fails as a whole: its pages in the same set are
// not copied.
//
// In kernel mode a direct set's store calls also write the kernel's
// descriptors (cuda.DescSet, one per set): each call its pages' share,
// at offsets the goroutine laid out when it took the set's pages (the
// pages' descriptors one after the other), pages not found or not
// reserved as empty descriptors, runs of adjacent pool values at their
// place in the set's own bounce buffer. The goroutine queueing the
// device's work then only joins the runs of adjacent values across calls
// (in the order of their places in the arenas, which the calls take as
// they run, not in the set's order), empties the descriptors of
// requests that failed (loads) and launches: the set's
// host work runs on the crew, beside the device's copies of the set
// before.
//
// # Statistics
//
// Per-phase wall times, CPU times (Linux, CLOCK_THREAD_CPUTIME_ID) and
// counters go to a Stats sink when one is given; with a nil sink no clock
// is read. Wall times are those of the goroutine running the call (which
// stays on its thread for the call) and add up to the call's time. The
// phases overlap other work: get and put are the time that goroutine
// waits for a set's store calls, which run on the crew (describing the
// set's copies, and in kernel mode writing a load's or a direct save's
// descriptors) while
// it queues the other set's copies (describe, unstage, stage), and while
// the device copies; sync is only the time spent
// waiting for the device (for a set to free up, and at the end). The CPU
// time of get and put is that of every thread that ran the set's store
// calls, so it may exceed the wall time. The device's own
// copy time is measured with events around each set's copies, overlaps
// counted once (Totals.DeviceCopy). Bench drives a
// whole benchmark run (kvctl bench load|save).
package transfer
