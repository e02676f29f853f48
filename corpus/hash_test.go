package corpus

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

// TestHashIsLengthPrefixedSHA256: Hash is SHA-256 over each id, title and
// text preceded by its length (8 bytes, little-endian), computed here from
// its definition over texts longer than Hash's 64 KiB buffer, and hashing
// allocates a fixed number of times, not once per text (issue 27).
func TestHashIsLengthPrefixedSHA256(t *testing.T) {
	long := strings.Repeat("abcdefghij", 20_000) // 200,000 bytes
	docs := []Document{{ID: "d1", Title: "T", Text: long}, {ID: "d2", Text: ""}, {ID: "d3", Title: "é", Text: long[:65536]}}
	var all []byte
	for _, d := range docs {
		for _, s := range []string{d.ID, d.Title, d.Text} {
			all = binary.LittleEndian.AppendUint64(all, uint64(len(s)))
			all = append(all, s...)
		}
	}
	sum := sha256.Sum256(all)
	if got, want := Hash(docs), hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("Hash = %s, want %s", got, want)
	}
	many := make([]Document, 1000)
	for i := range many {
		many[i] = Document{ID: fmt.Sprint(i), Text: long[:1000+i]}
	}
	if a := testing.AllocsPerRun(3, func() { Hash(many) }); a > 10 {
		t.Fatalf("Hash of 1,000 documents allocates %.0f times, want a fixed few", a)
	}
}
