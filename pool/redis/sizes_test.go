package redis

import (
	"context"
	"slices"
	"testing"

	"github.com/kvctl/kvctl/pool"
)

// TestSizesEmptyValue tells an empty value (size 0) from an absent key,
// which STRLEN answers alike.
func TestSizesEmptyValue(t *testing.T) {
	forEachTarget(t, func(t *testing.T, s *Store, ns string, _ bool) {
		ctx := context.Background()
		empty, full, absent := ns+"empty", ns+"full", ns+"absent"
		res := make([]pool.Code, 2)
		if err := s.Put(ctx, []pool.PutItem{{Key: empty, Value: []byte{}}, {Key: full, Value: []byte("abc")}}, res); err != nil {
			t.Fatalf("Put = %v", err)
		}
		got := make([]int64, 3)
		if err := s.Sizes(ctx, []string{empty, absent, full}, got); err != nil {
			t.Fatalf("Sizes = %v", err)
		}
		if want := []int64{0, int64(pool.ObjectNotFound), 3}; !slices.Equal(got, want) {
			t.Errorf("Sizes(empty, absent, full) = %v, want %v", got, want)
		}
	})
}
