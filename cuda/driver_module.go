package cuda

import (
	"fmt"
	"runtime"
	"strings"
	"unsafe"
)

// CUjit_option values for the JIT error log.
const (
	jitErrorLogBuffer     = 5 // CU_JIT_ERROR_LOG_BUFFER
	jitErrorLogBufferSize = 6 // CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
)

// Kernel returns a kernel of the embedded module, loading the module
// (cuModuleLoadDataEx, JIT-compiling the PTX) on first use.
func (d *cudaDevice) Kernel(name string) (Kernel, error) {
	d.modMu.Lock()
	defer d.modMu.Unlock()
	if k, ok := d.kernels[name]; ok {
		return k, nil
	}
	if d.module == 0 {
		if err := d.loadModule(); err != nil {
			return nil, err
		}
	}
	k := &cudaKernel{name: name}
	err := d.call(func() error {
		return d.lib.check(d.lib.cuModuleGetFunction(&k.fn, d.module, name), fmt.Sprintf("cuModuleGetFunction %q", name))
	})
	if err != nil {
		return nil, err
	}
	d.kernels[name] = k
	return k, nil
}

// loadModule JIT-compiles the kernels' PTX; a failure carries the JIT's
// error log.
func (d *cudaDevice) loadModule() error {
	ptx, err := ModulePTX()
	if err != nil {
		return err
	}
	image := append(append(make([]byte, 0, len(ptx)+1), ptx...), 0)
	logBuf := make([]byte, 4096)
	var pin runtime.Pinner
	pin.Pin(&logBuf[0])
	defer pin.Unpin()
	opts := []int32{jitErrorLogBuffer, jitErrorLogBufferSize}
	vals := []uintptr{uintptr(unsafe.Pointer(&logBuf[0])), uintptr(len(logBuf))}
	err = d.call(func() error {
		return d.lib.check(d.lib.cuModuleLoadDataEx(&d.module, &image[0], uint32(len(opts)), &opts[0], &vals[0]), "cuModuleLoadDataEx")
	})
	runtime.KeepAlive(logBuf)
	if err != nil {
		d.module = 0
		if msg := strings.TrimSpace(cString(&logBuf[0], len(logBuf))); msg != "" {
			return fmt.Errorf("loading the kernels' PTX: %w: %s", err, msg)
		}
		return fmt.Errorf("loading the kernels' PTX: %w", err)
	}
	return nil
}
