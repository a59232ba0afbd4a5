package engine

import (
	"context"
	"testing"

	"github.com/kvctl/kvctl/workload"
)

func TestSmoke(t *testing.T) {
	clk := NewClock()
	p, err := NewMemPool(clk, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	src := workload.Conversations{Conversations: 8, Turns: 3, System: 300, User: 50, Output: 20, SystemPrompts: 1, IntervalMS: 100, ThinkMS: 1000, Vocab: 1000}
	rep, err := Run(context.Background(), Config{Pool: p, Clock: clk, Verify: true, GPUBlocks: 64}, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", rep)
}
