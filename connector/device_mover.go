package connector

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
	"github.com/kvctl/kvctl/transfer"
)

// DeviceMover is the page mover that moves pages the way the connector's
// worker does on a GPU, through package transfer: pinned host staging
// (transfer.StagingGeometry), batched gets and puts, scatter and gather
// copies on a stream. The runtime's pages are host memory, so each batch
// is first placed in (or finally taken from) a window of device pages:
// one transfer.PagePool of MaxBatch pages per page size, of which only the
// pages a batch takes are copied between host and device: by the
// device alone from and to their places when the runtime's page memory
// is registered with it (DeviceMoverOptions.PageMemory), else through
// the window's pinned host image. A save's upload is not waited for on
// the host: the saver's stream waits for it (uploaded), so that the host
// resolves and reserves the batch meanwhile. With the host emulation
// device (cuda.Open("host")) this runs anywhere.
type DeviceMover struct {
	dev    cuda.Device
	stream cuda.Stream
	// uploaded marks the end of the latest save's window upload on stream.
	uploaded cuda.Event
	batch    int
	// sizes maps a page size to the index of its window pool.
	sizes  map[int64]int
	pools  []*transfer.PagePool
	bufs   [][]byte // host image of each window pool (one region), in images
	images []*cuda.HostMem
	// host is the runtime's page memory registered with the device (nil:
	// pages move through the images), copier moves pages between it and
	// the window, and copies is scratch for those copies.
	host   *hostPages
	copier *cuda.Copier
	copies []cuda.Copy
	loader *transfer.Loader
	saver  *transfer.Saver

	refs  []transfer.PageRef
	jobs  []transfer.LoadJob
	keys  []string // a save's keys and values, for place
	pages [][]byte
	slots []int // window page of each batched page in its pool
	// used counts the window pages of each pool the batch takes: only
	// those move between the host image and the device.
	used []int
}

// DeviceMoverOptions configure a DeviceMover.
type DeviceMoverOptions struct {
	// Batch is pages per call (transfer_batch_size) and StagingBytes the
	// staging per direction (staging_buffer_bytes):
	// transfer.StagingGeometry, which the loader and saver apply too,
	// may reduce the batch.
	Batch        int
	StagingBytes int64
	// Direct, with a store whose arenas the device can map (such as a
	// mem pool), skips the staging (stage_through_host off): loads copy
	// from the pool's memory in place (transfer.ArenaStore) and saves
	// gather into values reserved in it (transfer.ArenaWriter).
	Direct bool
	// Mode is how the copies between the pool's side and the device's
	// pages move (default cuda.ModeMemcpy, one copy per page, as the
	// connector makes them; cuda.ModeKernel launches one kernel a set),
	// and how pages move between the window and PageMemory.
	Mode cuda.CopyMode
	// PageMemory, when not nil, is the runtime's page memory: every page a
	// call names must be one of its pages. The mover registers it with the
	// device part by part, as its pages first move, and pages then move
	// between the window and their places by the device's copies, with no
	// copy on the host.
	PageMemory []PageBuffer
}

// NewDeviceMover returns a device mover for store on dev for pages of the
// given slots. Close releases its device memory.
func NewDeviceMover(dev cuda.Device, store pool.Store, slots []PageSlot, o DeviceMoverOptions) (*DeviceMover, error) {
	batch := transfer.StagingGeometry(max(1, o.Batch), o.StagingBytes, maxPageBytes(slots)).Slots
	m := &DeviceMover{dev: dev, batch: batch, sizes: map[int64]int{}}
	if err := m.openPageMemory(o); err != nil {
		return nil, errors.Join(fmt.Errorf("device mover: %w", err), m.Close())
	}
	for _, s := range slots {
		if _, ok := m.sizes[s.Bytes]; ok {
			continue
		}
		p, err := transfer.NewPagePool(dev, transfer.LayerGroup{RegionBytes: []int64{s.Bytes}}, batch)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("device mover: %w", err), m.Close())
		}
		m.sizes[s.Bytes] = len(m.pools)
		m.pools = append(m.pools, p)
		if m.host != nil {
			continue // no image: pages move in place
		}
		image, err := dev.AllocHost(s.Bytes * int64(batch)) // pinned: the copies are DMA
		if err != nil {
			return nil, errors.Join(fmt.Errorf("device mover: window image: %w", err), m.Close())
		}
		m.images = append(m.images, image)
		m.bufs = append(m.bufs, image.Bytes())
	}
	stream, err := dev.NewStream()
	if err != nil {
		return nil, errors.Join(fmt.Errorf("device mover: %w", err), m.Close())
	}
	m.stream = stream
	if m.uploaded, err = dev.NewEvent(); err != nil {
		return nil, errors.Join(fmt.Errorf("device mover: %w", err), m.Close())
	}
	to := transfer.Options{Device: dev, Pool: store, Pools: m.pools, Batch: batch, StagingBytes: o.StagingBytes, Mode: o.Mode}
	lo, so := to, to
	_, canView := store.(transfer.ArenaStore)
	_, canReserve := store.(transfer.ArenaWriter)
	lo.Direct, so.Direct = o.Direct && canView, o.Direct && canReserve
	if m.loader, err = transfer.NewLoader(lo); err == nil {
		m.saver, err = transfer.NewSaver(so)
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("device mover: %w", err), m.Close())
	}
	return m, nil
}

// openPageMemory prepares the registration of o.PageMemory and opens the
// copier that moves pages in place; nothing without it.
func (m *DeviceMover) openPageMemory(o DeviceMoverOptions) error {
	if o.PageMemory == nil {
		return nil
	}
	var err error
	if m.copier, err = cuda.NewCopier(m.dev, cmp.Or(o.Mode, cuda.ModeMemcpy)); err != nil {
		return err
	}
	m.host, err = newHostPages(m.dev, o.PageMemory)
	return err
}

// MaxBatch is the most pages one call may carry.
func (m *DeviceMover) MaxBatch() int { return m.batch }

// place assigns each page a window page of its size's pool and fills refs.
func (m *DeviceMover) place(keys []string, pages [][]byte) error {
	if len(pages) > m.batch {
		return fmt.Errorf("device mover: %d pages in one batch of at most %d", len(pages), m.batch)
	}
	m.refs, m.slots = m.refs[:0], m.slots[:0]
	used := m.used[:0]
	for range m.pools {
		used = append(used, 0)
	}
	m.used = used
	for i, p := range pages {
		g, ok := m.sizes[int64(len(p))]
		if !ok {
			return fmt.Errorf("device mover: page %q of %d bytes matches no page slot", keys[i], len(p))
		}
		m.refs = append(m.refs, transfer.PageRef{Key: keys[i], LayerGroup: g, Page: used[g]})
		m.slots = append(m.slots, used[g])
		used[g]++
	}
	return nil
}

// Load gets keys into the window through transfer's Loader (one job per
// page, so that a missing page fails only itself), then copies the landed
// pages out of the window into pages.
func (m *DeviceMover) Load(ctx context.Context, t *stats.PhaseTimer, keys []string, pages [][]byte, n []int64) error {
	t.Next(stats.PhaseDescribe)
	if err := m.place(keys, pages); err != nil {
		return err
	}
	m.jobs = m.jobs[:0]
	for i := range m.refs {
		m.jobs = append(m.jobs, transfer.LoadJob{RequestID: strconv.Itoa(i), Pages: m.refs[i : i+1]})
	}
	t.Next(stats.PhaseGet)
	results, err := m.loader.Load(ctx, m.jobs)
	if err != nil {
		return err
	}
	t.Next(stats.PhaseUnstage)
	landed := func(i int) bool { return results[i].OK() }
	if err := m.readWindow(keys, pages, landed); err != nil {
		return err
	}
	for i := range results {
		n[i] = int64(pool.ObjectNotFound)
		if landed(i) {
			n[i] = int64(len(pages[i]))
		}
	}
	t.Next(stats.PhaseSync)
	return nil
}

// readWindow moves the window pages of the pages landed says into pages:
// in place by the device, or through the window's image.
func (m *DeviceMover) readWindow(keys []string, pages [][]byte, landed func(i int) bool) error {
	if m.host != nil {
		copies, err := m.placeCopies(keys, pages, cuda.DeviceToHost, landed)
		if err == nil {
			err = m.copier.Copy(m.stream, cuda.DeviceToHost, copies)
		}
		return errors.Join(err, m.copier.Synchronize(m.stream))
	}
	if err := m.readImage(); err != nil {
		return err
	}
	for i, p := range pages {
		if landed(i) {
			size := int64(len(p))
			copy(p, m.bufs[m.refs[i].LayerGroup][int64(m.slots[i])*size:])
		}
	}
	return nil
}

// readImage copies the batch's window pages into the window's image.
func (m *DeviceMover) readImage() error {
	for g, p := range m.pools {
		if err := p.ReadFirst(m.stream, m.bufs[g:g+1], m.used[g]); err != nil {
			return err
		}
	}
	return m.stream.Synchronize()
}

// Save copies the items' values into the window and stores them through
// transfer's Saver, one job per run of items with the same put options.
// A page whose put failed is reported as TransferFail (transfer does not
// say which code), a stored or already present one as OK. The window's
// upload is waited for last: on the device before the saver's copies, on
// the host for its error and the window image to be free again.
func (m *DeviceMover) Save(ctx context.Context, t *stats.PhaseTimer, items []pool.PutItem, results []pool.Code) error {
	t.Next(stats.PhaseDescribe)
	m.keys, m.pages = m.keys[:0], m.pages[:0]
	for _, it := range items {
		m.keys, m.pages = append(m.keys, it.Key), append(m.pages, it.Value)
	}
	defer clear(m.pages)
	defer clear(m.keys)
	if err := m.place(m.keys, m.pages); err != nil {
		return err
	}
	t.Next(stats.PhaseStage)
	err := m.writeWindow(m.keys, m.pages)
	if err == nil {
		t.Next(stats.PhasePut)
		err = m.putRuns(ctx, items, results)
	}
	t.Next(stats.PhaseSync)
	return errors.Join(err, m.stream.Synchronize())
}

// putRuns stores the window's pages through the saver, one job per run
// of items with the same put options, once the window's upload finished.
func (m *DeviceMover) putRuns(ctx context.Context, items []pool.PutItem, results []pool.Code) error {
	for start := 0; start < len(items); {
		end := start + 1
		for end < len(items) && items[end].Options == items[start].Options {
			end++
		}
		res, err := m.saver.Save(ctx, transfer.SaveJob{RequestID: "save", Pages: m.refs[start:end], Options: items[start].Options}, m.uploaded)
		if err != nil {
			return err
		}
		for i := start; i < end; i++ {
			results[i] = pool.OK
		}
		markFailed(items[start:end], results[start:end], res.FailedKeys)
		start = end
	}
	return nil
}

// markFailed reports the items whose keys are in failed as TransferFail.
func markFailed(items []pool.PutItem, results []pool.Code, failed []string) {
	if len(failed) == 0 {
		return
	}
	set := make(map[string]bool, len(failed))
	for _, k := range failed {
		set[k] = true
	}
	for i, it := range items {
		if set[it.Key] {
			results[i] = pool.TransferFail
		}
	}
}

// writeWindow queues the copies of pages into their window pages, in
// place or through the window's host image, marked by uploaded; nothing
// waits for them here.
func (m *DeviceMover) writeWindow(keys []string, pages [][]byte) error {
	if m.host != nil {
		copies, err := m.placeCopies(keys, pages, cuda.HostToDevice, func(int) bool { return true })
		if err == nil {
			err = m.copier.Copy(m.stream, cuda.HostToDevice, copies)
		}
		if err != nil {
			return err
		}
		return m.copier.Record(m.uploaded, m.stream)
	}
	for i, p := range pages {
		g := m.refs[i].LayerGroup
		copy(m.bufs[g][int64(m.slots[i])*int64(len(p)):], p)
	}
	for g, p := range m.pools {
		if err := p.WriteFirst(m.stream, m.bufs[g:g+1], m.used[g]); err != nil {
			return err
		}
	}
	return m.uploaded.Record(m.stream)
}

// Close releases the mover's loader, saver, stream and window pools; the
// device stays open (it is the caller's).
func (m *DeviceMover) Close() error {
	var errs []error
	if m.loader != nil {
		errs = append(errs, m.loader.Close())
	}
	if m.saver != nil {
		errs = append(errs, m.saver.Close())
	}
	if m.uploaded != nil {
		errs = append(errs, m.uploaded.Destroy())
	}
	if m.copier != nil {
		if m.stream != nil { // the copier's last copies are on it
			errs = append(errs, m.copier.Synchronize(m.stream))
		}
		errs = append(errs, m.copier.Close())
	}
	if m.stream != nil {
		errs = append(errs, m.stream.Destroy())
	}
	errs = append(errs, m.host.close())
	errs = append(errs, transfer.ClosePagePools(m.pools))
	for _, image := range m.images {
		errs = append(errs, image.Close())
	}
	return errors.Join(errs...)
}
