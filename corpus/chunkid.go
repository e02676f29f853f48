package corpus

import (
	"strconv"
	"strings"
)

// ParseChunkID splits a chunk id of the form "docid#i" (Chunk.ID of every
// chunking but "document": see Spec.Chunk) into the document id and i. ok
// is false when id has no '#' after its first byte or what follows the last
// '#' is not a decimal integer (as strconv.Atoi reads it); a document id
// may itself contain '#'. Whether docid names a document of the corpus is
// the caller's question.
func ParseChunkID(id string) (docID string, index int, ok bool) {
	i := strings.LastIndexByte(id, '#')
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(id[i+1:])
	if err != nil {
		return "", 0, false
	}
	return id[:i], n, true
}
