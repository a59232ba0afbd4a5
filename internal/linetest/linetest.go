// Package linetest checks in tests that the fields of a struct that
// different cores write lie on cache lines apart from those they read.
package linetest

import (
	"fmt"
	"reflect"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// lineBytes is the cache line the layouts are padded for.
const lineBytes = int(unsafe.Sizeof(cpu.CacheLinePad{}))

// Apart returns an error naming the first field of groups[i] and field of
// groups[j] (i != j) of struct type typ that could share a cache line,
// wherever the struct starts: less than a line lies between their bytes.
// Fields are named as in the source; an unknown name is an error.
func Apart(typ reflect.Type, groups ...[]string) error {
	spans := make([][][2]int, len(groups))
	for g, names := range groups {
		for _, name := range names {
			f, ok := typ.FieldByName(name)
			if !ok {
				return fmt.Errorf("%v has no field %s", typ, name)
			}
			spans[g] = append(spans[g], [2]int{int(f.Offset), int(f.Offset + f.Type.Size())})
		}
	}
	for i := range groups {
		for j := i + 1; j < len(groups); j++ {
			for a, x := range spans[i] {
				for b, y := range spans[j] {
					if gap(x, y) < lineBytes {
						return fmt.Errorf("%v.%s and %v.%s are %d bytes apart, less than a %d-byte cache line",
							typ, groups[i][a], typ, groups[j][b], gap(x, y), lineBytes)
					}
				}
			}
		}
	}
	return nil
}

// gap is the distance from the last byte of the earlier of the spans x
// and y (start, end) to the first byte of the later; 0 when they overlap.
// Two bytes a line or more apart never share one.
func gap(x, y [2]int) int {
	if x[0] > y[0] {
		x, y = y, x
	}
	return max(0, y[0]-(x[1]-1))
}
