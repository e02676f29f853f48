// Package corpus loads document collections (BEIR corpus.jsonl, plain JSONL
// or TSV of id, title, text) and cuts them into chunks.
package corpus

// Document is one corpus document.
type Document struct {
	ID    string
	Title string
	Text  string
}

// Chunk is a retrievable piece of a Document. ID is stable: "docid#i" for the
// i-th chunk (i from 0), or the doc id itself for whole-document chunking.
// Start and End are byte offsets of the chunk's text in Document.Text
// (RuneIndex converts them to code points; Spec.Chunk says when Text is not
// exactly Document.Text[Start:End]).
type Chunk struct {
	ID             string
	DocID          string
	Index          int
	Start, End     int
	Title          string // the document's title
	Text           string // the chunk's own text (without title)
	TitlePrepended bool   // whether IndexText() includes the title
}

// IndexText is the text a retriever indexes: title + " " + text when the
// title is prepended and non-empty, else the text alone.
func (c Chunk) IndexText() string {
	if c.TitlePrepended && c.Title != "" {
		if c.Text == "" {
			return c.Title
		}
		return c.Title + " " + c.Text
	}
	return c.Text
}
