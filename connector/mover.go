package connector

import (
	"context"

	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
	"github.com/kvctl/kvctl/transfer"
)

// PageMover moves one batch of pages between the pool and the runtime's KV
// page memory: one store call per batch. The worker splits transfers into
// batches of at most MaxBatch pages. The timer carries the phase timings
// of the batch (a zero timer times nothing); the worker starts it in the
// resolve phase and stops it.
type PageMover interface {
	// MaxBatch is the most pages one call may carry.
	MaxBatch() int
	// Load gets keys[i] into pages[i] and writes to n[i] the value's size
	// in bytes, or a negative pool.Code (ObjectNotFound when the page is
	// missing). A page is loaded only when n[i] == len(pages[i]).
	Load(ctx context.Context, t *stats.PhaseTimer, keys []string, pages [][]byte, n []int64) error
	// Save puts items (whose values are the runtime's pages), writing one
	// pool.Code per item. The keys, like the values, are valid only during
	// the call (the worker reuses their memory when the store is a
	// pool.KeyCopier): a mover that keeps one copies it.
	Save(ctx context.Context, t *stats.PhaseTimer, items []pool.PutItem, results []pool.Code) error
}

// HostMover is the page mover of a runtime whose KV pages are host memory
// (the engine's synthetic GPU): loads get straight into the pages and
// saves put straight from them, or, with StageThroughHost, both go
// through one staging buffer per direction, as pages move through pinned
// host staging when GPU memory cannot be registered with the pool.
type HostMover struct {
	store   pool.Store
	batch   int
	staged  bool
	loadBuf stagingBuf
	saveBuf stagingBuf
	bufs    [][]byte
}

// stagingBuf is a staging pool: slots of slotBytes bytes.
type stagingBuf struct {
	mem       []byte
	slotBytes int64
}

func (s *stagingBuf) slot(i int, n int64) []byte {
	off := int64(i) * s.slotBytes
	return s.mem[off : off+n : off+n]
}

// NewHostMover returns a host page mover for store with batches of batch
// pages. With stageThroughHost, each direction allocates the slots of
// transfer.StagingGeometry(batch, stagingBytes, maxPageBytes), of
// maxPageBytes each, and a batch is at most that many pages.
func NewHostMover(store pool.Store, batch int, stageThroughHost bool, stagingBytes, maxPageBytes int64) *HostMover {
	m := &HostMover{store: store, batch: max(1, batch), staged: stageThroughHost}
	if stageThroughHost {
		m.batch = transfer.StagingGeometry(m.batch, stagingBytes, maxPageBytes).Slots
		size := int64(m.batch) * maxPageBytes
		m.loadBuf = stagingBuf{mem: make([]byte, size), slotBytes: maxPageBytes}
		m.saveBuf = stagingBuf{mem: make([]byte, size), slotBytes: maxPageBytes}
	}
	return m
}

// MaxBatch is the most pages one call may carry.
func (m *HostMover) MaxBatch() int { return m.batch }

// StagingBuffers returns the load and save staging buffers when staged,
// else nil: the memory the store's calls see, which the caller may
// register with the store (pool.BufferRegistrar).
func (m *HostMover) StagingBuffers() [][]byte {
	if !m.staged {
		return nil
	}
	return [][]byte{m.loadBuf.mem, m.saveBuf.mem}
}

// Load gets keys into pages, through the load staging buffer when staged.
func (m *HostMover) Load(ctx context.Context, t *stats.PhaseTimer, keys []string, pages [][]byte, n []int64) error {
	t.Next(stats.PhaseDescribe)
	dst := pages
	if m.staged {
		m.bufs = m.bufs[:0]
		for i, p := range pages {
			m.bufs = append(m.bufs, m.loadBuf.slot(i, int64(len(p))))
		}
		dst = m.bufs
	}
	t.Next(stats.PhaseGet)
	if err := m.store.Get(ctx, keys, dst, n); err != nil {
		return err
	}
	if m.staged {
		t.Next(stats.PhaseUnstage)
		for i, p := range pages {
			if n[i] == int64(len(p)) {
				copy(p, dst[i])
			}
		}
	}
	t.Next(stats.PhaseSync)
	return nil
}

// Save puts items, gathering their values into the save staging buffer
// first when staged.
func (m *HostMover) Save(ctx context.Context, t *stats.PhaseTimer, items []pool.PutItem, results []pool.Code) error {
	t.Next(stats.PhaseDescribe)
	if m.staged {
		t.Next(stats.PhaseStage)
		for i := range items {
			slot := m.saveBuf.slot(i, int64(len(items[i].Value)))
			copy(slot, items[i].Value)
			items[i].Value = slot
		}
	}
	t.Next(stats.PhasePut)
	if err := m.store.Put(ctx, items, results); err != nil {
		return err
	}
	t.Next(stats.PhaseSync)
	return nil
}
