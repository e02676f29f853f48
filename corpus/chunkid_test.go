package corpus

import "testing"

// TestParseChunkID: the ids Spec.Chunk makes parse back to their document
// and index (a '#' inside a doc id included); others do not.
func TestParseChunkID(t *testing.T) {
	docs := []Document{{ID: "a#b", Text: "one two three four five six seven"}, {ID: "d1", Text: "x y z w v u t s"}}
	chunks, err := chunkSlice(Spec{Strategy: Fixed, Size: 3, Overlap: 0}.Chunk(docs))
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, c := range chunks {
		doc, i, ok := ParseChunkID(c.ID)
		if !ok || doc != c.DocID || i != c.Index {
			t.Errorf("ParseChunkID(%q) = %q, %d, %v; want %q, %d", c.ID, doc, i, ok, c.DocID, c.Index)
		}
		seen++
	}
	if seen < 4 {
		t.Fatalf("%d chunks: the test needs several per document", seen)
	}
	for _, id := range []string{"d1", "#3", "d1#", "d1#x", "d1#3a"} {
		if doc, i, ok := ParseChunkID(id); ok {
			t.Errorf("ParseChunkID(%q) = %q, %d, true; want not a chunk id", id, doc, i)
		}
	}
}
