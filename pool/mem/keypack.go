package mem

import (
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/kvctl/kvctl/pool"
)

// Keys packed. A page key is a prefix shared by many keys (model, shard,
// layer group) and a block hash spelled in 32 lower-case hex digits: 72
// bytes, millions of them. The index and the objects hold such a key as
// its prefix's number in a table of prefixes and the hash's 16 raw bytes,
// 19 bytes in all (packedLen), and spell it again only when a key leaves
// the pool (List, snapshots, the metadata shard). A key of another form
// stays as it is.
//
// The forms, which never collide:
//   - packed: 0x00, the prefix's number (1 to maxPrefixes, big-endian
//     in two bytes), the hash's 16 bytes;
//   - a key that starts with 0x00: 0x00 0x00 0x00 and the key;
//   - any other key: the key itself.
//
// A key's form depends only on whether its prefix is in the table, and the
// table only grows, so a key is packed the same way for its whole stay: a
// put packs it when its prefix is known or the table has room for it; a
// lookup packs it when its prefix is known (else no packed key of that
// prefix exists). Once the table is full, keys of new prefixes stay as they
// are.
const (
	hashDigits  = 32 // the hex digits of a packable key's hash
	hashBytes   = 16 // the same hash, raw
	packedLen   = 3 + hashBytes
	maxPrefixes = 4096
)

var _ pool.KeyCopier = (*Store)(nil)

// CopiesPutKeys states pool.KeyCopier: the store keeps its keys packed, or
// copied when they do not pack.
func (s *Store) CopiesPutKeys() {}

// keyPacker is a store's table of key prefixes. Lookups read a snapshot of
// it without a lock; adding a prefix copies the table under mu.
type keyPacker struct {
	mu    sync.Mutex
	table atomic.Pointer[prefixTable]
}

// prefixTable is one immutable version of the prefixes: number i+1 is
// names[i].
type prefixTable struct {
	ids   map[string]uint16
	names []string
}

// unhex is each byte's value as a lower-case hex digit, 0xff for a byte
// that is not one.
var unhex = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i, c := range hexDigits {
		t[c] = byte(i)
	}
	return t
}()

// decodeHash writes the 16 bytes that digits, 32 characters, spell into
// dst and reports whether they were all lower-case hex digits.
func decodeHash(dst []byte, digits string) bool {
	var bad byte
	for i := range hashBytes {
		hi, lo := unhex[digits[2*i]], unhex[digits[2*i+1]]
		bad |= hi | lo
		dst[i] = hi<<4 | lo
	}
	return bad&0xf0 == 0
}

const hexDigits = "0123456789abcdef"

// id is prefix's number, 0 when it has none; add gives it one if the table
// has room.
func (p *keyPacker) id(prefix string, add bool) uint16 {
	t := p.table.Load()
	if t != nil {
		if id, ok := t.ids[prefix]; ok || !add {
			return id
		}
	}
	if !add {
		return 0
	}
	return p.add(prefix)
}

// add numbers prefix, unless the table is full (0).
func (p *keyPacker) add(prefix string) uint16 {
	p.mu.Lock()
	defer p.mu.Unlock()
	old := p.table.Load()
	if old == nil {
		old = &prefixTable{}
	}
	if id, ok := old.ids[prefix]; ok {
		return id
	}
	if len(old.names) >= maxPrefixes {
		return 0
	}
	t := &prefixTable{ids: make(map[string]uint16, len(old.names)+1), names: append(old.names[:len(old.names):len(old.names)], strings.Clone(prefix))}
	for i, name := range t.names {
		t.ids[name] = uint16(i + 1)
	}
	p.table.Store(t)
	return uint16(len(t.names))
}

// prefixMemo is the last prefix a call numbered and its number (not 0).
// A call's keys mostly share one prefix, and comparing the next key's
// with it costs less than the table's map: in the whole-trace replay the
// map's lookups were a sixth of the engine goroutine's time in the pool.
// It lives for one call, whose keys its prefix points into.
type prefixMemo struct {
	prefix string
	id     uint16
}

// pack writes key's packed form into buf and reports whether key packs;
// add numbers a new prefix (a put) where a lookup does not. memo is the
// call's last prefix.
func (p *keyPacker) pack(buf *[packedLen]byte, key string, add bool, memo *prefixMemo) bool {
	if len(key) < hashDigits || !decodeHash(buf[3:], key[len(key)-hashDigits:]) {
		return false
	}
	prefix := key[:len(key)-hashDigits]
	id := memo.id
	if id == 0 || memo.prefix != prefix {
		if id = p.id(prefix, add); id != 0 {
			memo.prefix, memo.id = prefix, id
		}
	}
	buf[0], buf[1], buf[2] = 0, byte(id>>8), byte(id)
	return id != 0
}

// lookupKey is key's index form for a lookup, in buf when packed: no
// allocation but for a key that starts with 0x00. memo is the call's
// last prefix.
func (p *keyPacker) lookupKey(key string, buf *[packedLen]byte, memo *prefixMemo) string {
	switch {
	case p.pack(buf, key, false, memo):
		return unsafe.String(&buf[0], packedLen)
	case len(key) > 0 && key[0] == 0:
		return escapePrefix + key
	}
	return key
}

// escapePrefix goes before a key that starts with 0x00.
const escapePrefix = "\x00\x00\x00"

// appendKey appends the key whose index form is ikey to dst.
func (p *keyPacker) appendKey(dst []byte, ikey string) []byte {
	switch {
	case len(ikey) == 0 || ikey[0] != 0:
		return append(dst, ikey...)
	case len(ikey) == packedLen && (ikey[1] != 0 || ikey[2] != 0):
		id := int(ikey[1])<<8 | int(ikey[2])
		dst = append(dst, p.table.Load().names[id-1]...)
		for i := 3; i < packedLen; i++ {
			dst = append(dst, hexDigits[ikey[i]>>4], hexDigits[ikey[i]&15])
		}
		return dst
	default:
		return append(dst, ikey[len(escapePrefix):]...)
	}
}

// key is the key whose index form is ikey, in an allocation of its own
// when packed.
func (p *keyPacker) key(ikey string) string {
	if len(ikey) == 0 || ikey[0] != 0 {
		return ikey
	}
	b := p.appendKey(nil, ikey)
	return unsafe.String(unsafe.SliceData(b), len(b))
}
