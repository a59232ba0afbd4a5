package mem

// populateMin is the least mean size of the values of a run (placeRun)
// whose new arena is populated ahead (populateArena): a value of a page
// or more is copied in with
// non-temporal stores (copyValue), so it gains nothing from finding the
// zeroed page in its own core's cache, and an arena of such values fills
// fast enough that its page faults weigh: serve with 64 KiB pages spent
// two thirds of its time faulting arenas in. An arena of small values
// fills slowly and is left to fault page by page: populated whole, the
// whole-trace replay's 128-byte values took 150 MiB more memory for no
// gain in time.
const populateMin = 4 << 10
