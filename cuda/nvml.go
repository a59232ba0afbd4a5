package cuda

import (
	"fmt"
	"sync"
)

// nvmlLibraries are the names tried, in order, to open NVML.
var nvmlLibraries = []string{"libnvidia-ml.so.1", "libnvidia-ml.so"}

// nvmlLib is the part of NVML that Discover uses, bound at run time through
// purego as the driver is: no cgo, no headers.
type nvmlLib struct {
	init          func() int32
	shutdown      func() int32
	errorString   func(r int32) string
	driverVersion func(buf *byte, n uint32) int32
	cudaVersion   func(v *int32) int32
	deviceCount   func(n *uint32) int32
	deviceByIndex func(i uint32, dev *uintptr) int32
	name          func(dev uintptr, buf *byte, n uint32) int32
	uuid          func(dev uintptr, buf *byte, n uint32) int32
	pciInfo       func(dev uintptr, p *nvmlPciInfo) int32
	computeCap    func(dev uintptr, major, minor *int32) int32
	memoryInfo    func(dev uintptr, m *nvmlMemory) int32
	linkGen       func(dev uintptr, v *uint32) int32
	linkGenMax    func(dev uintptr, v *uint32) int32
	linkWidth     func(dev uintptr, v *uint32) int32
	linkWidthMax  func(dev uintptr, v *uint32) int32
}

// nvmlPciInfo is nvmlPciInfo_t as nvmlDeviceGetPciInfo_v3 fills it.
type nvmlPciInfo struct {
	busIDLegacy    [16]byte
	domain         uint32
	bus            uint32
	device         uint32
	pciDeviceID    uint32
	pciSubSystemID uint32
	busID          [32]byte
}

// nvmlMemory is nvmlMemory_t: bytes total, free and used.
type nvmlMemory struct {
	total, free, used uint64
}

// nvmlBufferBytes is large enough for every string Discover asks NVML for
// (NVML_DEVICE_UUID_V2_BUFFER_SIZE is 96, the driver version's 80).
const nvmlBufferBytes = 256

func (l *nvmlLib) symbols() []symbol {
	return []symbol{
		{names: []string{"nvmlInit_v2"}, fn: &l.init},
		{names: []string{"nvmlShutdown"}, fn: &l.shutdown},
		{names: []string{"nvmlErrorString"}, fn: &l.errorString},
		{names: []string{"nvmlSystemGetDriverVersion"}, fn: &l.driverVersion},
		{names: []string{"nvmlSystemGetCudaDriverVersion"}, fn: &l.cudaVersion},
		{names: []string{"nvmlDeviceGetCount_v2"}, fn: &l.deviceCount},
		{names: []string{"nvmlDeviceGetHandleByIndex_v2"}, fn: &l.deviceByIndex},
		{names: []string{"nvmlDeviceGetName"}, fn: &l.name},
		{names: []string{"nvmlDeviceGetUUID"}, fn: &l.uuid},
		{names: []string{"nvmlDeviceGetPciInfo_v3"}, fn: &l.pciInfo},
		{names: []string{"nvmlDeviceGetCudaComputeCapability"}, fn: &l.computeCap},
		{names: []string{"nvmlDeviceGetMemoryInfo"}, fn: &l.memoryInfo},
		{names: []string{"nvmlDeviceGetCurrPcieLinkGeneration"}, fn: &l.linkGen},
		{names: []string{"nvmlDeviceGetMaxPcieLinkGeneration"}, fn: &l.linkGenMax},
		{names: []string{"nvmlDeviceGetCurrPcieLinkWidth"}, fn: &l.linkWidth},
		{names: []string{"nvmlDeviceGetMaxPcieLinkWidth"}, fn: &l.linkWidthMax},
	}
}

var (
	nvmlOnce  sync.Once
	nvmlBound *nvmlLib
	nvmlErr   error
)

// loadNVML opens NVML and binds its functions once per process.
func loadNVML() (*nvmlLib, error) {
	nvmlOnce.Do(func() {
		handle, err := openLibrary(nvmlLibraries)
		if err != nil {
			nvmlErr = fmt.Errorf("nvml: %w", err)
			return
		}
		l := &nvmlLib{}
		if err := bindSymbols(handle, l.symbols()); err != nil {
			nvmlErr = fmt.Errorf("nvml too old: %w", err)
			return
		}
		nvmlBound = l
	})
	return nvmlBound, nvmlErr
}

// check turns an nvmlReturn_t into nil or an error naming op.
func (l *nvmlLib) check(r int32, op string) error {
	if r == 0 {
		return nil
	}
	return fmt.Errorf("%s: %s", op, l.errorString(r))
}

// discoverNVML lists the GPUs through NVML. Nothing else is called before
// nvmlInit_v2 succeeded.
func discoverNVML() ([]GPUInfo, DriverInfo, error) {
	l, err := loadNVML()
	if err != nil {
		return nil, DriverInfo{}, err
	}
	if err := l.check(l.init(), "nvml init"); err != nil {
		return nil, DriverInfo{}, err
	}
	defer l.shutdown()
	var info DriverInfo
	var buf [nvmlBufferBytes]byte
	if err := l.check(l.driverVersion(&buf[0], nvmlBufferBytes), "nvml driver version"); err != nil {
		return nil, DriverInfo{}, err
	}
	info.Version = cBytes(buf[:])
	var v int32
	if l.cudaVersion(&v) == 0 {
		info.CUDAVersion = int(v)
	}
	gpus, err := l.gpus()
	return gpus, info, err
}

// gpus describes every device NVML sees.
func (l *nvmlLib) gpus() ([]GPUInfo, error) {
	var count uint32
	if err := l.check(l.deviceCount(&count), "nvml device count"); err != nil {
		return nil, err
	}
	gpus := make([]GPUInfo, 0, count)
	for i := range count {
		var dev uintptr
		if err := l.check(l.deviceByIndex(i, &dev), fmt.Sprintf("nvml device %d", i)); err != nil {
			return nil, err
		}
		g, err := l.gpu(int(i), dev)
		if err != nil {
			return nil, err
		}
		gpus = append(gpus, g)
	}
	return gpus, nil
}

// gpu describes one NVML device; the name is required, the other fields
// are left zero where NVML does not support them.
func (l *nvmlLib) gpu(i int, dev uintptr) (GPUInfo, error) {
	g := GPUInfo{Index: i}
	var buf [nvmlBufferBytes]byte
	if err := l.check(l.name(dev, &buf[0], nvmlBufferBytes), fmt.Sprintf("nvml device %d name", i)); err != nil {
		return GPUInfo{}, err
	}
	g.Name = cBytes(buf[:])
	if l.uuid(dev, &buf[0], nvmlBufferBytes) == 0 {
		g.UUID = cBytes(buf[:])
	}
	var pci nvmlPciInfo
	if l.pciInfo(dev, &pci) == 0 {
		g.PCIBusID = cBytes(pci.busID[:])
	}
	var major, minor int32
	if l.computeCap(dev, &major, &minor) == 0 {
		g.ComputeCapability = fmt.Sprintf("%d.%d", major, minor)
	}
	var m nvmlMemory
	if l.memoryInfo(dev, &m) == 0 {
		g.MemoryTotalBytes, g.MemoryFreeBytes = int64(m.total), int64(m.free)
	}
	g.PCIeGen = nvmlUint(dev, l.linkGen)
	g.PCIeGenMax = nvmlUint(dev, l.linkGenMax)
	g.PCIeWidth = nvmlUint(dev, l.linkWidth)
	g.PCIeWidthMax = nvmlUint(dev, l.linkWidthMax)
	return g, nil
}

// nvmlUint asks get for one of dev's numbers; 0 when NVML does not answer.
func nvmlUint(dev uintptr, get func(uintptr, *uint32) int32) int {
	var v uint32
	if get(dev, &v) != 0 {
		return 0
	}
	return int(v)
}

// cBytes is the NUL-terminated string at the start of b.
func cBytes(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
