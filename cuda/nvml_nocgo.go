//go:build !cgo

package cuda

import "errors"

// discoverNVML fails: go-nvml needs cgo.
func discoverNVML() ([]GPUInfo, DriverInfo, error) {
	return nil, DriverInfo{}, errors.New("nvml needs a cgo build (this binary was built with CGO_ENABLED=0)")
}
