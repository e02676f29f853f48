package corpus

import (
	"fmt"
	"reflect"
	"runtime"
	"strconv"
	"testing"
)

// chunkSlice is Spec.Chunk's result as a slice, for tests that index it.
func chunkSlice(c Chunks, err error) ([]Chunk, error) { return c.Slice(), err }

// wholeList is whole-document chunking as Spec.Chunk made it before the
// view (a list of chunks, one per document).
func wholeList(docs []Document, title bool) []Chunk {
	out := make([]Chunk, 0, len(docs))
	for _, d := range docs {
		out = append(out, Chunk{ID: d.ID, DocID: d.ID, Start: 0, End: len(d.Text),
			Title: d.Title, Text: d.Text, TitlePrepended: title})
	}
	return out
}

// TestDocChunksEqualList: the whole-document view's Len, At, ID, All and
// Slice give the list Spec.Chunk made before, titles on and off, and
// ChunksAreDocs holds for the view and for that list.
func TestDocChunksEqualList(t *testing.T) {
	docs := []Document{{ID: "a", Title: "Alpha", Text: "first text"}, {ID: "b", Text: "second"},
		{ID: "c", Title: "Gamma"}, {ID: "d#0", Title: "", Text: "  spaced  "}}
	for _, title := range []bool{false, true} {
		want := wholeList(docs, title)
		got, err := Spec{Strategy: Whole, Title: title}.Chunk(docs)
		if err != nil {
			t.Fatal(err)
		}
		if got.Len() != len(want) {
			t.Fatalf("title %v: Len %d, want %d", title, got.Len(), len(want))
		}
		for i := range want {
			if c := got.At(i); c != want[i] || got.ID(i) != want[i].ID {
				t.Errorf("title %v: At(%d) = %+v, want %+v", title, i, c, want[i])
			}
		}
		n := 0
		for i, c := range got.All() {
			if i != n || c != want[i] {
				t.Errorf("title %v: All yields %d %+v, want %d %+v", title, i, c, n, want[n])
			}
			n++
		}
		if n != len(want) {
			t.Errorf("title %v: All yields %d chunks, want %d", title, n, len(want))
		}
		if !reflect.DeepEqual(got.Slice(), want) {
			t.Errorf("title %v: Slice = %+v, want %+v", title, got.Slice(), want)
		}
		ix, err := Spec{Strategy: Whole, Title: title}.ChunkIndexed(t.Context(), docs, IndexDocs(docs))
		if err != nil || !reflect.DeepEqual(ix.Slice(), want) {
			t.Errorf("title %v: ChunkIndexed = %+v, %v", title, ix.Slice(), err)
		}
		if !ChunksAreDocs(got, docs) || !ChunksAreDocs(ChunkList(want), docs) || !got.IsDocs(docs) {
			t.Errorf("title %v: ChunksAreDocs false for whole documents", title)
		}
		if ChunksAreDocs(ChunkList(want[1:]), docs) || ChunksAreDocs(got, docs[1:]) {
			t.Errorf("title %v: ChunksAreDocs true for other documents", title)
		}
	}
	var zero Chunks
	if zero.Len() != 0 || len(zero.Slice()) != 0 {
		t.Error("the zero Chunks is not empty")
	}
	for range zero.All() {
		t.Error("the zero Chunks yields a chunk")
	}
	list := ChunkList([]Chunk{{ID: "x#0", DocID: "x"}, {ID: "x#1", DocID: "x", Index: 1}})
	if list.Len() != 2 || list.At(1).Index != 1 || list.ID(0) != "x#0" {
		t.Errorf("ChunkList: %+v", list.Slice())
	}
	if i, ok := IndexChunks(list).Get("x#1"); !ok || i != 1 {
		t.Errorf("IndexChunks: x#1 at %d, %v", i, ok)
	}
}

// TestChunkDuplicateIDs: every strategy still refuses two documents with
// one id, with the same message, with or without an index (an index that
// does not count every document is not trusted).
func TestChunkDuplicateIDs(t *testing.T) {
	docs := []Document{{ID: "a", Text: "x"}, {ID: "b", Text: "y"}, {ID: "a", Text: "z"}}
	for _, s := range []Spec{{Strategy: Whole}, {Strategy: Whole, Title: true}, {Strategy: Fixed, Size: 2}} {
		want := fmt.Sprintf("chunking %s: duplicate doc id %q", s.Name(), "a")
		for _, byID := range []*IDIndex{nil, IndexDocs(docs)} {
			if _, err := s.ChunkIndexed(t.Context(), docs, byID); err == nil || err.Error() != want {
				t.Errorf("%s: error %v, want %q", s.Key(), err, want)
			}
		}
	}
}

// synthDocs are n documents with distinct ids and short texts.
func synthDocs(n int) []Document {
	docs := make([]Document, n)
	for i := range docs {
		id := "doc" + strconv.Itoa(i)
		docs[i] = Document{ID: id, Title: "title " + id, Text: "text of " + id}
	}
	return docs
}

// TestDocChunksAllocateNothingPerDocument: whole-document chunking of
// 100,000 documents that come with their index allocates a few bytes, not
// a chunk (96 bytes) per document as the list did; without the index only
// the duplicate check's IDIndex (at most 11 bytes per document, freed on
// return); reading every chunk through All allocates nothing.
func TestDocChunksAllocateNothingPerDocument(t *testing.T) {
	const n = 100_000
	docs := synthDocs(n)
	byID := IndexDocs(docs)
	spec := Spec{Strategy: Whole, Title: true}
	measure := func(f func()) uint64 {
		var a, b runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&a)
		f()
		runtime.ReadMemStats(&b)
		return b.TotalAlloc - a.TotalAlloc
	}
	var chunks Chunks
	var err error
	if got := measure(func() { chunks, err = spec.ChunkIndexed(t.Context(), docs, byID) }); err != nil || got > 1024 {
		t.Errorf("ChunkIndexed of %d documents allocated %d bytes (%v), want O(1)", n, got, err)
	}
	if chunks.Len() != n {
		t.Fatalf("Len %d, want %d", chunks.Len(), n)
	}
	if got := measure(func() { _, err = spec.Chunk(docs) }); err != nil || got > 12*n {
		t.Errorf("Chunk of %d documents allocated %d bytes (%v), want at most 12 per document", n, got, err)
	}
	total := 0
	if got := testing.AllocsPerRun(3, func() {
		for _, c := range chunks.All() {
			total += c.End
		}
	}); got != 0 {
		t.Errorf("All over the view: %v allocations, want 0", got)
	}
}

// BenchmarkChunkWhole measures Spec.Chunk for whole documents on 100,000
// documents (B/op: what it holds beside the documents), with and without
// their index.
func BenchmarkChunkWhole(b *testing.B) {
	docs := synthDocs(100_000)
	byID := IndexDocs(docs)
	spec := Spec{Strategy: Whole, Title: true}
	b.Run("indexed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := spec.ChunkIndexed(b.Context(), docs, byID); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("unindexed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := spec.Chunk(docs); err != nil {
				b.Fatal(err)
			}
		}
	})
}
