package transfer

import (
	"fmt"

	"github.com/kvctl/kvctl/pool"
)

// Geometry is the staging shape of one loader, saver or async worker.
type Geometry struct {
	// Batch is the asked transfer_batch_size, in pages.
	Batch int `json:"batch"`
	// Slots is the most pages of one store call: the batch, as far as
	// the staging budget holds it.
	Slots int `json:"slots"`
	// SlotBytes is what one page takes at most: max_bytes_per_page.
	SlotBytes int64 `json:"slot_bytes"`
	// SetPages is the most pages one set carries: one launch of copies,
	// made of store calls of at most Slots pages that run on the lane's
	// crew. Staged, a set fills one staging buffer of SetPages times
	// SlotBytes (SetBytes worth, as far as the budget holds it); direct,
	// it is whole batches worth SetBytes. 0 before a loader,
	// saver or worker sets it.
	SetPages int `json:"set_pages,omitempty"`
	// StagingBytes is the budget the slots were cut from.
	StagingBytes int64 `json:"staging_bytes"`
	// Buffers is the number of sets in flight: staged, the staging
	// buffers of SetPages slots each that the lane cycles through
	// (Options.StagingBuffers, as many as the budget holds); 0 before a
	// loader, saver or worker sets it.
	Buffers int `json:"buffers,omitempty"`
	// PageParts is how many calls on the crew a staged transfer moves
	// each page in when it moves pages in parts (PartBytes); 0 when it
	// moves them whole.
	PageParts int `json:"page_parts,omitempty"`
	// Warning says why Slots differs from Batch; empty when it does not.
	Warning string `json:"warning,omitempty"`
}

// AllocBytes is the pinned memory one staging buffer takes: SetPages
// slots, or Slots before SetPages is set.
func (g Geometry) AllocBytes() int64 {
	if g.SetPages > 0 {
		return int64(g.SetPages) * g.SlotBytes
	}
	return int64(g.Slots) * g.SlotBytes
}

// PinnedBytes is the pinned staging memory of all the buffers, AllocBytes
// times Buffers (direct mode stages nothing: there Buffers only bounds the
// batches in flight).
func (g Geometry) PinnedBytes() int64 { return g.AllocBytes() * int64(max(g.Buffers, 1)) }

// StagingGeometry computes the connector's staging geometry:
// slots = max(1, min(batch, stagingBytes / maxPageBytes)). When that
// reduces the batch, Warning says so (for the caller to log).
func StagingGeometry(batch int, stagingBytes, maxPageBytes int64) Geometry {
	g := Geometry{Batch: batch, SlotBytes: maxPageBytes, StagingBytes: stagingBytes}
	g.Slots = max(1, min(batch, int(min(stagingBytes/max(maxPageBytes, 1), int64(batch)))))
	if g.Slots < batch {
		g.Warning = fmt.Sprintf("transfer_batch_size %d reduced to %d: staging_buffer_bytes %d holds %d pages of %d bytes",
			batch, g.Slots, stagingBytes, stagingBytes/max(maxPageBytes, 1), maxPageBytes)
	}
	return g
}

// WorkerGeometry is one async worker's share: the budget split evenly over
// workers, but never fewer than min(64, batch) slots (which may exceed the
// budget; Warning then says so).
func WorkerGeometry(batch int, stagingBytes, maxPageBytes int64, workers int) Geometry {
	workers = max(workers, 1)
	g := StagingGeometry(batch, stagingBytes/int64(workers), maxPageBytes)
	g.StagingBytes = stagingBytes
	if floor := min(64, batch); g.Slots < floor {
		g.Slots = floor
		g.Warning = fmt.Sprintf("each of %d async workers takes the minimum of %d slots (%d bytes in all), beyond staging_buffer_bytes %d",
			workers, floor, int64(floor)*maxPageBytes*int64(workers), stagingBytes)
	} else if g.Slots < batch {
		g.Warning = fmt.Sprintf("transfer_batch_size %d reduced to %d per async worker: %d workers share staging_buffer_bytes %d",
			batch, g.Slots, workers, stagingBytes)
	}
	return g
}

// SetBytes is what one set of copies carries: staged, at most (one
// staging buffer, as far as the budget holds buffers of it); direct, at
// least (whole batches). A set's pages move in one launch, after store
// calls that run on the lane's crew, so that small pages cost neither a
// launch nor a wait per batch.
const SetBytes = 16 << 20

// maxSetBytes bounds a staged set that grows beyond its setShape's bytes
// to give each of the crew's threads its pages: the most the copier's
// bounce buffer moves with one contiguous copy.
const maxSetBytes = 4 * SetBytes

// flightBytes is the most staging a lane's sets in flight hold, as far as
// two sets allow: a staged lane has as many buffers of its sets as fit in
// it (and in the budget, up to the buffers asked for). Less staging in
// flight costs the copies into and out of it less CPU time: on the H200,
// 1 MiB pages saved in two sets of 64 MiB moved 0.83-0.85 of the link,
// their Puts taking 178-204 ms of CPU per GiB, against 0.63-0.65 and
// 316-331 ms in four (docs/benchmarks.md, "Staged sets: smaller for
// loads").
const flightBytes = 128 << 20

// setShape is how much a lane's staged set carries.
type setShape struct {
	// bytes is a set's worth of pages (at least one page).
	bytes int64
	// perThread is the pages per crew thread a set grows to, as far as
	// maxSetBytes allows.
	perThread int64
	// partBytes, when positive, is the most of a page one call on the
	// crew moves where the pool can take parts (PartBytes, parted).
	partBytes int64
	// canPart says whether pages can move in parts to or from a pool.
	canPart func(pool.Store) bool
}

// LoadSetBytes is what a staged load's set carries (SetBytes is a
// save's): the less staging a load has in flight, the less CPU time its
// copies into staging take (the host's cache is the likely reason; not
// measured). On the H200 (docs/benchmarks.md, "Staged sets: smaller for
// loads"), sets of 8 MiB loaded 4 KiB pages at 0.74-0.75 of the link
// against 0.67-0.71 in sets of 16 MiB, and 16 KiB pages at 0.84-0.87
// against 0.81-0.82, with a sixth less CPU time in their Gets; 1 MiB pages
// moved 0.65-0.73 in sets of 64 MiB (four pages per thread; 256 MiB in
// flight) and 0.84-0.89 in sets of 16. Four async workers of 16 MiB
// sets each moved 0.65-0.76, of 4 MiB sets 0.77-0.81 (64 KiB pages).
// Where the pool cannot get parts of values (PartBytes), a page is one
// Get on one thread, so a load's set grows to one page per thread: 4 MiB
// pages in sets of four moved 0.43-0.44, in sets of sixteen 0.62-0.70;
// got in parts, in sets of 8 MiB, 0.87-0.91. Saves, whose gathers run on
// the device, lost with smaller sets (64 KiB pages in sets of 8 MiB took
// 33 ms of device time per GiB, in sets of 16 MiB 20), so theirs grow to
// four pages per thread, unless the pool takes their pages in parts.
const LoadSetBytes = SetBytes / 2

// The sets of a loader and a saver.
var (
	loadSets = setShape{bytes: LoadSetBytes, perThread: 1, partBytes: PartBytes, canPart: getsParts}
	saveSets = setShape{bytes: SetBytes, perThread: 4, partBytes: PartBytes, canPart: reservesParts}
)

// asyncSets is the sets of each of workers async load workers: they
// share SetBytes (at least minSetBytes each), so that the staging in
// flight stays what one worker alone has. An async worker's call loads
// a cycle of its sets, so smaller sets also mean more calls: sets of
// LoadSetBytes/workers (one worker: 8 MiB, four: 2 MiB) loaded 64 KiB
// pages at 0.72-0.75 of the link on the H200, of SetBytes/workers
// 0.77-0.81 (docs/benchmarks.md, "Staged sets: smaller for loads").
func asyncSets(workers int) setShape {
	return setShape{bytes: max(minSetBytes, SetBytes/int64(max(workers, 1))), perThread: 1, partBytes: PartBytes, canPart: getsParts}
}

// withStagedSets sets g's sets for staged transfers with budget bytes of
// staging and a crew of threads: shape's worth of pages per set (at
// least one page, and shape's pages per thread as far as maxSetBytes
// allows), fewer when want buffers of them do not fit, but
// at least min(Slots, that); then as many buffers as the budget and
// flightBytes (or two sets) hold, up to want, at least 1.
func (g Geometry) withStagedSets(shape setShape, want int, budget int64, threads int) Geometry {
	page := max(g.SlotBytes, 1)
	most := max(1, shape.bytes/page, min(shape.perThread*int64(threads), maxSetBytes/page))
	fit := int(min(most, budget/max(int64(max(want, 1))*g.SlotBytes, 1)))
	g.SetPages = max(min(g.Slots, int(most)), fit)
	g.Buffers = stagingBuffers(want, g, min(budget, max(flightBytes, 2*g.AllocBytes())))
	return g
}

// withDirectSets sets g's sets for direct transfers: directPages of the
// largest page, depth of them in flight.
func (g Geometry) withDirectSets(depth int) Geometry {
	g.SetPages = directPages(g.Slots, g.SlotBytes)
	g.Buffers = depth
	return g
}
