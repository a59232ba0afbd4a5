package cuda

import "fmt"

// GPUInfo describes one GPU as NVML or the CUDA driver sees it. Fields a
// source cannot tell are zero.
type GPUInfo struct {
	Index             int    `json:"index"`
	Name              string `json:"name"`
	UUID              string `json:"uuid,omitempty"`
	PCIBusID          string `json:"pci_bus_id,omitempty"`
	ComputeCapability string `json:"compute_capability,omitempty"`
	MemoryTotalBytes  int64  `json:"memory_total_bytes"`
	MemoryFreeBytes   int64  `json:"memory_free_bytes,omitempty"`
	// PCIe link generation and width, current and maximum.
	PCIeGen      int `json:"pcie_gen,omitempty"`
	PCIeGenMax   int `json:"pcie_gen_max,omitempty"`
	PCIeWidth    int `json:"pcie_width,omitempty"`
	PCIeWidthMax int `json:"pcie_width_max,omitempty"`
}

// PCIeGBps is the current link's raw bandwidth per direction in GB/s
// (10^9 bytes), after line encoding; 0 when the link is unknown.
func (g GPUInfo) PCIeGBps() float64 { return PCIeLinkGBps(g.PCIeGen, g.PCIeWidth) }

// PCIeLinkGBps is a PCIe link's bandwidth per direction in GB/s after line
// encoding (8b/10b for generations 1 and 2, 128b/130b for 3 to 5, FLIT
// mode for 6), before protocol overhead; 0 for an unknown generation.
func PCIeLinkGBps(gen, width int) float64 {
	perLane := map[int]float64{
		1: 2.5 * 8 / 10 / 8,
		2: 5.0 * 8 / 10 / 8,
		3: 8.0 * 128 / 130 / 8,
		4: 16.0 * 128 / 130 / 8,
		5: 32.0 * 128 / 130 / 8,
		6: 64.0 * 242 / 256 / 8,
	}[gen]
	return perLane * float64(width)
}

// DriverInfo describes the installed driver.
type DriverInfo struct {
	// Version is the driver's version string, such as "580.159.03" (NVML
	// only).
	Version string `json:"version,omitempty"`
	// CUDAVersion is the CUDA version the driver supports, such as 13000.
	CUDAVersion int `json:"cuda_version"`
	// Source is "nvml" or "cuda": which API answered.
	Source string `json:"source"`
	// NVMLError says why NVML did not answer when the CUDA driver did.
	NVMLError string `json:"nvml_error,omitempty"`
}

// Discover lists the GPUs and the driver through NVML, or through the CUDA
// driver (cuDeviceGetCount, cuDeviceGetName, cuDeviceTotalMem_v2,
// cuDriverGetVersion) when NVML is unavailable (no libnvidia-ml). Both are
// bound at run time, without cgo. When neither answers, the error wraps
// ErrNoDriver and says, on one line, why each failed.
func Discover() ([]GPUInfo, DriverInfo, error) {
	gpus, info, nvmlErr := discoverNVML()
	if nvmlErr == nil {
		info.Source = "nvml"
		return gpus, info, nil
	}
	gpus, info, cudaErr := discoverDriver()
	if cudaErr != nil {
		return nil, DriverInfo{}, fmt.Errorf("discovering GPUs: %w", joinErrors(nvmlErr, cudaErr))
	}
	info.Source = "cuda"
	info.NVMLError = nvmlErr.Error()
	return gpus, info, nil
}

// discoverDriver lists the GPUs through the CUDA driver.
func discoverDriver() ([]GPUInfo, DriverInfo, error) {
	lib, err := loadDriver()
	if err != nil {
		return nil, DriverInfo{}, err
	}
	var count int32
	if err := lib.check(lib.cuDeviceGetCount(&count), "cuDeviceGetCount"); err != nil {
		return nil, DriverInfo{}, fmt.Errorf("%w: %w", ErrNoDriver, err)
	}
	gpus := make([]GPUInfo, 0, count)
	for i := range int(count) {
		g, err := lib.gpuInfo(i)
		if err != nil {
			return nil, DriverInfo{}, fmt.Errorf("cuda:%d: %w", i, err)
		}
		gpus = append(gpus, g)
	}
	return gpus, DriverInfo{CUDAVersion: lib.version}, nil
}

// gpuInfo describes CUDA device ordinal i.
func (d *driver) gpuInfo(i int) (GPUInfo, error) {
	var dev int32
	if err := d.check(d.cuDeviceGet(&dev, int32(i)), "cuDeviceGet"); err != nil {
		return GPUInfo{}, err
	}
	name, total, err := d.deviceNameMemory(dev)
	if err != nil {
		return GPUInfo{}, err
	}
	a, err := d.deviceAttributes(dev, attrComputeMajor, attrComputeMinor, attrPCIDomainID, attrPCIBusID, attrPCIDeviceID)
	if err != nil {
		return GPUInfo{}, err
	}
	return GPUInfo{
		Index:             i,
		Name:              name,
		PCIBusID:          fmt.Sprintf("%08X:%02X:%02X.0", a[2], a[3], a[4]),
		ComputeCapability: fmt.Sprintf("%d.%d", a[0], a[1]),
		MemoryTotalBytes:  total,
	}, nil
}
