package keys

import (
	"encoding/binary"
	"fmt"
)

// CBOR major types (RFC 8949 3.1), those of the values vLLM's recipes
// hash.
const (
	cborUint  = 0 << 5
	cborNeg   = 1 << 5
	cborBytes = 2 << 5
	cborText  = 3 << 5
	cborArray = 4 << 5
	cborNull  = 0xf6
)

// appendCBOR appends the canonical CBOR (RFC 8949 4.2.1, core
// deterministic: shortest heads, definite lengths) of the Python values
// vLLM's recipes hash, as cbor2.dumps(x, canonical=True) writes them and
// fxamacker/cbor's core deterministic mode does: nil is null, []byte a
// byte string, string a text string, int64 an integer, []int64 and []any
// arrays. It fails only for a value of another type.
func appendCBOR(dst []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(dst, cborNull), nil
	case int64:
		return appendCBORInt(dst, v), nil
	case []byte:
		return append(appendCBORHead(dst, cborBytes, uint64(len(v))), v...), nil
	case string:
		return append(appendCBORHead(dst, cborText, uint64(len(v))), v...), nil
	case []int64:
		return appendCBORInts(dst, v), nil
	case []any:
		dst = appendCBORHead(dst, cborArray, uint64(len(v)))
		for _, x := range v {
			var err error
			if dst, err = appendCBOR(dst, x); err != nil {
				return dst, err
			}
		}
		return dst, nil
	}
	return dst, fmt.Errorf("cbor: no encoding for %T", v)
}

// appendCBORBlock appends the canonical CBOR of vLLM's block tuple
// (parent, tuple(tokens), extra), as appendCBOR does without boxing it.
func appendCBORBlock(dst, parent []byte, tokens []int64, extra any) ([]byte, error) {
	dst = appendCBORHead(dst, cborArray, 3)
	dst = append(appendCBORHead(dst, cborBytes, uint64(len(parent))), parent...)
	dst = appendCBORInts(dst, tokens)
	return appendCBOR(dst, extra)
}

// appendCBORInts appends an array of integers.
func appendCBORInts(dst []byte, v []int64) []byte {
	dst = appendCBORHead(dst, cborArray, uint64(len(v)))
	for _, x := range v {
		dst = appendCBORInt(dst, x)
	}
	return dst
}

// appendCBORInt appends an integer: major type 0 for n >= 0, else 1 with
// -1-n.
func appendCBORInt(dst []byte, n int64) []byte {
	if n >= 0 {
		return appendCBORHead(dst, cborUint, uint64(n))
	}
	return appendCBORHead(dst, cborNeg, uint64(-1-n))
}

// appendCBORHead appends a head in its shortest form: the argument in the
// initial byte below 24, else in the next 1, 2, 4 or 8 bytes.
func appendCBORHead(dst []byte, major byte, arg uint64) []byte {
	switch {
	case arg < 24:
		return append(dst, major|byte(arg))
	case arg <= 0xff:
		return append(dst, major|24, byte(arg))
	case arg <= 0xffff:
		return binary.BigEndian.AppendUint16(append(dst, major|25), uint16(arg))
	case arg <= 0xffffffff:
		return binary.BigEndian.AppendUint32(append(dst, major|26), uint32(arg))
	}
	return binary.BigEndian.AppendUint64(append(dst, major|27), arg)
}
