//go:build cgo

package cuda

import (
	"fmt"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// discoverNVML lists the GPUs through NVML. Nothing else is called before
// nvml.Init returned SUCCESS.
func discoverNVML() ([]GPUInfo, DriverInfo, error) {
	if r := nvml.Init(); r != nvml.SUCCESS {
		return nil, DriverInfo{}, fmt.Errorf("nvml init: %s", r.Error())
	}
	defer nvml.Shutdown()
	var info DriverInfo
	version, r := nvml.SystemGetDriverVersion()
	if r != nvml.SUCCESS {
		return nil, DriverInfo{}, fmt.Errorf("nvml driver version: %s", r.Error())
	}
	info.Version = version
	if v, r := nvml.SystemGetCudaDriverVersion(); r == nvml.SUCCESS {
		info.CUDAVersion = v
	}
	count, r := nvml.DeviceGetCount()
	if r != nvml.SUCCESS {
		return nil, DriverInfo{}, fmt.Errorf("nvml device count: %s", r.Error())
	}
	gpus := make([]GPUInfo, 0, count)
	for i := range count {
		dev, r := nvml.DeviceGetHandleByIndex(i)
		if r != nvml.SUCCESS {
			return nil, DriverInfo{}, fmt.Errorf("nvml device %d: %s", i, r.Error())
		}
		g, err := nvmlGPU(i, dev)
		if err != nil {
			return nil, DriverInfo{}, err
		}
		gpus = append(gpus, g)
	}
	return gpus, info, nil
}

// nvmlGPU describes one NVML device; the name is required, the other
// fields are left zero where NVML does not support them.
func nvmlGPU(i int, dev nvml.Device) (GPUInfo, error) {
	g := GPUInfo{Index: i}
	name, r := dev.GetName()
	if r != nvml.SUCCESS {
		return GPUInfo{}, fmt.Errorf("nvml device %d name: %s", i, r.Error())
	}
	g.Name = name
	if uuid, r := dev.GetUUID(); r == nvml.SUCCESS {
		g.UUID = uuid
	}
	if pci, r := dev.GetPciInfo(); r == nvml.SUCCESS {
		g.PCIBusID = int8String(pci.BusId[:])
	}
	if major, minor, r := dev.GetCudaComputeCapability(); r == nvml.SUCCESS {
		g.ComputeCapability = fmt.Sprintf("%d.%d", major, minor)
	}
	if m, r := dev.GetMemoryInfo(); r == nvml.SUCCESS {
		g.MemoryTotalBytes, g.MemoryFreeBytes = int64(m.Total), int64(m.Free)
	}
	g.PCIeGen = nvmlInt(dev.GetCurrPcieLinkGeneration())
	g.PCIeGenMax = nvmlInt(dev.GetMaxPcieLinkGeneration())
	g.PCIeWidth = nvmlInt(dev.GetCurrPcieLinkWidth())
	g.PCIeWidthMax = nvmlInt(dev.GetMaxPcieLinkWidth())
	return g, nil
}

// nvmlInt returns v, or 0 when NVML did not answer.
func nvmlInt(v int, r nvml.Return) int {
	if r != nvml.SUCCESS {
		return 0
	}
	return v
}

// int8String converts a NUL-terminated C char array.
func int8String(c []int8) string {
	var b strings.Builder
	for _, x := range c {
		if x == 0 {
			break
		}
		b.WriteByte(byte(x))
	}
	return b.String()
}
