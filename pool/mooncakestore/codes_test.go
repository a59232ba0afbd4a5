package mooncakestore

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kvctl/kvctl/pool"
)

func TestCodeOf(t *testing.T) {
	tests := []struct {
		rc   int64
		want pool.Code
	}{
		{0, pool.OK},
		{4096, pool.OK}, // a byte count
		{-704, pool.ObjectNotFound},
		{-705, pool.ObjectAlreadyExists},
		{-706, pool.ObjectHasLease},
		{-200, pool.NoAvailableHandle},
		{-900, pool.RPCFail},
		{-1, pool.Code(-1)},
	}
	for _, tt := range tests {
		if got := codeOf(tt.rc); got != tt.want {
			t.Errorf("codeOf(%d) = %v, want %v", tt.rc, got, tt.want)
		}
	}
}

func TestHealthName(t *testing.T) {
	tests := []struct {
		rc   int32
		want string
	}{
		{1, "client not initialized (HC_NOT_INITIALIZED)"},
		{2, "master unreachable (HC_MASTER_UNREACHABLE)"},
		{-900, "RPC_FAIL (-900)"},
		{7, "status 7"},
	}
	for _, tt := range tests {
		if got := healthName(tt.rc); got != tt.want {
			t.Errorf("healthName(%d) = %q, want %q", tt.rc, got, tt.want)
		}
	}
}

func TestRuns(t *testing.T) {
	tests := []struct {
		sizes []int64
		limit int64
		want  [][2]int
	}{
		{nil, 256, nil},
		{[]int64{64, 64, 64, 64}, 128, [][2]int{{0, 2}, {2, 4}}},
		{[]int64{1, 1, 1}, 128, [][2]int{{0, 2}, {2, 3}}}, // each aligned to 64
		{[]int64{10, 500, 10}, 128, [][2]int{{0, 1}, {1, 2}, {2, 3}}},
		{[]int64{0, 0}, 64, [][2]int{{0, 2}}},
	}
	for _, tt := range tests {
		if got := runs(tt.sizes, tt.limit); !cmp.Equal(got, tt.want) {
			t.Errorf("runs(%v, %d) = %v, want %v", tt.sizes, tt.limit, got, tt.want)
		}
	}
}
