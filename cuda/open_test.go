package cuda

import (
	"errors"
	"strings"
	"testing"
)

func TestParseSpec(t *testing.T) {
	tests := []struct {
		spec    string
		kind    string
		ordinal int
		wantErr bool
	}{
		{"", "auto", 0, false},
		{"auto", "auto", 0, false},
		{" AUTO ", "auto", 0, false},
		{"host", "host", 0, false},
		{"cpu", "host", 0, false},
		{"cuda", "cuda", 0, false},
		{"gpu", "cuda", 0, false},
		{"cuda:0", "cuda", 0, false},
		{"cuda:3", "cuda", 3, false},
		{"CUDA:12", "cuda", 12, false},
		{"cuda:", "", 0, true},
		{"cuda:-1", "", 0, true},
		{"cuda:x", "", 0, true},
		{"rocm", "", 0, true},
		{"cuda0", "", 0, true},
	}
	for _, tt := range tests {
		kind, ordinal, err := parseSpec(tt.spec)
		if (err != nil) != tt.wantErr {
			t.Errorf("parseSpec(%q) error = %v, want error %v", tt.spec, err, tt.wantErr)
			continue
		}
		if err != nil {
			if !errors.Is(err, ErrBadSpec) {
				t.Errorf("parseSpec(%q) error = %v, want it to wrap ErrBadSpec", tt.spec, err)
			}
			continue
		}
		if kind != tt.kind || ordinal != tt.ordinal {
			t.Errorf("parseSpec(%q) = %q, %d, want %q, %d", tt.spec, kind, ordinal, tt.kind, tt.ordinal)
		}
	}
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"auto", "host", "cuda", "cuda:0", "cuda:17", "cuda:-3", "cuda:9999999999999999999", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		kind, ordinal, err := parseSpec(spec)
		if err != nil {
			if !errors.Is(err, ErrBadSpec) {
				t.Fatalf("parseSpec(%q) error %v does not wrap ErrBadSpec", spec, err)
			}
			return
		}
		if kind != "auto" && kind != "host" && kind != "cuda" {
			t.Fatalf("parseSpec(%q) kind = %q", spec, kind)
		}
		if ordinal < 0 {
			t.Fatalf("parseSpec(%q) ordinal = %d, want >= 0", spec, ordinal)
		}
	})
}

// TestOpenAutoWithoutGPU proves the default build runs on a machine with no
// GPU: auto gives host emulation and says why.
func TestOpenAutoWithoutGPU(t *testing.T) {
	if _, err := loadDriver(); err == nil {
		t.Skip("a CUDA driver is present; the no-GPU fallback cannot be observed here")
	}
	d, err := Open("auto")
	if err != nil {
		t.Fatalf("Open(auto) error = %v, want host emulation", err)
	}
	defer d.Close()
	info := d.Info()
	if !info.Emulated || info.Fallback == "" {
		t.Errorf("Open(auto).Info() = %+v, want emulated with a fallback reason", info)
	}
	if !strings.Contains(info.Fallback, ErrNoDriver.Error()) {
		t.Errorf("Open(auto) fallback = %q, want it to say %q", info.Fallback, ErrNoDriver)
	}
}

func TestOpenCUDAWithoutDriver(t *testing.T) {
	if _, err := loadDriver(); err == nil {
		t.Skip("a CUDA driver is present")
	}
	for _, spec := range []string{"cuda", "cuda:1"} {
		d, err := Open(spec)
		if !errors.Is(err, ErrNoDriver) {
			t.Errorf("Open(%q) = %v, %v, want an error wrapping ErrNoDriver", spec, d, err)
		}
	}
}

func TestOpenWithGPU(t *testing.T) {
	if _, err := loadDriver(); err != nil {
		t.Skipf("no CUDA driver: %v", err)
	}
	d, err := Open("auto")
	if err != nil {
		t.Fatalf("Open(auto) error = %v", err)
	}
	info := d.Info()
	d.Close()
	t.Logf("Open(auto).Info() = %+v", info)
	if info.Emulated {
		t.Errorf("Open(auto) fell back to host emulation with a driver present: %s", info.Fallback)
	}
	if _, err := Open("cuda:4096"); !errors.Is(err, ErrNoDriver) {
		t.Errorf("Open(cuda:4096) error = %v, want it to wrap ErrNoDriver", err)
	}
}

func TestDiscover(t *testing.T) {
	gpus, info, err := Discover()
	if err != nil {
		if !errors.Is(err, ErrNoDriver) {
			t.Errorf("Discover() error = %v, want it to wrap ErrNoDriver", err)
		}
		t.Skipf("no GPU to discover: %v", err)
	}
	t.Logf("driver %+v", info)
	for _, g := range gpus {
		t.Logf("gpu %+v (link %.1f GB/s)", g, g.PCIeGBps())
	}
	if info.Source != "nvml" && info.Source != "cuda" {
		t.Errorf("Discover() source = %q, want nvml or cuda", info.Source)
	}
	if driverGPUs, _, err := discoverDriver(); err == nil && len(driverGPUs) != len(gpus) {
		t.Errorf("Discover() found %d GPUs, the CUDA driver %d", len(gpus), len(driverGPUs))
	}
}

func TestOpenBadSpec(t *testing.T) {
	if _, err := Open("tpu:0"); !errors.Is(err, ErrBadSpec) {
		t.Errorf("Open(tpu:0) error = %v, want it to wrap ErrBadSpec", err)
	}
}

func TestOpenHost(t *testing.T) {
	d, err := Open("host")
	if err != nil {
		t.Fatalf("Open(host) error = %v", err)
	}
	defer d.Close()
	if info := d.Info(); !info.Emulated || info.Fallback != "" || !info.BatchCopy {
		t.Errorf("Open(host).Info() = %+v, want emulated, no fallback, batch copy", info)
	}
}

func TestPCIeLinkGBps(t *testing.T) {
	tests := []struct {
		gen, width int
		lo, hi     float64
	}{
		{5, 16, 63.0, 63.1},
		{4, 16, 31.5, 31.6},
		{3, 8, 7.8, 7.9},
		{1, 1, 0.25, 0.25},
		{0, 16, 0, 0},
		{9, 16, 0, 0},
	}
	for _, tt := range tests {
		if got := PCIeLinkGBps(tt.gen, tt.width); got < tt.lo || got > tt.hi {
			t.Errorf("PCIeLinkGBps(%d, %d) = %v, want in [%v, %v]", tt.gen, tt.width, got, tt.lo, tt.hi)
		}
	}
}
