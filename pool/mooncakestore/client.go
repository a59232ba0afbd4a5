package mooncakestore

import (
	"bytes"
	"runtime"
	"unsafe"
)

// client is the part of store_c.h a Store calls, on one
// mooncake_store_t. libClient binds it to the library; tests bind it to a
// fake with Mooncake's semantics. Per-key results are store_c.h's: 0 or a
// count of bytes, or a negative Mooncake ErrorCode (types.h); a batch call
// returns -1 when it failed as a whole (store_c.cpp returns -1 for bad
// arguments and for an exception in the client).
type client interface {
	healthCheck() int32
	batchIsExist(keys []string, results []int32) int32
	batchPutFrom(keys []string, bufs [][]byte, cfg replicateConfig, results []int32) int32
	batchGetInto(keys []string, bufs [][]byte, results []int64) int32
	getSize(key string) int64
	remove(key string, force bool) int32
	removeAll(force bool) int64
	registerBuffer(buf []byte) int32
	unregisterBuffer(buf []byte) int32
	// hostname is mooncake_store_get_hostname: the name the client is
	// known by; ok is false where the library lacks it or it failed.
	hostname() (name string, ok bool)
	destroy()
}

// replicateConfig is struct mooncake_replicate_config (store_c.h): size_t
// replica_num; int with_soft_pin; int with_hard_pin; const char
// **preferred_segments; size_t preferred_segments_count. 32 bytes on
// LP64, no padding.
type replicateConfig struct {
	replicaNum     uintptr
	withSoftPin    int32
	withHardPin    int32
	preferred      uintptr
	preferredCount uintptr
}

// libClient is a client over one mooncake_store_t of the library.
type libClient struct {
	lib    *library
	handle uintptr
}

// cKeys is keys as a C array of NUL-terminated strings. The strings live
// in one Go buffer, which the caller keeps alive (runtime.KeepAlive) until
// the C call returns; store_c.h keeps no pointer after a call.
type cKeys struct {
	bytes []byte
	ptrs  []uintptr
}

func newCKeys(keys []string) cKeys {
	n := 0
	for _, k := range keys {
		n += len(k) + 1
	}
	c := cKeys{bytes: make([]byte, 0, n), ptrs: make([]uintptr, len(keys))}
	for i, k := range keys {
		start := len(c.bytes)
		c.bytes = append(c.bytes, k...)
		c.bytes = append(c.bytes, 0)
		c.ptrs[i] = uintptr(unsafe.Pointer(&c.bytes[start]))
	}
	return c
}

// cBuffers is bufs as the C arrays void **buffers and size_t *sizes. The
// buffers are staging memory outside the Go heap.
func cBuffers(bufs [][]byte) (ptrs, sizes []uintptr) {
	ptrs, sizes = make([]uintptr, len(bufs)), make([]uintptr, len(bufs))
	for i, b := range bufs {
		sizes[i] = uintptr(len(b))
		if cap(b) > 0 {
			ptrs[i] = uintptr(unsafe.Pointer(unsafe.SliceData(b[:cap(b)])))
		}
	}
	return ptrs, sizes
}

func (c *libClient) healthCheck() int32 { return c.lib.healthCheck(c.handle) }

func (c *libClient) batchIsExist(keys []string, results []int32) int32 {
	ck := newCKeys(keys)
	rc := c.lib.batchIsExist(c.handle, unsafe.Pointer(unsafe.SliceData(ck.ptrs)), uintptr(len(keys)), unsafe.Pointer(unsafe.SliceData(results)))
	runtime.KeepAlive(ck)
	return rc
}

func (c *libClient) batchPutFrom(keys []string, bufs [][]byte, cfg replicateConfig, results []int32) int32 {
	ck := newCKeys(keys)
	ptrs, sizes := cBuffers(bufs)
	rc := c.lib.batchPutFrom(c.handle, unsafe.Pointer(unsafe.SliceData(ck.ptrs)), unsafe.Pointer(unsafe.SliceData(ptrs)),
		unsafe.Pointer(unsafe.SliceData(sizes)), uintptr(len(keys)), unsafe.Pointer(&cfg), unsafe.Pointer(unsafe.SliceData(results)))
	runtime.KeepAlive(ck)
	runtime.KeepAlive(ptrs)
	runtime.KeepAlive(sizes)
	return rc
}

func (c *libClient) batchGetInto(keys []string, bufs [][]byte, results []int64) int32 {
	ck := newCKeys(keys)
	ptrs, sizes := cBuffers(bufs)
	rc := c.lib.batchGetInto(c.handle, unsafe.Pointer(unsafe.SliceData(ck.ptrs)), unsafe.Pointer(unsafe.SliceData(ptrs)),
		unsafe.Pointer(unsafe.SliceData(sizes)), uintptr(len(keys)), unsafe.Pointer(unsafe.SliceData(results)))
	runtime.KeepAlive(ck)
	runtime.KeepAlive(ptrs)
	runtime.KeepAlive(sizes)
	return rc
}

func (c *libClient) getSize(key string) int64 { return c.lib.getSize(c.handle, key) }

func (c *libClient) remove(key string, force bool) int32 {
	return c.lib.remove(c.handle, key, cBool(force))
}

func (c *libClient) removeAll(force bool) int64 { return c.lib.removeAll(c.handle, cBool(force)) }

func (c *libClient) registerBuffer(buf []byte) int32 {
	return c.lib.registerBuffer(c.handle, unsafe.Pointer(unsafe.SliceData(buf)), uintptr(len(buf)))
}

func (c *libClient) unregisterBuffer(buf []byte) int32 {
	return c.lib.unregisterBuffer(c.handle, unsafe.Pointer(unsafe.SliceData(buf)))
}

func (c *libClient) hostname() (string, bool) {
	if c.lib.getHostname == nil {
		return "", false
	}
	buf := make([]byte, 1024)
	if c.lib.getHostname(c.handle, unsafe.Pointer(&buf[0]), uintptr(len(buf))) != 0 {
		return "", false
	}
	n := bytes.IndexByte(buf, 0)
	if n < 0 {
		return "", false
	}
	return string(buf[:n]), true
}

func (c *libClient) destroy() { c.lib.destroy(c.handle) }

func cBool(b bool) int32 {
	if b {
		return 1
	}
	return 0
}
