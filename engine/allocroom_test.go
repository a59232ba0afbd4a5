package engine

import "testing"

// take gives lists with room for n; recycled lists go to the takes of
// their class only, empty and holding no nodes.
func TestAllocRoomTakeRecycle(t *testing.T) {
	var p allocRoom
	blocks, nodes := p.take(5)
	if len(blocks) != 0 || cap(blocks) < 5 || len(nodes) != 0 || cap(nodes) < 5 {
		t.Fatalf("take(5) = len %d cap %d, len %d cap %d; want empty lists with room for 5", len(blocks), cap(blocks), len(nodes), cap(nodes))
	}
	a := allocation{blocks: append(blocks, 1, 2), nodes: append(nodes, &radixNode{}, nil), registered: 2}
	p.recycle(&a)
	if a.blocks != nil || a.nodes != nil || a.registered != 0 {
		t.Errorf("recycle left the allocation %+v, want it empty", a)
	}
	tests := []struct {
		n        int
		recycled bool
	}{
		{9, false}, // a larger class
		{6, true},
		{7, false}, // taken already
	}
	for _, tt := range tests {
		b, nd := p.take(tt.n)
		got := cap(b) > 0 && &b[:1][0] == &blocks[:1][0]
		if got != tt.recycled || cap(b) < tt.n || len(b) != 0 {
			t.Errorf("take(%d) = len %d cap %d, recycled %v; want empty, room for %d, recycled %v", tt.n, len(b), cap(b), got, tt.n, tt.recycled)
		}
		if got && nd[:2][0] != nil {
			t.Errorf("take(%d) recycled nodes still pointing to %p", tt.n, nd[:2][0])
		}
	}
}
