// Package prefetch asks the CPU to bring a line of memory into its caches
// ahead of its use, without waiting for it: where a program knows which
// scattered node it will touch a few steps on (the next entries of a
// queue of pointers), the miss overlaps the steps between. On amd64 it is
// one PREFETCHT0 instruction; elsewhere, and with -tags purego, it does
// nothing.
package prefetch
