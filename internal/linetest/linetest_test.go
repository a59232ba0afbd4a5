package linetest

import (
	"reflect"
	"strings"
	"testing"

	"golang.org/x/sys/cpu"
)

type packed struct {
	a, b int64
}

type padded struct {
	a int64
	_ cpu.CacheLinePad
	b int64
}

func TestApart(t *testing.T) {
	_, _ = packed{a: 1, b: 2}, padded{a: 1, b: 2} // the fields are only measured
	if err := Apart(reflect.TypeFor[padded](), []string{"a"}, []string{"b"}); err != nil {
		t.Errorf("padded: %v", err)
	}
	err := Apart(reflect.TypeFor[packed](), []string{"a"}, []string{"b"})
	if err == nil || !strings.Contains(err.Error(), "packed.a and") {
		t.Errorf("packed: %v, want a and b too close", err)
	}
	if err := Apart(reflect.TypeFor[packed](), []string{"c"}); err == nil {
		t.Error("an unknown field was accepted")
	}
}

func TestGap(t *testing.T) {
	for _, c := range []struct {
		x, y [2]int
		want int
	}{
		{[2]int{0, 8}, [2]int{8, 16}, 1},
		{[2]int{8, 16}, [2]int{0, 8}, 1},
		{[2]int{0, 8}, [2]int{71, 79}, 64},
		{[2]int{0, 16}, [2]int{8, 24}, 0},
	} {
		if got := gap(c.x, c.y); got != c.want {
			t.Errorf("gap(%v, %v) = %d, want %d", c.x, c.y, got, c.want)
		}
	}
}
