// Package sensitivity measures how a serving replay depends on the pool's
// size: it replays one workload through package engine at several pool
// capacities (Sweep) and, for each, cuts the replay's modelled time into
// windows (Tracker) and marks bursts (DetectBursts): windows in which
// lookups stop finding prefix chains that were read recently while the
// pool's eviction volume stays near its median. Each burst is attributed
// to capacity eviction (a missed chain was gone from its first missing
// block on) or to torn prefixes (a block in the middle was gone while
// later blocks of the chain were still stored).
//
// Real pages are large (10 MiB per block for a 70B model at T = 32), and
// the engine holds real bytes for its GPU pages and checks every byte it
// loads. A sweep therefore moves small proxy pages (Scale) and scales what
// depends on the page size: the pool's capacity, so that it holds the same
// number of blocks, and the transfer bandwidth, so that a load costs the
// modelled time of the real pages.
package sensitivity
