package mooncake

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"

	"github.com/kvctl/kvctl/pool"
)

// descriptor is Mooncake's AllocatedBuffer::Descriptor as JSON: one memory
// replica of an object.
type descriptor struct {
	Size              int64  `json:"size_"`
	BufferAddress     uint64 `json:"buffer_address_"`
	Protocol          string `json:"protocol_"`
	TransportEndpoint string `json:"transport_endpoint_"`
}

// batchResult is one key's entry in the master's /batch_query_keys answer:
// the replica lists it does not have are null.
type batchResult struct {
	OK              bool          `json:"ok"`
	Error           *string       `json:"error"`
	Values          *[]descriptor `json:"values"`
	DiskValues      *[]struct{}   `json:"disk_values"`
	LocalDiskValues *[]struct{}   `json:"local_disk_values"`
	NofValues       *[]descriptor `json:"nof_values"`
}

type batchReply struct {
	Success bool                   `json:"success"`
	Data    map[string]batchResult `json:"data"`
}

// found is what the handler learnt of one key: OK with its descriptors,
// or the code that says why it has none.
type found struct {
	code  pool.Code
	descs []descriptor
}

func (h *masterHandler) batchQuery(w http.ResponseWriter, r *http.Request) {
	keys := splitKeys(r.URL.Query().Get("keys"))
	if len(keys) == 0 {
		writeJSON(w, http.StatusBadRequest, simpleError{Error: "No keys provided. Use ?keys=key1,key2,..."})
		return
	}
	fs, err := h.find(r.Context(), keys)
	if err != nil {
		writeJSON(w, failureStatus(err), simpleError{Error: err.Error()})
		return
	}
	data := make(map[string]batchResult, len(keys))
	for i, k := range keys {
		data[k] = resultOf(fs[i])
	}
	writeJSON(w, http.StatusOK, batchReply{Success: true, Data: data})
}

// splitKeys splits the keys parameter on every comma, as the master does:
// "a," is the keys "a" and "", and an empty parameter is no key at all.
func splitKeys(raw string) []string {
	if raw == "" {
		return nil
	}
	return strings.Split(raw, ",")
}

// resultOf is one key's /batch_query_keys entry.
func resultOf(f found) batchResult {
	if f.code != pool.OK {
		name := codeName(f.code)
		return batchResult{Error: &name}
	}
	descs := f.descs
	if descs == nil {
		descs = []descriptor{}
	}
	return batchResult{OK: true, Values: &descs}
}

// find looks keys up without a lease: through pool.Locator, with a
// descriptor per present key, or else through Exist, without one. The
// empty key is absent, as on the master, and is not asked.
func (h *masterHandler) find(ctx context.Context, keys []string) ([]found, error) {
	out := make([]found, len(keys))
	var asked []string
	var at []int
	for i, k := range keys {
		out[i].code = pool.ObjectNotFound
		if k != "" {
			asked, at = append(asked, k), append(at, i)
		}
	}
	if len(asked) == 0 {
		return out, nil
	}
	if lo, ok := h.s.(pool.Locator); ok {
		locs := make([]pool.Location, len(asked))
		if err := lo.Locate(ctx, asked, locs); err != nil {
			return nil, err
		}
		for j, l := range locs {
			out[at[j]] = foundAt(l)
		}
		return out, nil
	}
	status := make([]int, len(asked))
	if err := h.s.Exist(ctx, asked, status); err != nil {
		return nil, err
	}
	for j, st := range status {
		out[at[j]] = foundByStatus(st)
	}
	return out, nil
}

// foundAt is a located key, with its one memory replica's descriptor.
func foundAt(l pool.Location) found {
	if l.Code != pool.OK {
		return found{code: l.Code}
	}
	return found{code: pool.OK, descs: []descriptor{{
		Size: l.Size, BufferAddress: uint64(max(l.Offset, 0)), Protocol: "tcp", TransportEndpoint: l.Segment,
	}}}
}

// foundByStatus is an Exist status as a found key without descriptors.
func foundByStatus(st int) found {
	switch {
	case st == 1:
		return found{code: pool.OK}
	case st == 0:
		return found{code: pool.ObjectNotFound}
	}
	return found{code: pool.Code(st)}
}

func (h *masterHandler) queryKey(w http.ResponseWriter, r *http.Request) {
	f, err := h.findLeasing(r.Context(), rawQueryValue(r.URL.RawQuery, "key"))
	switch {
	case err != nil:
		writeJSON(w, failureStatus(err), codedError{ErrorCode: int(pool.CodeOf(err)), ErrorMessage: err.Error()})
	case f.code == pool.OK:
		descs := f.descs
		if descs == nil {
			descs = []descriptor{}
		}
		writeJSON(w, http.StatusOK, struct {
			Success bool         `json:"success"`
			Data    []descriptor `json:"data"`
		}{true, descs})
	default:
		writeJSON(w, http.StatusNotFound, codedError{ErrorCode: int(f.code), ErrorMessage: codeName(f.code)})
	}
}

// rawQueryValue is the first value of the query parameter name, not
// decoded, as the master reads /query_key's key; "" when there is none.
func rawQueryValue(rawQuery, name string) string {
	for piece := range strings.SplitSeq(rawQuery, "&") {
		if k, v, _ := strings.Cut(piece, "="); k == name {
			return v
		}
	}
	return ""
}

// findLeasing looks one key up as the master's GetReplicaList does: find
// gives its descriptors, then the key is leased through
// pool.LeasingExister, or else pool.Sizer (which may lease).
func (h *masterHandler) findLeasing(ctx context.Context, key string) (found, error) {
	fs, err := h.find(ctx, []string{key})
	if err != nil {
		return found{}, err
	}
	if fs[0].code != pool.OK {
		return fs[0], nil
	}
	keys := []string{key}
	switch s := h.s.(type) {
	case pool.LeasingExister:
		status := []int{0}
		if err := s.ExistLeasing(ctx, keys, status); err != nil {
			return found{}, err
		}
		if status[0] != 1 {
			return foundByStatus(status[0]), nil
		}
	case pool.Sizer:
		n := []int64{0}
		if err := s.Sizes(ctx, keys, n); err != nil {
			return found{}, err
		}
		if n[0] < 0 {
			return found{code: pool.Code(n[0])}, nil
		}
	}
	return fs[0], nil
}

func (h *masterHandler) allKeys(w http.ResponseWriter, r *http.Request) {
	l, ok := h.s.(pool.Lister)
	if !ok {
		http.Error(w, "Failed to get all keys: this store cannot list its keys", http.StatusNotImplemented)
		return
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	cw := &countingWriter{w: w}
	bw := bufio.NewWriterSize(cw, 64<<10)
	err := l.List(r.Context(), "", func(k string) error {
		if strings.ContainsAny(k, "\r\n") {
			return nil
		}
		bw.WriteString(k)
		return bw.WriteByte('\n')
	})
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		return
	}
	if cw.n == 0 {
		http.Error(w, "Failed to get all keys: "+err.Error(), failureStatus(err))
		return
	}
	panic(http.ErrAbortHandler) // break the stream off so the client sees it is incomplete
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
