package cmd

import (
	"fmt"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/size"
	"github.com/spf13/cobra"
)

// devicesJSON is the JSON shape of kvctl devices.
type devicesJSON struct {
	Driver cuda.DriverInfo `json:"driver"`
	GPUs   []cuda.GPUInfo  `json:"gpus"`
}

func newDevicesCmd(ios *IOStreams, g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "devices",
		Short: "List GPUs, the driver and each PCIe link as NVML and the CUDA driver see them",
		Long: `List the GPUs, the driver version and each GPU's memory and PCIe link (current
and maximum generation and width), through NVML or, without it, the CUDA
driver; both are loaded at run time, so any build of kvctl can list them.

Exit codes: 5 when no GPU driver is available.`,
		Example: "$ kvctl devices\n$ kvctl devices -o json",
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := g.checkOutput("table", "json"); err != nil {
				return err
			}
			return runDevices(ios, g)
		},
	}
}

// runDevices discovers the GPUs and the driver and prints them. devices has
// no flags of its own, so no options struct, and cuda.Discover takes no
// context.
func runDevices(ios *IOStreams, g *globalOptions) error {
	gpus, drv, err := cuda.Discover()
	if err != nil {
		return &gpuUnavailable{err: err}
	}
	if g.Output == "json" {
		return writeJSON(ios.Out, devicesJSON{Driver: drv, GPUs: gpus})
	}
	return printDevices(ios, gpus, drv)
}

// printDevices prints a row per GPU, then a line about the driver.
func printDevices(ios *IOStreams, gpus []cuda.GPUInfo, drv cuda.DriverInfo) error {
	tp := newTablePrinter(ios, "gpu", "name", "memory", "pcie", "pcie max", "link GB/s", "bus")
	for _, d := range gpus {
		tp.addRow(d.Index, d.Name, size.Human(d.MemoryTotalBytes),
			fmt.Sprintf("gen%d x%d", d.PCIeGen, d.PCIeWidth), fmt.Sprintf("gen%d x%d", d.PCIeGenMax, d.PCIeWidthMax),
			fmt.Sprintf("%.1f", d.PCIeGBps()), d.PCIBusID)
	}
	if err := tp.render(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(ios.Out, "driver %s, CUDA %d.%d (through %s)\n", drv.Version, drv.CUDAVersion/1000, drv.CUDAVersion%1000/10, drv.Source)
	return err
}
