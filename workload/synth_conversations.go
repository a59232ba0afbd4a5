package workload

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Conversations is a synthetic multi-turn chat workload. Every
// conversation starts with a system prompt; turn k's prompt is turn k-1's
// prompt, then turn k-1's output, then a new user message, so every turn
// extends the previous one's prompt. Outputs are synthesised tokens (a
// replay cannot know what a model would answer), Output tokens each.
//
// There are SystemPrompts distinct system prompts, conversation c using
// number c mod SystemPrompts: with the default of 1 every conversation
// shares one system prompt, as the requests of one deployment do.
//
// Conversation c starts at c*IntervalMS; its turn k arrives ThinkMS after
// turn k-1. Requests come in arrival order (ties by conversation, then
// turn), with ID "c<c>-t<k>" and ConversationID "c<c>". Everything is a
// function of the fields: the same Conversations gives the same requests.
type Conversations struct {
	Conversations int    // number of conversations (default 200)
	Turns         int    // turns per conversation (default 6)
	System        int    // system prompt tokens (default 2048)
	User          int    // tokens of each user message (default 512)
	Output        int    // tokens generated per turn (default 256)
	SystemPrompts int    // distinct system prompts (default 1)
	Seed          uint64 // varies every token (default 0)
	IntervalMS    int64  // between conversation starts (default 1000)
	ThinkMS       int64  // between a conversation's turns (default 10000)
	Vocab         int64  // token ids are in [0, Vocab) (default DefaultVocab)
}

// Limits on a Conversations spec, to keep a typo from asking for the
// impossible.
const (
	maxSynthRequests      = 10_000_000
	maxSynthRequestTokens = 16 << 20
	maxSynthMS            = 1 << 36 // about two years, so arrival times cannot overflow
)

// DefaultConversations returns the defaults of every spec key.
func DefaultConversations() Conversations {
	return Conversations{Conversations: 200, Turns: 6, System: 2048, User: 512, Output: 256,
		SystemPrompts: 1, IntervalMS: 1000, ThinkMS: 10000, Vocab: DefaultVocab}
}

// convKey is one key of a spec: its name, minimum and destination.
type convKey struct {
	name string
	min  int64
	set  func(c *Conversations, v int64)
}

var convKeys = []convKey{
	{"conversations", 1, func(c *Conversations, v int64) { c.Conversations = int(v) }},
	{"turns", 1, func(c *Conversations, v int64) { c.Turns = int(v) }},
	{"system", 0, func(c *Conversations, v int64) { c.System = int(v) }},
	{"user", 1, func(c *Conversations, v int64) { c.User = int(v) }},
	{"output", 1, func(c *Conversations, v int64) { c.Output = int(v) }},
	{"system_prompts", 1, func(c *Conversations, v int64) { c.SystemPrompts = int(v) }},
	{"seed", 0, func(c *Conversations, v int64) { c.Seed = uint64(v) }},
	{"interval_ms", 0, func(c *Conversations, v int64) { c.IntervalMS = v }},
	{"think_ms", 0, func(c *Conversations, v int64) { c.ThinkMS = v }},
	{"vocab", 2, func(c *Conversations, v int64) { c.Vocab = v }},
}

// ParseConversations parses a spec such as
// "conversations=200,turns=6,system=2048,user=512,output=256": comma-
// separated key=value pairs, keys conversations, turns, system, user,
// output, system_prompts, seed, interval_ms, think_ms and vocab, each at
// most once; missing keys take DefaultConversations' values.
func ParseConversations(spec string) (Conversations, error) {
	c := DefaultConversations()
	seen := map[string]bool{}
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if err := c.setKey(part, seen); err != nil {
			return Conversations{}, fmt.Errorf("synthetic workload %q: %w", spec, err)
		}
	}
	if err := c.Validate(); err != nil {
		return Conversations{}, fmt.Errorf("synthetic workload %q: %w", spec, err)
	}
	return c, nil
}

func (c *Conversations) setKey(part string, seen map[string]bool) error {
	name, value, ok := strings.Cut(part, "=")
	if !ok {
		return fmt.Errorf("%q is not key=value", part)
	}
	i := slices.IndexFunc(convKeys, func(k convKey) bool { return k.name == name })
	if i < 0 {
		names := make([]string, len(convKeys))
		for j, k := range convKeys {
			names[j] = k.name
		}
		return fmt.Errorf("unknown key %q (want one of %s)", name, strings.Join(names, ", "))
	}
	if seen[name] {
		return fmt.Errorf("key %s given twice", name)
	}
	seen[name] = true
	v, err := strconv.ParseInt(value, 10, 64)
	if err != nil || v < convKeys[i].min {
		return fmt.Errorf("%s=%q is not an integer >= %d", name, value, convKeys[i].min)
	}
	if name != "seed" && v > 1<<36 {
		return fmt.Errorf("%s=%d is too large", name, v)
	}
	convKeys[i].set(c, v)
	return nil
}

// Validate checks the fields' ranges and that the workload is not too big.
func (c Conversations) Validate() error {
	switch {
	case c.Conversations < 1 || c.Turns < 1:
		return fmt.Errorf("conversations=%d and turns=%d must be at least 1", c.Conversations, c.Turns)
	case c.System < 0 || c.User < 1 || c.Output < 1:
		return fmt.Errorf("system=%d must be >= 0, user=%d and output=%d >= 1", c.System, c.User, c.Output)
	case c.SystemPrompts < 1 || c.Vocab < 2 || c.IntervalMS < 0 || c.ThinkMS < 0:
		return fmt.Errorf("system_prompts must be >= 1, vocab >= 2, interval_ms and think_ms >= 0")
	case c.Conversations > maxSynthRequests || c.Turns > maxSynthRequests ||
		int64(c.Conversations)*int64(c.Turns) > maxSynthRequests:
		return fmt.Errorf("%d conversations of %d turns is more than %d requests", c.Conversations, c.Turns, maxSynthRequests)
	case c.promptLen(c.Turns-1) > maxSynthRequestTokens:
		return fmt.Errorf("the last turn's prompt of %d tokens is more than %d", c.promptLen(c.Turns-1), maxSynthRequestTokens)
	case c.IntervalMS > maxSynthMS || c.ThinkMS > maxSynthMS:
		return fmt.Errorf("interval_ms=%d and think_ms=%d must be at most %d", c.IntervalMS, c.ThinkMS, int64(maxSynthMS))
	}
	return nil
}

// promptLen is the prompt length of turn k.
func (c Conversations) promptLen(k int) int64 {
	return int64(c.System) + int64(k+1)*int64(c.User) + int64(k)*int64(c.Output)
}

// String returns the spec with every key, in ParseConversations' syntax.
func (c Conversations) String() string {
	return fmt.Sprintf("conversations=%d,turns=%d,system=%d,user=%d,output=%d,system_prompts=%d,"+
		"seed=%d,interval_ms=%d,think_ms=%d,vocab=%d", c.Conversations, c.Turns, c.System, c.User,
		c.Output, c.SystemPrompts, c.Seed, c.IntervalMS, c.ThinkMS, c.Vocab)
}

// Name returns the spec, as String does.
func (c Conversations) Name() string { return "synthetic:" + c.String() }

// Requests returns the number of requests the workload has.
func (c Conversations) Requests() int { return c.Conversations * c.Turns }

// Each calls fn with every request in arrival order.
func (c Conversations) Each(fn func(req Request) error) error {
	if err := c.Validate(); err != nil {
		return fmt.Errorf("synthetic workload: %w", err)
	}
	type turn struct {
		at      int64
		conv, k int
	}
	order := make([]turn, 0, c.Requests())
	for conv := 0; conv < c.Conversations; conv++ {
		for k := 0; k < c.Turns; k++ {
			order = append(order, turn{int64(conv)*c.IntervalMS + int64(k)*c.ThinkMS, conv, k})
		}
	}
	slices.SortFunc(order, func(a, b turn) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.conv, b.conv), cmp.Compare(a.k, b.k))
	})
	for _, t := range order {
		if err := fn(c.request(t.conv, t.k, t.at)); err != nil {
			return err
		}
	}
	return nil
}

// Segment kinds, mixed into segment seeds.
const (
	segSystem = iota + 1
	segUser
	segOutput
)

func (c Conversations) request(conv, k int, at int64) Request {
	tokens := make([]int64, 0, c.promptLen(k))
	tokens = c.appendSegment(tokens, segSystem, conv%c.SystemPrompts, 0, c.System)
	for j := 0; j < k; j++ {
		tokens = c.appendSegment(tokens, segUser, conv, j, c.User)
		tokens = c.appendSegment(tokens, segOutput, conv, j, c.Output)
	}
	tokens = c.appendSegment(tokens, segUser, conv, k, c.User)
	return Request{
		ID:             fmt.Sprintf("c%d-t%d", conv, k),
		Tokens:         tokens,
		ArrivalMS:      at,
		ConversationID: fmt.Sprintf("c%d", conv),
		OutputLength:   c.Output,
	}
}

// appendSegment appends n tokens of the segment (kind, a, b).
func (c Conversations) appendSegment(dst []int64, kind, a, b, n int) []int64 {
	seed := Synthesizer{Seed: c.Seed}.chainStart()
	for _, v := range []int64{int64(kind), int64(a), int64(b)} {
		seed = chainNext(seed, v)
	}
	start := len(dst)
	dst = append(dst, make([]int64, n)...)
	fillTokens(dst[start:], seed, uint64(c.Vocab))
	return dst
}
