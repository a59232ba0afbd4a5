package connector

import "github.com/kvctl/kvctl/keys"

// Request is the connector's view of one request, owned and kept current
// by the runtime (the engine): the connector reads it and never changes it.
type Request struct {
	// ID names the request.
	ID string
	// Chain holds the block hashes of every known token (the prompt, then
	// generated tokens); the runtime extends it as tokens arrive.
	Chain *keys.Chain
	// NumTokens is the length of the context the request computes from:
	// the prompt, or prompt and generated tokens when it is readmitted
	// after a preemption. Offers stop before the block holding its last
	// token.
	NumTokens int
	// Blocks is the block table: Blocks[i] is the KV block (the index of a
	// page in every page slot's pool) holding block i.
	Blocks []int32
}

// Scheduled is one request of a pass, as build_connector_meta sees it.
type Scheduled struct {
	Req *Request
	// Computed is num_computed_tokens before the pass: tokens whose KV is
	// in place (local match and earlier passes), not counting tokens this
	// pass loads from the pool.
	Computed int
	// NumScheduled is the number of tokens the pass computes.
	NumScheduled int
}

// Transfer is one block to move: the request's block index, its chain
// hash and the KV block its pages live in. A transfer moves one page per
// page slot.
type Transfer struct {
	ReqID string
	Block int
	Hash  keys.Hash
	Page  int32
}

// Meta is what one pass asks the worker to do (the connector metadata):
// loads of honoured blocks before the forward, saves of the blocks the
// pass computes after it.
type Meta struct {
	// Pass numbers the pass, from 1.
	Pass  uint64
	Loads []Transfer
	Saves []Transfer
	// dropped are requests whose load failed in this pass: their bound
	// saves are not performed.
	dropped map[string]bool
}

// reset empties m for pass, keeping its buffers.
func (m *Meta) reset(pass uint64) {
	m.Pass = pass
	m.Loads, m.Saves = m.Loads[:0], m.Saves[:0]
	clear(m.dropped)
}

// DropBoundSaves drops the saves bound to request id in this pass
// (drop_bound_saves): its KV is not what the saves would claim.
func (m *Meta) DropBoundSaves(id string) {
	if m.dropped == nil {
		m.dropped = map[string]bool{}
	}
	m.dropped[id] = true
}

// Dropped reports whether request id's saves were dropped from the pass.
func (m *Meta) Dropped(id string) bool { return m.dropped[id] }

// SubmittedSave is a run of a request's saves that the worker queued
// (take_submitted_saves): blocks [From, To) of request ReqID.
type SubmittedSave struct {
	ReqID    string
	From, To int
}
