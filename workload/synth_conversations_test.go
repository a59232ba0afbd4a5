package workload

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseConversations(t *testing.T) {
	got, err := ParseConversations("conversations=3, turns=4,system=10,user=5,output=2,seed=9,interval_ms=7,think_ms=100,system_prompts=2,vocab=50")
	want := Conversations{Conversations: 3, Turns: 4, System: 10, User: 5, Output: 2, Seed: 9,
		IntervalMS: 7, ThinkMS: 100, SystemPrompts: 2, Vocab: 50}
	if err != nil || got != want {
		t.Errorf("ParseConversations = %+v, %v, want %+v", got, err, want)
	}
	if got, err := ParseConversations(""); err != nil || got != DefaultConversations() {
		t.Errorf(`ParseConversations("") = %+v, %v, want the defaults`, got, err)
	}
	back, err := ParseConversations(want.String())
	if err != nil || back != want {
		t.Errorf("ParseConversations(String()) = %+v, %v, want %+v", back, err, want)
	}
}

func TestParseConversationsErrors(t *testing.T) {
	tests := []struct{ spec, wantErr string }{
		{"conversation=2", `unknown key "conversation" (want one of conversations, turns,`},
		{"turns", `"turns" is not key=value`},
		{"turns=2,turns=3", "key turns given twice"},
		{"turns=0", `turns="0" is not an integer >= 1`},
		{"user=x", `user="x" is not an integer >= 1`},
		{"system=-1", `system="-1" is not an integer >= 0`},
		{"vocab=1", `vocab="1" is not an integer >= 2`},
		{"output=99999999999999", "too large"},
		{"conversations=100000,turns=1000", "more than 10000000 requests"},
		{"system=20000000", "more than 16777216"},
		{"think_ms=68719476737", "too large"},
	}
	for _, tt := range tests {
		_, err := ParseConversations(tt.spec)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), tt.spec) {
			t.Errorf("ParseConversations(%q) = %v, want an error naming the spec containing %q", tt.spec, err, tt.wantErr)
		}
	}
}

func TestConversationsEach(t *testing.T) {
	c := Conversations{Conversations: 3, Turns: 3, System: 8, User: 4, Output: 2, SystemPrompts: 1,
		IntervalMS: 10, ThinkMS: 15, Vocab: 1000}
	reqs, err := Collect(c)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	var at []int64
	for _, r := range reqs {
		ids = append(ids, r.ID)
		at = append(at, r.ArrivalMS)
	}
	wantIDs := []string{"c0-t0", "c1-t0", "c0-t1", "c2-t0", "c1-t1", "c0-t2", "c2-t1", "c1-t2", "c2-t2"}
	wantAt := []int64{0, 10, 15, 20, 25, 30, 35, 40, 50}
	if !cmp.Equal(ids, wantIDs) || !cmp.Equal(at, wantAt) {
		t.Errorf("Each order = %v at %v, want %v at %v", ids, at, wantIDs, wantAt)
	}
	byID := map[string]Request{}
	for _, r := range reqs {
		byID[r.ID] = r
		if r.ConversationID != r.ID[:2] || r.OutputLength != 2 {
			t.Errorf("request %s: conversation %q, output %d, want %q, 2", r.ID, r.ConversationID, r.OutputLength, r.ID[:2])
		}
	}
	for _, conv := range []string{"c0", "c1", "c2"} {
		t0, t1, t2 := byID[conv+"-t0"].Tokens, byID[conv+"-t1"].Tokens, byID[conv+"-t2"].Tokens
		if len(t0) != 12 || len(t1) != 18 || len(t2) != 24 {
			t.Errorf("%s prompt lengths = %d, %d, %d, want 12, 18, 24", conv, len(t0), len(t1), len(t2))
		}
		if !slices.Equal(t1[:12], t0) || !slices.Equal(t2[:18], t1) {
			t.Errorf("%s: a turn's prompt does not extend the previous one", conv)
		}
	}
	if !slices.Equal(byID["c0-t0"].Tokens[:8], byID["c2-t0"].Tokens[:8]) {
		t.Errorf("conversations with one system prompt do not share it")
	}
	if slices.Equal(byID["c0-t0"].Tokens[8:], byID["c1-t0"].Tokens[8:]) {
		t.Errorf("conversations c0 and c1 have the same first user message")
	}
	again, _ := Collect(c)
	if diff := cmp.Diff(reqs, again); diff != "" {
		t.Errorf("two runs of the same workload differ:\n%s", diff)
	}
}

func TestConversationsSystemPromptsAndSeed(t *testing.T) {
	c := Conversations{Conversations: 3, Turns: 1, System: 16, User: 1, Output: 1, SystemPrompts: 2, Vocab: DefaultVocab}
	reqs, _ := Collect(c)
	if slices.Equal(reqs[0].Tokens[:16], reqs[1].Tokens[:16]) || !slices.Equal(reqs[0].Tokens[:16], reqs[2].Tokens[:16]) {
		t.Errorf("with 2 system prompts, conversations 0 and 2 must share one and 1 must not")
	}
	c.Seed = 1
	other, _ := Collect(c)
	if slices.Equal(reqs[0].Tokens, other[0].Tokens) {
		t.Errorf("seeds 0 and 1 give the same tokens")
	}
	if c.Name() != "synthetic:"+c.String() || c.Requests() != 3 {
		t.Errorf("Name(), Requests() = %q, %d", c.Name(), c.Requests())
	}
	if err := (Conversations{}).Each(func(Request) error { return nil }); err == nil {
		t.Errorf("Each on a zero Conversations = nil, want a validation error")
	}
}
