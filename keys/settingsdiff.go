package keys

import (
	"fmt"
	"reflect"
)

// SettingDiff is one input in which two settings differ: the field's path
// in Settings (e.g. "Engines.HashSeed") and its value in each, as text.
type SettingDiff struct {
	Field string
	A, B  string
}

// DiffSettings returns the inputs in which a and b differ, in the order
// of Settings' fields, nested structs entered: the inputs that can make
// two servers key the same prompt differently. A nil pointer reads
// "unset".
func DiffSettings(a, b Settings) []SettingDiff {
	return diffValues(nil, "", reflect.ValueOf(a), reflect.ValueOf(b))
}

// diffValues appends the differences of two values of one type under path.
func diffValues(dst []SettingDiff, path string, a, b reflect.Value) []SettingDiff {
	if a.Kind() == reflect.Struct {
		for i := range a.NumField() {
			name := a.Type().Field(i).Name
			if path != "" {
				name = path + "." + name
			}
			dst = diffValues(dst, name, a.Field(i), b.Field(i))
		}
		return dst
	}
	sa, sb := settingText(a), settingText(b)
	if sa != sb {
		dst = append(dst, SettingDiff{Field: path, A: sa, B: sb})
	}
	return dst
}

// settingText spells a setting's value: a pointer's target, "unset" for
// nil, strings quoted.
func settingText(v reflect.Value) string {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "unset"
		}
		v = v.Elem()
	}
	if v.Kind() == reflect.String {
		return fmt.Sprintf("%q", v.String())
	}
	return fmt.Sprint(v.Interface())
}
