package cuda

import (
	_ "embed"
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"sync"
)

// The kernels of the embedded module. Both take (descriptors, count): a
// device-visible pointer to count descriptors of DescBytes bytes each, and
// copy every described region, one warp per region (grid-stride), with
// 16-byte loads and stores where source, destination and size allow.
const (
	// KernelScatter copies staging slots or pool memory to GPU pages
	// (loads).
	KernelScatter = "kvctl_scatter"
	// KernelGather copies GPU pages to staging slots or pool memory
	// (saves).
	KernelGather = "kvctl_gather"
)

// DescBytes is the size of one copy descriptor: three little-endian
// uint64s, source address, destination address, bytes (struct kvctl_copy
// in kernels/transfer.cu).
const DescBytes = 24

// PTXEnv names an environment variable that, when set, is the path of a
// PTX file loaded instead of the embedded module (for testing a freshly
// compiled kernels/transfer.cu).
const PTXEnv = "KVCTL_PTX"

//go:embed kernels/transfer.ptx
var embeddedPTX []byte

// ModulePTX returns the kernels' PTX: the file PTXEnv names, or the
// embedded module.
func ModulePTX() ([]byte, error) {
	path := os.Getenv(PTXEnv)
	if path == "" {
		return embeddedPTX, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s=%q: %w", PTXEnv, path, err)
	}
	return b, nil
}

// EncodeDescs writes one descriptor per copy into b, which must hold
// len(copies)*DescBytes bytes.
func EncodeDescs(b []byte, copies []Copy) {
	for i, c := range copies {
		encodeDesc(b[i*DescBytes:(i+1)*DescBytes], c)
	}
}

// encodeDesc writes c's descriptor into d (DescBytes bytes).
func encodeDesc(d []byte, c Copy) {
	binary.LittleEndian.PutUint64(d[0:], uint64(c.Src))
	binary.LittleEndian.PutUint64(d[8:], uint64(c.Dst))
	binary.LittleEndian.PutUint64(d[16:], uint64(c.Bytes))
}

// DecodeDescs reads n descriptors from b.
func DecodeDescs(b []byte, n int) []Copy {
	out := make([]Copy, n)
	for i := range out {
		d := b[i*DescBytes : (i+1)*DescBytes]
		out[i] = Copy{
			Src:   DevPtr(binary.LittleEndian.Uint64(d[0:])),
			Dst:   DevPtr(binary.LittleEndian.Uint64(d[8:])),
			Bytes: int64(binary.LittleEndian.Uint64(d[16:])),
		}
	}
	return out
}

// hostKernel is a kernel of host emulation, written in Go.
type hostKernel struct {
	name string
	args int
	run  func(space *hostSpace, args []uint64) error
}

// Name is the kernel's name.
func (k *hostKernel) Name() string { return k.name }

var hostKernels = map[string]*hostKernel{
	KernelScatter: {name: KernelScatter, args: 2, run: copyRegionsKernel(KernelScatter)},
	KernelGather:  {name: KernelGather, args: 2, run: copyRegionsKernel(KernelGather)},
}

// copyRegionsKernel is the Go version of transfer.cu's kernels: it reads
// the descriptors from emulated device-visible memory and copies each
// region, spreading large batches over the CPUs as blocks spread over SMs.
func copyRegionsKernel(name string) func(*hostSpace, []uint64) error {
	return func(space *hostSpace, args []uint64) error {
		n := int64(args[1])
		raw, _, err := space.slice(DevPtr(args[0]), n*DescBytes)
		if err != nil {
			return fmt.Errorf("%s: descriptors: %w", name, err)
		}
		descs := DecodeDescs(raw, int(n))
		workers := min(runtime.GOMAXPROCS(0), max(1, len(descs)/64))
		errs := make([]error, workers)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for i := w; i < len(descs); i += workers {
					c := descs[i]
					if c.Bytes == 0 { // moves nothing, as on the device
						continue
					}
					if err := space.copy(anyCopy, c.Dst, c.Src, c.Bytes); err != nil {
						errs[w] = fmt.Errorf("%s: region %d: %w", name, i, err)
						return
					}
				}
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
		return nil
	}
}
