package holes

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/keylist"
	"github.com/kvctl/kvctl/pool/mem"
	"github.com/kvctl/kvctl/pool/mooncake"
	_ "github.com/kvctl/kvctl/pool/redis"
	"github.com/kvctl/kvctl/stats"
	"github.com/kvctl/kvctl/workload"
)

// sliceSource serves fixed requests.
type sliceSource []workload.Request

func (s sliceSource) Name() string { return "test" }
func (s sliceSource) Each(fn func(workload.Request) error) error {
	for _, r := range s {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

// testSettings: T=4, two layer groups, TP 2 with both shards, and a
// replicated group: five pages per block.
func testSettings() keys.Settings {
	return keys.Settings{
		Scheme: keys.SchemeTRTLLM,
		Layout: keys.Layout{
			TokensPerBlock: 4, World: 2, Ranks: []int{0, 1},
			LayerGroups: []keys.LayerGroup{{ID: 0, BytesPerPage: 64}, {ID: 1, BytesPerPage: 128}},
			Replicated:  []keys.LayerGroup{{ID: 2, BytesPerPage: 32}},
		},
		Namespace: keys.Namespace{Name: "trtllm", ModelKey: "m"},
	}
}

func seq(n int, from int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = from + int64(i)
	}
	return out
}

// scenario: the pages stored for request A (10 blocks) follow wantMap, and
// in block 5 (a '.' inside a hole) every page but one is stored: a partial
// block is missing. Request B shares nothing and has nothing stored.
const wantMapA = "####.##..#"

func scenario(t *testing.T) (reqs sliceSource, stored []string) {
	t.Helper()
	k := testSettings()
	reqs = sliceSource{
		{ID: "A", Tokens: seq(42, 0)},
		{ID: "B", Tokens: seq(9, 1000)},
	}
	hashes, err := k.Hashes(keys.Scope{}, reqs[0].Tokens)
	if err != nil {
		t.Fatal(err)
	}
	for b, h := range hashes {
		pages := k.Namespace.AppendBlockKeys(nil, k.Layout, h)
		switch {
		case wantMapA[b] == '#':
			stored = append(stored, pages...)
		case b == 4:
			stored = append(stored, pages[:len(pages)-1]...) // replicated page missing
		case b == 7:
			stored = append(stored, pages[1:]...) // rank 0 of layer group 0 missing
		}
	}
	return reqs, stored
}

func wantReport() Report {
	return Report{
		Probe: ProbeReadOnly,
		Summary: stats.Holes{Requests: 2, Lookups: 2, Blocks: 12, LookedUpBlocks: 12, HitBlocks: 4, Holes: 2,
			HoleBlocks: 3, BehindHoleBlocks: 3, RecomputedTokens: 12, PromptTokens: 51, HitTokens: 16},
		Requests: []stats.RequestHoles{
			{ID: "A", Blocks: 10, HitBlocks: 4, Holes: 2, HoleBlocks: 3, BehindHoleBlocks: 3, RecomputedTokens: 12, PromptTokens: 42, TokensPerBlock: 4, Map: wantMapA},
			{ID: "B", Blocks: 2, PromptTokens: 9, TokensPerBlock: 4, Map: ".."},
		},
	}
}

func fill(t *testing.T, st pool.Store, stored []string) {
	t.Helper()
	items := make([]pool.PutItem, len(stored))
	for i, k := range stored {
		items[i] = pool.PutItem{Key: k, Value: []byte("v")}
	}
	res := make([]pool.Code, len(items))
	if err := st.Put(context.Background(), items, res); err != nil {
		t.Fatal(err)
	}
	for i, c := range res {
		if c != pool.OK {
			t.Fatalf("put %s = %v", stored[i], c)
		}
	}
}

// TestProbeBackends maps the same known holes through every backend.
func TestProbeBackends(t *testing.T) {
	reqs, stored := scenario(t)
	backends := map[string]func(t *testing.T) pool.Store{
		"mem": func(t *testing.T) pool.Store {
			st, err := mem.New(mem.Options{Capacity: 64 << 20, Segments: 1, ArenaSize: 1 << 20, Eviction: mem.EvictManual})
			if err != nil {
				t.Fatal(err)
			}
			fill(t, st, stored)
			return st
		},
		"redis": func(t *testing.T) pool.Store {
			mr := miniredis.RunT(t)
			st, err := pool.Open(context.Background(), "redis://"+mr.Addr())
			if err != nil {
				t.Fatal(err)
			}
			fill(t, st, stored)
			return st
		},
		"mooncake": func(t *testing.T) pool.Store {
			backing, _ := mem.New(mem.Options{Capacity: 64 << 20, Segments: 1, ArenaSize: 1 << 20, Eviction: mem.EvictManual})
			fill(t, backing, stored)
			srv := httptest.NewServer(mooncake.NewMasterHandler(backing))
			t.Cleanup(srv.Close)
			st, err := pool.Open(context.Background(), "mooncake://"+strings.TrimPrefix(srv.URL, "http://")+"?chunk=7")
			if err != nil {
				t.Fatal(err)
			}
			return st
		},
		"keylist": func(t *testing.T) pool.Store {
			path := filepath.Join(t.TempDir(), "keys.txt")
			if err := os.WriteFile(path, []byte(strings.Join(stored, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			st, err := keylist.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			return st
		},
	}
	for name, open := range backends {
		t.Run(name, func(t *testing.T) {
			st := open(t)
			defer st.Close()
			got, err := Probe(context.Background(), st, name, reqs, ProbeOptions{Keys: testSettings(), ChunkKeys: 11})
			if err != nil {
				t.Fatal(err)
			}
			want := wantReport()
			want.Pool = name
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Probe(%s) mismatch (-want +got):\n%s", name, diff)
			}
		})
	}
}

func TestProbeLeasing(t *testing.T) {
	reqs, stored := scenario(t)
	st, _ := mem.New(mem.Options{Capacity: 64 << 20, Segments: 1, ArenaSize: 1 << 20, Eviction: mem.EvictManual})
	defer st.Close()
	fill(t, st, stored)
	rep, err := Probe(context.Background(), st, "mem", reqs, ProbeOptions{Keys: testSettings(), Leasing: true})
	if err != nil || rep.Probe != ProbeLeasing {
		t.Fatalf("Probe(leasing) = %q, %v; want %q", rep.Probe, err, ProbeLeasing)
	}
	// A leased key refuses a non-forced removal.
	res := make([]pool.Code, 1)
	_ = st.Remove(context.Background(), stored[:1], false, res)
	if res[0] != pool.ObjectHasLease {
		t.Errorf("Remove after leasing probe = %v, want %v", res[0], pool.ObjectHasLease)
	}
	kl, _ := keylist.Read("k", strings.NewReader("a\n"))
	if _, err := Probe(context.Background(), kl, "keylist", reqs, ProbeOptions{Keys: testSettings(), Leasing: true}); err == nil {
		t.Error("Probe(leasing) on a keylist succeeded, want an error")
	}
}

func TestProbeNeedsModelKey(t *testing.T) {
	k := testSettings()
	k.Namespace.ModelKey = ""
	st, _ := mem.New(mem.Options{Capacity: 1 << 20, Segments: 1, ArenaSize: 1 << 20})
	defer st.Close()
	if _, err := Probe(context.Background(), st, "mem", sliceSource{}, ProbeOptions{Keys: k}); err == nil {
		t.Error("Probe without a model key succeeded")
	}
}

func ExampleProbe() {
	st, _ := mem.New(mem.Options{Capacity: 1 << 20, Segments: 1, ArenaSize: 1 << 20})
	defer st.Close()
	rep, _ := Probe(context.Background(), st, "mem://", sliceSource{{ID: "r", Tokens: seq(20, 0)}}, ProbeOptions{Keys: testSettings()})
	fmt.Println(rep.Requests[0].Map, rep.Summary.HitBlocks)
	// Output: ..... 0
}
