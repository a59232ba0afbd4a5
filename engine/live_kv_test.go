package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/workload"
)

// heldKVOf runs prompt as a context-only request on l, held as name, and
// takes its KV.
func heldKVOf(t *testing.T, l *Live, name string, prompt []int64) KVBlocks {
	t.Helper()
	s, err := l.SubmitWith(context.Background(), workload.Request{ID: "ctx-" + name, Tokens: prompt, OutputLength: 1}, SubmitOptions{HoldAs: name})
	if err != nil {
		t.Fatalf("SubmitWith(HoldAs %s) = %v", name, err)
	}
	if _, _, err := collect(t, s); err != nil {
		t.Fatalf("context-only request %s ended with %v", name, err)
	}
	kv, err := l.TakeKV(context.Background(), name)
	if err != nil {
		t.Fatalf("TakeKV(%s) = %v, want the held KV", name, err)
	}
	return kv
}

func TestLiveKVMovesBetweenEngines(t *testing.T) {
	ctxL, genL := startLivePair(t)
	prompt := tokensOf(3, 100) // 6 full blocks at T=16, 4 tokens after
	kv := heldKVOf(t, ctxL, "1", prompt)
	if len(kv.Hashes) != 6 {
		t.Fatalf("TakeKV blocks = %d, want 6", len(kv.Hashes))
	}
	if _, err := ctxL.TakeKV(context.Background(), "1"); !errors.Is(err, ErrNoKV) {
		t.Errorf("TakeKV(1) again = %v, want ErrNoKV", err)
	}
	s, err := genL.SubmitWith(context.Background(), workload.Request{ID: "gen", Tokens: prompt, OutputLength: 5}, SubmitOptions{KV: &kv})
	if err != nil {
		t.Fatal(err)
	}
	got, u, err := collect(t, s)
	if err != nil {
		t.Fatalf("generation request ended with %v", err)
	}
	if diff := cmp.Diff(wantTokens(prompt, 5), got); diff != "" {
		t.Errorf("tokens (-want +got):\n%s", diff)
	}
	st := genL.Stats()
	if st.ComputedPromptTokens != 4 || st.KVInstalledBlocks != 6 || st.KVReceived != 1 || u.LocalHitTokens != 96 {
		t.Errorf("generation side: computed %d prompt tokens, installed %d blocks, received %d, local hits %d; want 4, 6, 1, 96",
			st.ComputedPromptTokens, st.KVInstalledBlocks, st.KVReceived, u.LocalHitTokens)
	}
	if cs := ctxL.Stats(); cs.KVSent != 1 || cs.KVSentBlocks != 6 || cs.KVHeld != 0 {
		t.Errorf("context side: sent %d (%d blocks), held %d; want 1 (6), 0", cs.KVSent, cs.KVSentBlocks, cs.KVHeld)
	}
}

func TestLiveKVRefusesCorruptTransfer(t *testing.T) {
	ctxL, genL := startLivePair(t)
	prompt := tokensOf(9, 64)
	tests := []struct {
		name    string
		corrupt func(*KVBlocks)
	}{
		{"a flipped byte", func(kv *KVBlocks) { kv.Pages[len(kv.Pages)/2] ^= 1 }},
		{"another prompt's hash", func(kv *KVBlocks) { kv.Hashes[1][0] ^= 1 }},
		{"another layout", func(kv *KVBlocks) { kv.BlockBytes /= 2 }},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kv := heldKVOf(t, ctxL, tt.name, prompt)
			tt.corrupt(&kv)
			before := genL.Stats().VerifyMismatches
			s, err := genL.SubmitWith(context.Background(), workload.Request{Tokens: prompt, OutputLength: 3}, SubmitOptions{KV: &kv})
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := collect(t, s); !errors.Is(err, ErrKVTransfer) {
				t.Errorf("stream ended with %v, want ErrKVTransfer", err)
			}
			st := genL.Stats()
			if i < 2 && st.VerifyMismatches <= before {
				t.Errorf("VerifyMismatches = %d, want above %d", st.VerifyMismatches, before)
			}
			if st.KVInstalledBlocks != 0 {
				t.Errorf("KVInstalledBlocks = %d, want 0", st.KVInstalledBlocks)
			}
		})
	}
}

func TestLiveKVHoldEnds(t *testing.T) {
	cfg, _ := testConfig(t)
	l := startLive(t, cfg, LiveOptions{KVHoldTimeout: 20 * time.Millisecond})
	hold := func(name string) {
		s, err := l.SubmitWith(context.Background(), workload.Request{Tokens: tokensOf(5, 40), OutputLength: 1}, SubmitOptions{HoldAs: name})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := collect(t, s); err != nil {
			t.Fatal(err)
		}
	}
	hold("released")
	if err := l.ReleaseKV(context.Background(), "released"); err != nil {
		t.Errorf("ReleaseKV(released) = %v, want nil", err)
	}
	if err := l.ReleaseKV(context.Background(), "released"); !errors.Is(err, ErrNoKV) {
		t.Errorf("ReleaseKV(released) again = %v, want ErrNoKV", err)
	}
	hold("expires")
	deadline := time.Now().Add(5 * time.Second)
	for l.Stats().KVExpired == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := l.TakeKV(context.Background(), "expires"); !errors.Is(err, ErrNoKV) {
		t.Errorf("TakeKV(expires) after the hold timeout = %v, want ErrNoKV", err)
	}
	if st := l.Stats(); st.KVExpired != 1 || st.KVReleased != 1 || st.KVHeld != 0 {
		t.Errorf("Stats: expired %d, released %d, held %d; want 1, 1, 0", st.KVExpired, st.KVReleased, st.KVHeld)
	}
}

func TestLiveKVInstallsBehindCachedPrefix(t *testing.T) {
	ctxL, genL := startLivePair(t)
	prompt := tokensOf(11, 100)
	submitOK(t, genL, workload.Request{Tokens: prompt[:50], OutputLength: 1}) // caches 3 blocks
	before := genL.Stats().ComputedPromptTokens
	kv := heldKVOf(t, ctxL, "1", prompt)
	s, err := genL.SubmitWith(context.Background(), workload.Request{Tokens: prompt, OutputLength: 4}, SubmitOptions{KV: &kv})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := collect(t, s)
	if err != nil {
		t.Fatalf("generation request ended with %v", err)
	}
	if diff := cmp.Diff(wantTokens(prompt, 4), got); diff != "" {
		t.Errorf("tokens (-want +got):\n%s", diff)
	}
	if computed := genL.Stats().ComputedPromptTokens - before; computed != 4 {
		t.Errorf("prompt tokens computed with 3 blocks cached and 6 transferred = %d, want 4", computed)
	}
}

// startLivePair starts a context and a generation engine, each with a
// pool of its own (so the generation side has nothing to load from).
func startLivePair(t *testing.T) (ctx, gen *Live) {
	t.Helper()
	ctxCfg, _ := testConfig(t)
	genCfg, _ := testConfig(t)
	return startLive(t, ctxCfg, LiveOptions{}), startLive(t, genCfg, LiveOptions{})
}
