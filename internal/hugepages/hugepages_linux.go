package hugepages

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// madviseHuge asks for the n bytes from addr, whole huge pages, to be
// backed by huge pages; a refusal leaves them as they are.
func madviseHuge(addr, n uintptr) {
	_, _, _ = unix.Syscall(unix.SYS_MADVISE, addr, n, unix.MADV_HUGEPAGE)
}

func mode() string {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		return ""
	}
	s := string(b)
	i, j := strings.IndexByte(s, '['), strings.IndexByte(s, ']')
	if i < 0 || j < i {
		return ""
	}
	return s[i+1 : j]
}

func eligible(p []byte) (bool, error) {
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return false, err
	}
	addr := uint64(uintptr(unsafe.Pointer(unsafe.SliceData(p))))
	inside := false
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if lo, hi, ok := strings.Cut(f[0], "-"); ok && len(f) >= 5 {
			l, err1 := strconv.ParseUint(lo, 16, 64)
			h, err2 := strconv.ParseUint(hi, 16, 64)
			inside = err1 == nil && err2 == nil && addr >= l && addr < h
			continue
		}
		if inside && f[0] == "THPeligible:" && len(f) == 2 {
			return f[1] == "1", nil
		}
	}
	return false, fmt.Errorf("/proc/self/smaps has no THPeligible line for %#x", addr)
}
