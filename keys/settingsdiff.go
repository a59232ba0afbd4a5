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
// "unset". An engine's defaults are compared as the values they stand for
// (effective), so an input given as its default does not differ.
func DiffSettings(a, b Settings) []SettingDiff {
	return diffValues(nil, "", reflect.ValueOf(a.effective()), reflect.ValueOf(b.effective()))
}

// effective returns s with the defaults of an engine other than
// TensorRT-LLM spelled out: its version (the current line), Dynamo's
// sequence seed (the version's), and the chunk size (LMCache's
// DefaultChunkSize; vLLM's hash block, a key per block).
func (s Settings) effective() Settings {
	if s.Engine == "" || s.Engine == EngineTRTLLM {
		return s
	}
	o := &s.Engines
	o.Version = o.version(s.Engine)
	switch s.Engine {
	case EngineDynamo:
		if o.SequenceSeed == nil {
			seed := dynamoVersionSeed(o.Version)
			o.SequenceSeed = &seed
		}
	case EngineLMCache:
		o.ChunkSize = o.chunkSize()
	case EngineVLLM:
		o.ChunkSize = s.BlockTokens()
	}
	return s
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
