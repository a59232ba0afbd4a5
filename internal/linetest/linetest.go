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
	var fields []field
	for g, names := range groups {
		for _, name := range names {
			f, ok := typ.FieldByName(name)
			if !ok {
				return fmt.Errorf("%v has no field %s", typ, name)
			}
			fields = append(fields, field{group: g, name: name, span: [2]int{int(f.Offset), int(f.Offset + f.Type.Size())}})
		}
	}
	for i, x := range fields {
		for _, y := range fields[i+1:] {
			if d := gap(x.span, y.span); x.group != y.group && d < lineBytes {
				return fmt.Errorf("%v.%s and %v.%s are %d bytes apart, less than a %d-byte cache line",
					typ, x.name, typ, y.name, d, lineBytes)
			}
		}
	}
	return nil
}

// field is a named field's bytes (start, end) and the number of its group.
type field struct {
	group int
	name  string
	span  [2]int
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
