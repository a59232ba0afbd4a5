package sysmem

import "syscall"

// total reads the physical memory from sysinfo(2): totalram in units of
// mem_unit bytes.
func total() int64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0
	}
	unit := max(int64(si.Unit), 1)
	ram := int64(si.Totalram)
	if ram < 0 || ram > (1<<62)/unit {
		return 0
	}
	return ram * unit
}
