package transfer

import (
	"fmt"
	"math"

	"github.com/kvctl/kvctl/cuda"
)

// PagePool is the GPU memory of N pages of one layer group: one device
// allocation split into one pool per region, region-major (region r of
// page i at RegionBase(r) + i*RegionBytes[r]).
type PagePool struct {
	dev        cuda.Device
	group      LayerGroup
	pages      int
	base       cuda.DevPtr
	bytes      int64
	pageBytes  int64 // group.PageBytes(), read per page
	regionBase []cuda.DevPtr
}

// NewPagePool allocates device memory for pages pages of group.
func NewPagePool(dev cuda.Device, group LayerGroup, pages int) (*PagePool, error) {
	if err := group.validate(); err != nil {
		return nil, fmt.Errorf("page pool: %w", err)
	}
	if pages <= 0 || pages > math.MaxInt32 {
		return nil, fmt.Errorf("page pool of %d pages: want 1 to %d", pages, math.MaxInt32) // pageItem's page is an int32
	}
	pb := group.PageBytes()
	p := &PagePool{dev: dev, group: group, pages: pages, bytes: pb * int64(pages), pageBytes: pb}
	base, err := dev.Alloc(p.bytes)
	if err != nil {
		return nil, fmt.Errorf("page pool of %d pages of %d bytes: %w", pages, pb, err)
	}
	p.base = base
	off := int64(0)
	for _, rb := range group.RegionBytes {
		p.regionBase = append(p.regionBase, base.Add(off))
		off += rb * int64(pages)
	}
	return p, nil
}

// NewPagePools allocates one PagePool of pages pages per layer group.
func NewPagePools(dev cuda.Device, layout Layout, pages int) ([]*PagePool, error) {
	if err := layout.Validate(); err != nil {
		return nil, err
	}
	var pools []*PagePool
	for g, group := range layout.Groups {
		p, err := NewPagePool(dev, group, pages)
		if err != nil {
			ClosePagePools(pools)
			return nil, fmt.Errorf("layer group %d: %w", g, err)
		}
		pools = append(pools, p)
	}
	return pools, nil
}

// ClosePagePools frees every pool and returns the first error.
func ClosePagePools(pools []*PagePool) error {
	var first error
	for _, p := range pools {
		if err := p.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Group returns the pool's page shape.
func (p *PagePool) Group() LayerGroup { return p.group }

// Pages returns the number of pages.
func (p *PagePool) Pages() int { return p.pages }

// Base returns the start of the allocation.
func (p *PagePool) Base() cuda.DevPtr { return p.base }

// Bytes returns the allocation's size (Pages * PageBytes).
func (p *PagePool) Bytes() int64 { return p.bytes }

// RegionBase returns the start of region r's pool.
func (p *PagePool) RegionBase(r int) cuda.DevPtr { return p.regionBase[r] }

// Region returns the address of region r of page i.
func (p *PagePool) Region(i, r int) cuda.DevPtr {
	return regionOf(p.regionBase[r], p.group.RegionBytes[r], i)
}

// regionOf is the address of page i's region in a region pool that begins
// at base and holds regions of bytes bytes, page after page.
func regionOf(base cuda.DevPtr, bytes int64, i int) cuda.DevPtr {
	return base.Add(int64(i) * bytes)
}

// WriteRegions queues copies of whole region pools from Go memory:
// bufs[r] holds Pages*RegionBytes[r] bytes, page-major inside the region.
// The caller synchronizes s before touching bufs again.
func (p *PagePool) WriteRegions(s cuda.Stream, bufs [][]byte) error {
	return p.WriteFirst(s, bufs, p.pages)
}

// WriteFirst queues copies of the first n pages of each region pool from
// Go memory shaped as for WriteRegions (only the first n pages of each
// buffer are read). The caller synchronizes s before touching bufs again.
func (p *PagePool) WriteFirst(s cuda.Stream, bufs [][]byte, n int) error {
	if err := p.checkFirst(bufs, n); err != nil {
		return err
	}
	for r, rb := range p.group.RegionBytes {
		if err := p.dev.CopyHtoD(s, p.regionBase[r], bufs[r][:int64(n)*rb]); err != nil {
			return fmt.Errorf("writing region %d: %w", r, err)
		}
	}
	return nil
}

// ReadFirst queues copies of the first n pages of each region pool into Go
// memory shaped as for ReadRegions; they are valid after s is
// synchronized.
func (p *PagePool) ReadFirst(s cuda.Stream, bufs [][]byte, n int) error {
	if err := p.checkFirst(bufs, n); err != nil {
		return err
	}
	for r, rb := range p.group.RegionBytes {
		if err := p.dev.CopyDtoH(s, bufs[r][:int64(n)*rb], p.regionBase[r]); err != nil {
			return fmt.Errorf("reading region %d: %w", r, err)
		}
	}
	return nil
}

// checkFirst checks bufs and a count of pages n for WriteFirst and
// ReadFirst.
func (p *PagePool) checkFirst(bufs [][]byte, n int) error {
	if n < 0 || n > p.pages {
		return fmt.Errorf("first %d pages of a pool of %d", n, p.pages)
	}
	return p.checkRegionBufs(bufs)
}

// ReadRegions queues copies of whole region pools into Go memory, shaped
// as for WriteRegions; bufs are valid after s is synchronized.
func (p *PagePool) ReadRegions(s cuda.Stream, bufs [][]byte) error {
	return p.ReadFirst(s, bufs, p.pages)
}

// NewRegionBufs allocates Go buffers shaped for WriteRegions and
// ReadRegions.
func (p *PagePool) NewRegionBufs() [][]byte {
	bufs := make([][]byte, len(p.group.RegionBytes))
	for r, rb := range p.group.RegionBytes {
		bufs[r] = make([]byte, rb*int64(p.pages))
	}
	return bufs
}

func (p *PagePool) checkRegionBufs(bufs [][]byte) error {
	if len(bufs) != len(p.group.RegionBytes) {
		return fmt.Errorf("%d region buffers for %d regions", len(bufs), len(p.group.RegionBytes))
	}
	for r, rb := range p.group.RegionBytes {
		if int64(len(bufs[r])) != rb*int64(p.pages) {
			return fmt.Errorf("region %d buffer has %d bytes, want %d", r, len(bufs[r]), rb*int64(p.pages))
		}
	}
	return nil
}

// Close frees the device memory.
func (p *PagePool) Close() error {
	if p.base == 0 {
		return nil
	}
	err := p.dev.Free(p.base)
	p.base = 0
	return err
}
