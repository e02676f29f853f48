// Package hashkey makes the content keys of ragbench's caches and hashes:
// the sha256 of bytes, or of a value's JSON (encoding/json's, map keys
// sorted), in lowercase hex. A key changes when, and only when, the bytes
// or the value's JSON change; the run cache, the engine indexes, the dense
// index cache and the config hash are such keys.
package hashkey

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
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
