package sweep

import (
	"runtime"
	"strconv"
	"testing"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/corpus"
)

// TestDocChunkingHoldsNoChunks: the sweep's whole-document chunking of a
// 100,000-document corpus (dataset.chunk, then the chunk index, docOf and
// the prompt's token counter the chunking step makes) allocates a few
// hundred bytes, not a chunk (96 bytes) or an index slot per document:
// the chunks are a view of the documents, indexed by the documents' own
// index (issue 27).
func TestDocChunkingHoldsNoChunks(t *testing.T) {
	const n = 100_000
	docs := make([]corpus.Document, n)
	for i := range docs {
		id := "doc" + strconv.Itoa(i)
		docs[i] = corpus.Document{ID: id, Title: "title " + id, Text: "text of " + id}
	}
	ds := &dataset{docs: docs, docByID: corpus.IndexDocs(docs)}
	ch := config.Chunking{Name: "doc", Strategy: "doc", Title: true}
	var chunks corpus.Chunks
	var byID *corpus.IDIndex
	var err error
	step := func() { // the chunking step of cellRunner.chunking
		if chunks, err = ds.chunk(t.Context(), ch); err == nil {
			byID = ds.chunkIndex(chunks)
			_ = corpus.DocOfIndex(chunks, byID)
		}
	}
	if allocs := testing.AllocsPerRun(10, step); allocs > 2 {
		t.Errorf("whole-document chunking of %d documents: %v allocations, want at most 2 (docOf's closure)", n, allocs)
	}
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		step()
	}
	runtime.ReadMemStats(&after)
	if got := (after.TotalAlloc - before.TotalAlloc) / 10; got > 1024 {
		t.Errorf("whole-document chunking of %d documents allocated %d bytes, want O(1) (a list of chunks is %d)", n, got, 96*n)
	}
	if byID != ds.docByID {
		t.Error("the chunk index is not the documents' index")
	}
	if chunks.Len() != n || !corpus.ChunksAreDocs(chunks, docs) {
		t.Fatalf("%d chunks, want the %d documents", chunks.Len(), n)
	}
	if c := chunks.At(n - 1); c.ID != docs[n-1].ID || c.DocID != c.ID || c.Text != docs[n-1].Text || !c.TitlePrepended {
		t.Errorf("last chunk %+v", c)
	}
}
