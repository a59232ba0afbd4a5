package engine

import "slices"

// kvLink is a generation server's KV receive link: transfers take it one
// at a time, in the order their receives started, each for its bytes at
// the link's bandwidth; a transfer given up (cancelled, or failed on the
// sending side) leaves the link at once to the next.
type kvLink struct {
	queue  []*leg
	on     *leg  // the transfer on the link, nil when none
	freeNS int64 // when the link is next free
}

// dispatch puts the queued transfers on the link while it is free by now:
// each starts when the link freed or its receive started, whichever is
// later, and lands delayNS after its bytes moved at gbps GB/s. A transfer
// whose sending side fails ends as it starts (sendFailed), leaving the
// link free.
func (k *kvLink) dispatch(now int64, gbps float64, delayNS int64, sendFailed func(*leg)) {
	for len(k.queue) > 0 && k.freeNS <= now {
		k.on = nil
		l := k.queue[0]
		k.queue = k.queue[1:]
		start := max(k.freeNS, l.startNS)
		k.freeNS = start
		if l.sendFail {
			sendFailed(l)
			continue
		}
		k.on, k.freeNS = l, start+int64(float64(l.bytes)/gbps)
		l.doneNS = k.freeNS + delayNS
	}
}

// cancel takes leg l off the link at now: out of the queue, or, when its
// bytes are moving, off the link, which frees at once.
func (k *kvLink) cancel(l *leg, now int64) {
	k.queue = slices.DeleteFunc(k.queue, func(x *leg) bool { return x == l })
	if k.on == l {
		k.on = nil
		k.freeNS = min(k.freeNS, now)
	}
}

// next is when the link next frees for a queued transfer; ok is false
// when none is queued.
func (k *kvLink) next() (int64, bool) { return k.freeNS, len(k.queue) > 0 }
