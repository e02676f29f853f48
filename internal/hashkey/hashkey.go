// Package hashkey makes the content keys of ragbench's caches and hashes:
// the sha256 of bytes, or of a value's JSON (encoding/json's, map keys
// sorted), in lowercase hex. A key changes when, and only when, the bytes
// or the value's JSON change; the run cache, the engine indexes, the dense
// index cache and the config hash are such keys.
package hashkey

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
)

// Hex is the sha256 of b: 64 lowercase hex digits.
func Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// JSON is v's JSON (json.Marshal). v must be a plain value that
// encoding/json can write (no channel, function, NaN or ±Inf): JSON panics
// otherwise, as a key of such a value is a bug, not an input error.
func JSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("hashkey: cannot marshal %T: %v", v, err))
	}
	return b
}

// Of is Hex(JSON(v)): the key of a value.
func Of(v any) string { return Hex(JSON(v)) }

// Fields is a running sha256 over strings, each written as its length (8
// bytes, little-endian) and then its bytes, so that no two lists of
// strings write the same bytes: the key of a corpus (corpus.Hash) and of
// an index's chunks (bm25). The strings go through one 64 KiB buffer:
// sha256's hash has no WriteString, and io.WriteString would copy every
// text onto the heap (a corpus's size in garbage, issue 27).
type Fields struct {
	h   hash.Hash
	n   [8]byte
	buf []byte
}

// NewFields is an empty Fields.
func NewFields() *Fields {
	return &Fields{h: sha256.New(), buf: make([]byte, 64<<10)}
}

// Put adds s.
func (f *Fields) Put(s string) {
	binary.LittleEndian.PutUint64(f.n[:], uint64(len(s)))
	f.h.Write(f.n[:])
	for len(s) > 0 {
		k := copy(f.buf, s)
		f.h.Write(f.buf[:k])
		s = s[k:]
	}
}

// Hex is the sha256 of what was put: 64 lowercase hex digits.
func (f *Fields) Hex() string { return hex.EncodeToString(f.h.Sum(nil)) }
