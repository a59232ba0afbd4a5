package keys

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
)

// Pickle opcodes of protocol 5 (CPython Lib/pickle.py), only those the
// values of the vLLM and LMCache recipes need.
const (
	opProto          = 0x80
	opFrame          = 0x95
	opStop           = '.'
	opNone           = 'N'
	opBinInt         = 'J'
	opBinInt1        = 'K'
	opBinInt2        = 'M'
	opLong1          = 0x8a
	opShortBinBytes  = 'C'
	opBinBytes       = 'B'
	opShortBinUnicod = 0x8c
	opBinUnicode     = 'X'
	opEmptyTuple     = ')'
	opMark           = '('
	opTuple          = 't'
	opTuple1         = 0x85
	opMemoize        = 0x94
)

// Pickle framing (Lib/pickle.py, _Framer): a frame is committed before an
// object is saved once it holds frameTarget bytes, frames shorter than
// frameMin are written without a header, and a bytes or str payload of
// frameTarget bytes or more is written outside any frame.
const (
	frameTarget = 64 << 10
	frameMin    = 4
	frameHeader = 9
)

// pickler writes pickle.dumps(v, protocol=5) of the Python values the
// vLLM recipes hash (vllm utils/hashing.py: sha256, xxhash), as CPython
// writes them: nil is None, []byte bytes, string str, int64 int, []int64
// a tuple of ints and []any a tuple. Values are never shared, so the memo
// only ever grows (MEMOIZE) and is never read back (no BINGET).
type pickler struct {
	b     []byte
	frame int // offset of the current frame's reserved header
}

// appendPickle appends pickle.dumps(v, protocol=5) to dst. It fails only
// for a value of a type outside the recipes' values.
func appendPickle(dst []byte, v any) ([]byte, error) {
	p := pickler{b: append(dst, opProto, 5)}
	p.startFrame()
	if err := p.save(v); err != nil {
		return dst, err
	}
	p.b = append(p.b, opStop)
	p.commitFrame()
	return p.b, nil
}

func (p *pickler) startFrame() {
	p.frame = len(p.b)
	p.b = append(p.b, make([]byte, frameHeader)...)
}

// commitFrame closes the current frame: a FRAME header when it holds
// frameMin bytes or more, else its bytes moved over the reserved header.
func (p *pickler) commitFrame() {
	n := len(p.b) - p.frame - frameHeader
	if n >= frameMin {
		p.b[p.frame] = opFrame
		binary.LittleEndian.PutUint64(p.b[p.frame+1:], uint64(n))
		return
	}
	copy(p.b[p.frame:], p.b[p.frame+frameHeader:])
	p.b = p.b[:len(p.b)-frameHeader]
}

// save writes one value, after committing a full frame (Pickler.save).
func (p *pickler) save(v any) error {
	p.checkFrame()
	switch v := v.(type) {
	case nil:
		p.b = append(p.b, opNone)
	case int64:
		p.saveInt(v)
	case []byte:
		p.saveBytes(v)
	case string:
		p.saveStr(v)
	case []int64:
		p.saveInts(v)
	case []any:
		return p.saveItems(v)
	default:
		return fmt.Errorf("pickle: no encoding for %T", v)
	}
	return nil
}

// checkFrame commits the current frame once it holds frameTarget bytes,
// as Pickler.save does before every object.
func (p *pickler) checkFrame() {
	if len(p.b)-p.frame-frameHeader >= frameTarget {
		p.commitFrame()
		p.startFrame()
	}
}

// appendPickleBlock appends pickle.dumps((parent, tuple(tokens), extra),
// protocol=5), vLLM's block tuple, as appendPickle does without boxing
// the tuple, the parent or the tokens.
func appendPickleBlock(dst, parent []byte, tokens []int64, extra any) ([]byte, error) {
	p := pickler{b: append(dst, opProto, 5)}
	p.startFrame()
	p.checkFrame()
	p.openTuple(3)
	p.checkFrame()
	p.saveBytes(parent)
	p.checkFrame()
	p.saveInts(tokens)
	if err := p.save(extra); err != nil {
		return dst, err
	}
	p.closeTuple(3)
	p.b = append(p.b, opStop)
	p.commitFrame()
	return p.b, nil
}

// saveInt writes an int (Pickler.save_long): BININT1, BININT2, BININT for
// what fits in int32, else LONG1 with the two's complement bytes.
func (p *pickler) saveInt(v int64) {
	switch {
	case v >= 0 && v <= 0xff:
		p.b = append(p.b, opBinInt1, byte(v))
	case v >= 0 && v <= 0xffff:
		p.b = append(p.b, opBinInt2, byte(v), byte(v>>8))
	case v >= -1<<31 && v < 1<<31:
		p.b = binary.LittleEndian.AppendUint32(append(p.b, opBinInt), uint32(v))
	default:
		enc := encodeLong(v)
		p.b = append(append(p.b, opLong1, byte(len(enc))), enc...)
	}
}

// encodeLong is pickle.encode_long: the shortest little-endian two's
// complement bytes of v, (bit_length >> 3) + 1 bytes less a redundant 0xff.
func encodeLong(v int64) []byte {
	if v == 0 {
		return nil
	}
	mag := uint64(v)
	if v < 0 {
		mag = uint64(-(v + 1)) + 1 // |v|, also for math.MinInt64
	}
	n := bits.Len64(mag)>>3 + 1
	out := binary.LittleEndian.AppendUint64(nil, uint64(v))
	if n > 8 {
		out = append(out, byte(v>>63)) // sign extension: 0x00 or 0xff
	}
	out = out[:n]
	if v < 0 && n > 1 && out[n-1] == 0xff && out[n-2]&0x80 != 0 {
		out = out[:n-1]
	}
	return out
}

// saveBytes writes bytes (Pickler.save_bytes), then memoizes them.
func (p *pickler) saveBytes(v []byte) {
	switch n := len(v); {
	case n <= 0xff:
		p.b = append(append(p.b, opShortBinBytes, byte(n)), v...)
	case n >= frameTarget:
		p.writeLarge(binary.LittleEndian.AppendUint32([]byte{opBinBytes}, uint32(n)), v)
	default:
		p.b = append(binary.LittleEndian.AppendUint32(append(p.b, opBinBytes), uint32(n)), v...)
	}
	p.b = append(p.b, opMemoize)
}

// saveStr writes a str as UTF-8 (Pickler.save_str), then memoizes it.
func (p *pickler) saveStr(v string) {
	switch n := len(v); {
	case n <= 0xff:
		p.b = append(append(p.b, opShortBinUnicod, byte(n)), v...)
	case n >= frameTarget:
		p.writeLarge(binary.LittleEndian.AppendUint32([]byte{opBinUnicode}, uint32(n)), []byte(v))
	default:
		p.b = append(binary.LittleEndian.AppendUint32(append(p.b, opBinUnicode), uint32(n)), v...)
	}
	p.b = append(p.b, opMemoize)
}

// writeLarge ends the current frame, writes header and payload outside
// any frame and opens a new one (_Framer.write_large_bytes).
func (p *pickler) writeLarge(header, payload []byte) {
	p.commitFrame()
	p.b = append(append(p.b, header...), payload...)
	p.startFrame()
}

// openTuple starts a tuple of n items (Pickler.save_tuple): EMPTY_TUPLE
// for none, MARK before more than 3.
func (p *pickler) openTuple(n int) {
	switch {
	case n == 0:
		p.b = append(p.b, opEmptyTuple)
	case n > 3:
		p.b = append(p.b, opMark)
	}
}

// closeTuple ends a tuple of n items after them: TUPLE1..3 or TUPLE, then
// MEMOIZE (none for the empty tuple, which is not memoized).
func (p *pickler) closeTuple(n int) {
	switch {
	case n == 0:
		return
	case n > 3:
		p.b = append(p.b, opTuple)
	default:
		p.b = append(p.b, opTuple1+byte(n-1))
	}
	p.b = append(p.b, opMemoize)
}

// maxIntPickle is the most bytes an int64 takes: LONG1, a length byte and
// 9 bytes of two's complement.
const maxIntPickle = 11

// saveInts writes a tuple of ints, each item saved as save would. Where
// the whole tuple cannot fill the frame, no item checks it.
func (p *pickler) saveInts(v []int64) {
	p.openTuple(len(v))
	p.b = slices.Grow(p.b, maxIntPickle*len(v)+2)
	if len(p.b)-p.frame-frameHeader+maxIntPickle*len(v) < frameTarget {
		p.b = appendPickleInts(p.b, v)
	} else {
		for _, x := range v {
			p.checkFrame()
			p.saveInt(x)
		}
	}
	p.closeTuple(len(v))
}

// appendPickleInts appends the ints of v as saveInt writes them, in one
// loop over a local slice (the tokens of a block: the hot path).
func appendPickleInts(b []byte, v []int64) []byte {
	for _, x := range v {
		switch {
		case uint64(x) <= 0xff:
			b = append(b, opBinInt1, byte(x))
		case uint64(x) <= 0xffff:
			b = append(b, opBinInt2, byte(x), byte(x>>8))
		case x >= -1<<31 && x < 1<<31:
			b = append(b, opBinInt, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
		default:
			enc := encodeLong(x)
			b = append(append(b, opLong1, byte(len(enc))), enc...)
		}
	}
	return b
}

// saveItems writes a tuple of values.
func (p *pickler) saveItems(v []any) error {
	p.openTuple(len(v))
	for _, x := range v {
		if err := p.save(x); err != nil {
			return err
		}
	}
	p.closeTuple(len(v))
	return nil
}
