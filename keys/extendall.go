package keys

import (
	"encoding/binary"
	"slices"
	"unsafe"
)

// ExtendAll extends chains[i] with tokens[i] for every i, with the same
// result as calling chains[i].Extend(tokens[i]). Chains with the T and L of
// the first chain are hashed eight at a time, one per 64-bit lane of the
// AVX-512 registers, when the CPU has them: several times the throughput
// of one chain at a time, which is bound by the latency of one BLAKE2b
// compression. Other chains, and every chain on other CPUs, are extended
// one by one. It panics if the lengths of chains and tokens differ.
func ExtendAll(chains []*Chain, tokens [][]int64) {
	if len(chains) != len(tokens) {
		panic("keys: ExtendAll: len(chains) != len(tokens)")
	}
	if !useLanes || len(chains) < 2 {
		for i, c := range chains {
			c.Extend(tokens[i])
		}
		return
	}
	T, L := chains[0].perBlock, chains[0].lookahead
	jobs := make([]laneJob, 0, len(chains))
	for i, c := range chains {
		if c.perBlock != T || c.lookahead != L {
			c.Extend(tokens[i])
			continue
		}
		jobs = append(jobs, newLaneJob(c, tokens[i]))
	}
	hashLanes(jobs, T, L)
}

// laneJob is one chain on its way through the lanes.
type laneJob struct {
	c *Chain
	// stream is the chain's pending window tokens, then the new tokens.
	stream []int64
	// blocks counts the blocks the stream completes; done those hashed.
	blocks, done int
}

func newLaneJob(c *Chain, tokens []int64) laneJob {
	blocks := c.blocksAfter(len(tokens))
	c.numTokens += len(tokens)
	stream := tokens
	if c.fill > 0 {
		stream = make([]int64, 0, c.fill/8+len(tokens))
		for off := HashSize; off < HashSize+c.fill; off += 8 {
			stream = append(stream, int64(binary.LittleEndian.Uint64(c.win[off:])))
		}
		stream = append(stream, tokens...)
	}
	c.hashes = slices.Grow(c.hashes, blocks)
	return laneJob{c: c, stream: stream, blocks: blocks}
}

// finish keeps the tokens after the last hashed block as the chain's
// pending window, behind its last hash.
func (j *laneJob) finish() {
	c := j.c
	if n := len(c.hashes); n > 0 {
		copy(c.win, c.hashes[n-1][:])
	}
	rest := j.stream[j.blocks*c.perBlock:]
	for i, t := range rest {
		binary.LittleEndian.PutUint64(c.win[HashSize+8*i:], uint64(t))
	}
	c.fill = 8 * len(rest)
}

// laneState is what blockHash8 reads and writes.
type laneState struct {
	windows [8]unsafe.Pointer
	parents [2][8]uint64
	h       [8][8]uint64
	job     [8]int // index into jobs, -1 for an idle lane
}

// hashLanes hashes the blocks of every job, eight lanes at a time, feeding
// each lane the next job when its job is done.
func hashLanes(jobs []laneJob, T, L int) {
	W := T + L
	compressions := uint64((2 + W + 15) / 16)
	idle := make([]int64, W) // an idle lane hashes zeros, unread
	var st laneState
	next, active := 0, 0
	assign := func(k int) {
		for next < len(jobs) && jobs[next].blocks == 0 {
			jobs[next].finish()
			next++
		}
		if next == len(jobs) {
			st.job[k], st.windows[k] = -1, unsafe.Pointer(&idle[0])
			return
		}
		j := &jobs[next]
		st.job[k], st.windows[k] = next, unsafe.Pointer(&j.stream[0])
		parent := j.c.win[:HashSize]
		st.parents[0][k] = binary.LittleEndian.Uint64(parent[0:])
		st.parents[1][k] = binary.LittleEndian.Uint64(parent[8:])
		next++
		active++
	}
	for k := range st.job {
		assign(k)
	}
	for active > 0 {
		blockHash8(&st.windows, &st.parents, &st.h, uint64(W), compressions)
		for k, ji := range st.job {
			if ji < 0 {
				continue
			}
			j := &jobs[ji]
			var h Hash
			binary.LittleEndian.PutUint64(h[0:], st.parents[0][k])
			binary.LittleEndian.PutUint64(h[8:], st.parents[1][k])
			j.c.hashes = append(j.c.hashes, h)
			j.done++
			if j.done < j.blocks {
				st.windows[k] = unsafe.Pointer(&j.stream[j.done*T])
				continue
			}
			j.finish()
			active--
			assign(k)
		}
	}
}
