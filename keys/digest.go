package keys

import (
	"encoding/hex"
	"fmt"

	"golang.org/x/crypto/blake2b"
)

// HashSize is the digest size of every key hash, in bytes.
const HashSize = 16

// Hash is one 16-byte BLAKE2b digest: a scope seed or a block hash.
type Hash [HashSize]byte

// String returns the hash as 32 lowercase hex characters.
func (h Hash) String() string {
	var b [2 * HashSize]byte
	hex.Encode(b[:], h[:])
	return string(b[:])
}

// MarshalText spells the hash as 32 lowercase hex characters.
func (h Hash) MarshalText() ([]byte, error) {
	b := make([]byte, 2*HashSize)
	hex.Encode(b, h[:])
	return b, nil
}

// UnmarshalText parses 32 hex characters.
func (h *Hash) UnmarshalText(b []byte) error {
	v, err := ParseHash(string(b))
	if err != nil {
		return err
	}
	*h = v
	return nil
}

// ParseHash parses a hash spelled as 32 hex characters.
func ParseHash(s string) (Hash, error) {
	var h Hash
	if len(s) != 2*HashSize {
		return h, fmt.Errorf("hash %q: want %d hex characters, got %d", s, 2*HashSize, len(s))
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, fmt.Errorf("hash %q: not hex", s)
	}
	return h, nil
}

// Digest returns the BLAKE2b digest (digest size 16, no key) of the parts
// concatenated with no separators.
func Digest(parts ...[]byte) Hash {
	d, err := blake2b.New(HashSize, nil)
	if err != nil {
		panic(err) // unreachable: 16 is a valid size and there is no key
	}
	for _, p := range parts {
		d.Write(p)
	}
	var h Hash
	d.Sum(h[:0])
	return h
}
