package mem

// Placement. A Put or Reserve call places its new objects with as few
// allocator calls as it can: it takes the next segment round-robin and
// allocates its objects' sizes, summed, as one extent, carving them out of
// it back to back in call order. A call larger than an arena is cut into
// runs of at most an arena; an object larger than an arena is a run of its
// own and opens an arena of its size. A run that fits no segment as one extent is
// placed object by object, each on the first segment with room from the
// call's segment on, so that an object fails only when no segment has room
// for it.

// placeAll places objs, claimed and unplaced, in call order, and returns
// how many it placed; an object it could not place keeps seg -1. The
// caller holds s.mu shared.
func (s *Store) placeAll(objs []*object) int {
	if len(objs) == 0 {
		return 0
	}
	k := int((s.nextSeg.Add(1) - 1) % uint64(len(s.segs)))
	placed := 0
	for len(objs) > 0 {
		n, sum := 0, int64(0)
		for n < len(objs) {
			a := objs[n].allocSize(s.qbits)
			if n > 0 && sum+a > s.runLimit {
				break
			}
			sum += a
			n++
		}
		if seg, ok := s.placeRun(objs[:n], sum, k); ok {
			k, placed = seg, placed+n
		} else {
			placed += s.placeEach(objs[:n], &k)
		}
		objs = objs[n:]
	}
	return placed
}

// placeRun allocates sum bytes, the allocation sizes of run, as one
// extent on the first segment with room from segment k on, and carves run
// out of it. The segment holds the objects' sizes. An arena it opens for
// values of populateMin bytes or more on average is populated ahead.
func (s *Store) placeRun(run []*object, sum int64, k int) (int, bool) {
	var held int64
	for _, o := range run {
		held += o.size
	}
	for i := range s.segs {
		seg := (k + i) % len(s.segs)
		g := s.segs[seg]
		g.mu.Lock()
		off, ok := g.alloc(sum, held >= populateMin*int64(len(run)))
		var arena arenaView
		if ok {
			arena = g.arenaAt(off)
			g.held += held
		}
		g.mu.Unlock()
		if !ok {
			continue
		}
		for _, o := range run {
			o.seg, o.off = int32(seg), off
			o.setBytes(arena.bytes(off, o.size))
			off += o.allocSize(s.qbits)
		}
		s.used.Add(held)
		return seg, true
	}
	return 0, false
}

// placeEach places each of objs on its own, trying the segments from *k on
// and moving *k to the last one that had room; it returns how many it
// placed.
func (s *Store) placeEach(objs []*object, k *int) int {
	placed := 0
	for _, o := range objs {
		if seg, ok := s.placeRun([]*object{o}, o.allocSize(s.qbits), *k); ok {
			*k = seg
			placed++
		}
	}
	return placed
}

// freeObject returns o's memory to its segment, once: a forced removal and
// the last reader's release may both try.
func (s *Store) freeObject(o *object) {
	g := s.segs[o.seg]
	g.mu.Lock()
	freed := !o.has(flagFreed)
	if freed {
		o.set(flagFreed)
		g.free(o.off, o.allocSize(s.qbits))
		g.held -= o.size
	}
	g.mu.Unlock()
	if freed {
		s.used.Add(-o.size)
	}
}
