// Package mooncakestore is the pool backend for a real Mooncake Store,
// through Mooncake's own C client API (mooncake-store/include/store_c.h in
// kvcache-ai/Mooncake), loaded at run time with purego from
// libmooncake_store.so, as package cuda loads libcuda: one kvctl binary, no
// cgo for it. The library is Mooncake's WITH_STORE_C_SHARED build; kvctl
// binds its symbols by name and checks them all when a store opens. A
// library that cannot be loaded, or lacks a symbol, is an error wrapping
// ErrNoLibrary that names the library.
//
// Importing it registers the URL scheme mooncake-store with pool.Register:
//
//	mooncake-store://MASTER[:PORT][?options]
//	mooncake-store:?config=PATH              (the Mooncake client JSON)
//	mooncake-store:                          (the JSON at $MOONCAKE_CONFIG_PATH)
//
// The options are the fields of the Mooncake client JSON (see Config) and
// kvctl's own: admin (the master's admin HTTP address, for Stat and
// lease-free Exist), lib (the library) and staging (the size of one
// registered staging buffer). docs/pools.md lists them.
//
// # Semantics
//
// Puts never overwrite. Mooncake's client reports the put of a present key
// as success, so Put first asks batch_is_exist (which grants a lease to
// every present key, as TensorRT-LLM's connector does before it saves) and
// puts only the absent keys; puts of one key from one Store are serialised,
// so exactly one of racing puts in this process reports OK. Two processes
// racing on one key may both see OK. Values in memory the caller registered
// with RegisterBuffer (pool.BufferRegistrar: kvctl's transfer staging, the
// engine's pages) travel straight between it and the store; others travel
// through staging buffers that are registered with the client (mmap'd
// outside the Go heap), one copy more each way. Exist is read-only only
// where an admin address is given (it then asks the master's HTTP API);
// without one it is batch_is_exist, which leases, and Stat says so.
// Abilities: LeasingExister (batch_is_exist), AllRemover (remove_all),
// Sizer (get_size, which leases), BufferRegistrar (register_buffer) and
// TransportReporter (the protocol set up, get_hostname where the library
// has it, and "not known" for GPU memory, which store_c.h does not
// report); no listing, which the C API lacks.
package mooncakestore
