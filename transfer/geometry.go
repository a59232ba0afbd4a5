package transfer

import "fmt"

// Geometry is the staging shape of one loader, saver or async worker.
type Geometry struct {
	// Batch is the asked transfer_batch_size, in pages.
	Batch int `json:"batch"`
	// Slots is the number of staging slots: the pages of one store call.
	Slots int `json:"slots"`
	// SlotBytes is a slot's size: max_bytes_per_page.
	SlotBytes int64 `json:"slot_bytes"`
	// StagingBytes is the budget the slots were cut from.
	StagingBytes int64 `json:"staging_bytes"`
	// Buffers is the number of staging buffers of Slots slots each that
	// the lane cycles through (Options.StagingBuffers, as many as the
	// budget holds); 0 before a loader, saver or worker sets it.
	Buffers int `json:"buffers,omitempty"`
	// Warning says why Slots differs from Batch; empty when it does not.
	Warning string `json:"warning,omitempty"`
}

// AllocBytes is the pinned memory one buffer's slots take.
func (g Geometry) AllocBytes() int64 { return int64(g.Slots) * g.SlotBytes }

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
