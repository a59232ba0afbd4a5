package cuda

import (
	"testing"
	"unsafe"
)

// TestNVMLStructLayout checks the structs NVML fills against nvml.h's
// sizes: nvmlPciInfo_t (v3) is 68 bytes, nvmlMemory_t 24.
func TestNVMLStructLayout(t *testing.T) {
	if got := unsafe.Sizeof(nvmlPciInfo{}); got != 68 {
		t.Errorf("unsafe.Sizeof(nvmlPciInfo{}) = %d, want 68", got)
	}
	if got := unsafe.Offsetof(nvmlPciInfo{}.busID); got != 36 {
		t.Errorf("unsafe.Offsetof(nvmlPciInfo{}.busID) = %d, want 36", got)
	}
	if got := unsafe.Sizeof(nvmlMemory{}); got != 24 {
		t.Errorf("unsafe.Sizeof(nvmlMemory{}) = %d, want 24", got)
	}
}

func TestCBytes(t *testing.T) {
	tests := []struct {
		in   []byte
		want string
	}{
		{[]byte("580.159.04\x00junk"), "580.159.04"},
		{[]byte("\x00"), ""},
		{[]byte("no nul"), "no nul"},
	}
	for _, tt := range tests {
		if got := cBytes(tt.in); got != tt.want {
			t.Errorf("cBytes(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
