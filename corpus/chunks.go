package corpus

import "iter"

// Chunks is a chunking's chunks in order: either a list of chunks held in
// memory (ChunkList: every strategy but "document", a pipeline's own
// passages, tests) or a view of whole documents (DocChunks: the
// "document" strategy), where chunk i is made from docs[i] when it is
// asked for, exactly as a list would hold it (ID = DocID = the doc id,
// Index 0, Start 0, End len(Text), the document's Title and Text,
// TitlePrepended as the Spec's Title). The view holds no memory per chunk:
// a corpus of 3 million documents does not need a second list of 96-byte
// chunks beside its documents (issue 27). Chunk texts are the documents'
// strings (never copied), either way.
//
// A Chunks is a small value (a slice header and two flags) meant to be
// passed by value; it does not copy the list or the documents, so they
// must not change while it is in use. The zero Chunks is empty. Reads are
// safe from several goroutines.
type Chunks struct {
	list  []Chunk    // the chunks, when not a view
	docs  []Document // the documents, when a view
	view  bool       // chunk i is made from docs[i]
	title bool       // the view's TitlePrepended
}

// ChunkList is the Chunks holding list (not copied: list must not change
// while the Chunks is in use).
func ChunkList(list []Chunk) Chunks { return Chunks{list: list} }

// DocChunks is the whole-document view of docs: chunk i is docs[i] as one
// chunk whose IndexText starts with the title when title is set (what
// Spec{Strategy: Whole, Title: title}.Chunk makes). It neither copies docs
// nor checks their ids (Spec.Chunk refuses duplicates); docs must not
// change while the Chunks is in use.
func DocChunks(docs []Document, title bool) Chunks {
	return Chunks{docs: docs, view: true, title: title}
}

// Len is the number of chunks.
func (c Chunks) Len() int {
	if c.view {
		return len(c.docs)
	}
	return len(c.list)
}

// At is chunk i (0 ≤ i < Len; another i panics as a slice index does).
// For the view it is made from docs[i], without allocating.
func (c Chunks) At(i int) Chunk {
	if c.view {
		d := &c.docs[i]
		return Chunk{ID: d.ID, DocID: d.ID, Start: 0, End: len(d.Text),
			Title: d.Title, Text: d.Text, TitlePrepended: c.title}
	}
	return c.list[i]
}

// ID is chunk i's id (At(i).ID without making the chunk), for an IDIndex
// over the chunks (IndexChunks).
func (c Chunks) ID(i int) string {
	if c.view {
		return c.docs[i].ID
	}
	return c.list[i].ID
}

// All yields every chunk with its position, in order (At(0), At(1), …).
func (c Chunks) All() iter.Seq2[int, Chunk] {
	return func(yield func(int, Chunk) bool) {
		for i := range c.Len() {
			if !yield(i, c.At(i)) {
				return
			}
		}
	}
}

// Stream yields every chunk in order with a nil error: the iterator the
// retrievers' streaming builders take (bm25.Build, dense.Build), ranged
// over as often as they need, without a list of the chunks.
func (c Chunks) Stream() iter.Seq2[Chunk, error] {
	return func(yield func(Chunk, error) bool) {
		for i := range c.Len() {
			if !yield(c.At(i), nil) {
				return
			}
		}
	}
}

// Slice returns the chunks as a slice. A list's slice is returned as it is
// (not copied: do not modify it); a view is materialised, allocating
// Len() chunks of 96 bytes, which is what the view exists to avoid: call
// it only where a slice is truly needed, never on a run's whole corpus.
func (c Chunks) Slice() []Chunk {
	if !c.view {
		return c.list
	}
	out := make([]Chunk, len(c.docs))
	for i := range out {
		out[i] = c.At(i)
	}
	return out
}

// IsDocs reports whether c is the whole-document view of exactly docs (the
// same slice): then chunk i is docs[i], and an index of the documents by
// id is one of the chunks. It costs O(1); ChunksAreDocs answers for lists
// too.
func (c Chunks) IsDocs(docs []Document) bool {
	return c.view && len(c.docs) == len(docs) && (len(docs) == 0 || &c.docs[0] == &docs[0])
}

// IndexChunks is an IDIndex of chunks' positions by chunk id (IndexIDs
// over c.ID); when an id repeats, Get finds its first position.
func IndexChunks(c Chunks) *IDIndex { return IndexIDs(c.Len(), c.ID) }

// Same reports whether c and o read the same chunks from the same memory
// (the same list, or views of the same documents with the same Title):
// an O(1) identity for caches kept per chunking. Two empty Chunks are the
// same.
func (c Chunks) Same(o Chunks) bool {
	if c.Len() != o.Len() {
		return false
	}
	if c.Len() == 0 {
		return true
	}
	if c.view || o.view {
		return c.view && o.view && c.title == o.title && &c.docs[0] == &o.docs[0]
	}
	return &c.list[0] == &o.list[0]
}

// Passages is a passage lookup over c indexed by byID (IndexChunks, or
// the documents' index for the whole-document view): a chunk id's
// IndexText, made when asked for, "" for an id not in c. What a reranker
// and its truncation count score, without a map of every chunk's text.
func (c Chunks) Passages(byID *IDIndex) func(id string) string {
	return func(id string) string {
		if i, ok := byID.Get(id); ok {
			return c.At(i).IndexText()
		}
		return ""
	}
}
