package mooncakestore

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// DefaultLibrary is the library opened through the loader's search path
// when neither the lib option nor $KVCTL_MOONCAKE_LIB names one.
const DefaultLibrary = "libmooncake_store.so"

// LibraryEnv is the environment variable that names the library when the
// pool URL does not.
const LibraryEnv = "KVCTL_MOONCAKE_LIB"

// ErrNoLibrary is wrapped by every failure to load the Mooncake Store
// client library or bind its symbols; the message around it names the
// library. Commands exit 4 on it, as for a pool that cannot be reached.
var ErrNoLibrary = errors.New("mooncake store client library unavailable")

// library is store_c.h bound at run time. The declarations follow
// mooncake-store/include/store_c.h (Mooncake 3b5a5941): mooncake_store_t is
// a pointer, size_t is uintptr, int is int32.
type library struct {
	path string

	create           func() uintptr
	destroy          func(s uintptr)
	setup            func(s uintptr, host, metadata string, segment, buffer uint64, protocol, device, master string) int32
	initAll          func(s uintptr, protocol, device string, segment uint64) int32
	healthCheck      func(s uintptr) int32
	put              func(s uintptr, key string, value unsafe.Pointer, size uintptr, cfg unsafe.Pointer) int32
	putFrom          func(s uintptr, key string, buf unsafe.Pointer, size uintptr, cfg unsafe.Pointer) int32
	batchPutFrom     func(s uintptr, keys, bufs, sizes unsafe.Pointer, count uintptr, cfg unsafe.Pointer, results unsafe.Pointer) int32
	getInto          func(s uintptr, key string, buf unsafe.Pointer, size uintptr) int64
	batchGetInto     func(s uintptr, keys, bufs, sizes unsafe.Pointer, count uintptr, results unsafe.Pointer) int32
	isExist          func(s uintptr, key string) int32
	batchIsExist     func(s uintptr, keys unsafe.Pointer, count uintptr, results unsafe.Pointer) int32
	getSize          func(s uintptr, key string) int64
	remove           func(s uintptr, key string, force int32) int32
	removeAll        func(s uintptr, force int32) int64
	registerBuffer   func(s uintptr, buf unsafe.Pointer, size uintptr) int32
	unregisterBuffer func(s uintptr, buf unsafe.Pointer) int32

	// getHostname is optional (nil when the library lacks it): it only
	// feeds the transport report.
	getHostname func(s uintptr, buf unsafe.Pointer, n uintptr) int32
}

// symbol is one function of store_c.h and the field it binds to.
type symbol struct {
	name string
	fn   any
}

// symbols is the table of every function kvctl binds, by name; all are
// required.
func (l *library) symbols() []symbol {
	return []symbol{
		{"mooncake_store_create", &l.create},
		{"mooncake_store_destroy", &l.destroy},
		{"mooncake_store_setup", &l.setup},
		{"mooncake_store_init_all", &l.initAll},
		{"mooncake_store_health_check", &l.healthCheck},
		{"mooncake_store_put", &l.put},
		{"mooncake_store_put_from", &l.putFrom},
		{"mooncake_store_batch_put_from", &l.batchPutFrom},
		{"mooncake_store_get_into", &l.getInto},
		{"mooncake_store_batch_get_into", &l.batchGetInto},
		{"mooncake_store_is_exist", &l.isExist},
		{"mooncake_store_batch_is_exist", &l.batchIsExist},
		{"mooncake_store_get_size", &l.getSize},
		{"mooncake_store_remove", &l.remove},
		{"mooncake_store_remove_all", &l.removeAll},
		{"mooncake_store_register_buffer", &l.registerBuffer},
		{"mooncake_store_unregister_buffer", &l.unregisterBuffer},
	}
}

// optionalSymbols are the functions kvctl binds where the library has
// them, and reports as not known where it does not.
func (l *library) optionalSymbols() []symbol {
	return []symbol{
		{"mooncake_store_get_hostname", &l.getHostname},
	}
}

var (
	librariesMu sync.Mutex
	libraries   = map[string]*library{}
)

// loadLibrary opens the library at path (a file, or a name the loader
// searches for) once per process and binds every symbol. Its errors wrap
// ErrNoLibrary.
func loadLibrary(path string) (*library, error) {
	librariesMu.Lock()
	defer librariesMu.Unlock()
	if l, ok := libraries[path]; ok {
		return l, nil
	}
	l, err := openLibrary(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %s (set --mooncake-lib or $%s to Mooncake's libmooncake_store.so, built with -DWITH_STORE_C_SHARED=ON): %w",
			ErrNoLibrary, path, LibraryEnv, err)
	}
	libraries[path] = l
	return l, nil
}

func openLibrary(path string) (*library, error) {
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, fmt.Errorf("opening it: %w", err)
	}
	l := &library{path: path}
	if err := bindSymbols(h, l.symbols()); err != nil {
		purego.Dlclose(h)
		return nil, err
	}
	for _, s := range l.optionalSymbols() {
		if addr, err := purego.Dlsym(h, s.name); err == nil && addr != 0 {
			purego.RegisterFunc(s.fn, addr)
		}
	}
	return l, nil
}

// bindSymbols looks every symbol up and binds it; the first missing one is
// an error naming it (a library that is not Mooncake's store client, or one
// older than the store_c.h kvctl binds).
func bindSymbols(h uintptr, syms []symbol) error {
	for _, s := range syms {
		addr, err := purego.Dlsym(h, s.name)
		if err != nil || addr == 0 {
			return fmt.Errorf("it lacks symbol %s (not Mooncake's store C client, or one older than kvctl needs)", s.name)
		}
		purego.RegisterFunc(s.fn, addr)
	}
	return nil
}
