package engine

import "testing"

// TestKVLinkTakesTurnsAndFreesOnCancel: transfers take the link one after
// the other; one given up leaves it to the next at once, so cancelled
// transfers do not hold up the rest.
func TestKVLinkTakesTurnsAndFreesOnCancel(t *testing.T) {
	const gbps = 1 // a byte a nanosecond
	a, b, c := &leg{bytes: 100}, &leg{bytes: 50}, &leg{bytes: 10, sendFail: true}
	var k kvLink
	k.queue = []*leg{a, b}
	k.dispatch(0, gbps, 5, nil)
	if k.on != a || a.doneNS != 105 {
		t.Fatalf("dispatch(0): on %p, a lands at %d; want a, 105", k.on, a.doneNS)
	}
	k.dispatch(40, gbps, 5, nil)
	if k.on != a {
		t.Errorf("dispatch(40): b took the link while a's bytes move")
	}
	k.cancel(a, 40)
	k.dispatch(40, gbps, 5, nil)
	if k.on != b || b.doneNS != 95 {
		t.Errorf("after a's cancel at 40: on %p, b lands at %d; want b, 95", k.on, b.doneNS)
	}
	var failed []*leg
	k.queue = append(k.queue, c)
	k.dispatch(90, gbps, 5, func(l *leg) { failed = append(failed, l) })
	if len(failed) != 1 || failed[0] != c || k.freeNS != 90 {
		t.Errorf("dispatch(90) with c failing to send: failed %v, link free at %d; want [c], 90", failed, k.freeNS)
	}
}
