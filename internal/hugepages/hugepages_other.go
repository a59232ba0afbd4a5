//go:build !linux

package hugepages

import "errors"

func madviseHuge(uintptr, uintptr) {}

func mode() string { return "" }

func eligible([]byte) (bool, error) {
	return false, errors.New("transparent huge pages are read on Linux only")
}
