package workload

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRequestWriterRoundTrip writes requests with every field, escapes
// and extremes, and reads them back as they were.
func TestRequestWriterRoundTrip(t *testing.T) {
	want := []Request{
		{ID: "a", Tokens: []int64{1, 2, 3}},
		{ID: "b<&>\"\\\n😀", Tokens: []int64{}, CacheSalt: "sé\t<x>", LoRATaskID: int64p(0), LoRAName: "lo<&>ra", MultimodalHashes: [][8]int32{{1, 2, 3, 4, 5, 6, 7, -1 << 31}}},
		{ID: "c", Tokens: []int64{-1 << 63, 1<<63 - 1}, ArrivalMS: 12, ConversationID: "conv", OutputLength: 7},
	}
	var buf bytes.Buffer
	w := NewRequestWriter(&buf)
	for _, r := range want {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	got, _, err := readAll(t, buf.String())
	if err != nil {
		t.Fatalf("ReadRequests(written) = %v\n%s", err, buf.String())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadRequests(written) (-want +got):\n%s", diff)
	}
}

// TestRequestWriterNilTokens writes a request without tokens as an empty
// prompt, which reads back; a null would not.
func TestRequestWriterNilTokens(t *testing.T) {
	var buf bytes.Buffer
	w := NewRequestWriter(&buf)
	if err := w.Write(Request{ID: "x"}); err != nil {
		t.Fatal(err)
	}
	_ = w.Flush()
	got, _, err := readAll(t, buf.String())
	if err != nil {
		t.Fatalf("ReadRequests(%q) = %v", buf.String(), err)
	}
	if diff := cmp.Diff([]Request{{ID: "x", Tokens: []int64{}}}, got); diff != "" {
		t.Errorf("ReadRequests(%q) (-want +got):\n%s", buf.String(), diff)
	}
}

// TestRecorded records the requests a consumer pulls, and only those.
func TestRecorded(t *testing.T) {
	src, err := ParseConversations("conversations=2,turns=2,system=16,user=8,output=4")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := NewRequestWriter(&buf)
	stop := errors.New("stop")
	var pulled []Request
	err = Recorded(src, w).Each(func(r Request) error {
		if len(pulled) == 3 {
			return stop
		}
		pulled = append(pulled, r)
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("Recorded(...).Each = %v, want the consumer's error", err)
	}
	_ = w.Flush()
	got, _, err := readAll(t, buf.String())
	if err != nil {
		t.Fatal(err)
	}
	// The fourth request was handed to the consumer, which refused it:
	// written all the same.
	if len(got) != 4 {
		t.Fatalf("Recorded wrote %d requests, want 4", len(got))
	}
	if diff := cmp.Diff(pulled, got[:3]); diff != "" {
		t.Errorf("Recorded wrote (-pulled +written):\n%s", diff)
	}
}
