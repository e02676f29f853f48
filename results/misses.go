package results

import (
	"bytes"
	"encoding/json"
)

// Miss is one misses.jsonl row: an answerable query whose gold ids are not
// all in a cell's top prompt_k, with what came back instead.
type Miss struct {
	MissQuery
	Missing  []Gold   `json:"missing"`
	Returned []Hit    `json:"returned"`
	Found    []string `json:"found,omitempty"` // gold ids that were in the top k
}

// MissQuery is the head of every misses.jsonl row, document (Miss) or
// span (SpanMiss): the cell, the query with its text, slice and split, and
// the k the miss is at (prompt_k).
type MissQuery struct {
	Cell    string `json:"cell"`
	QueryID string `json:"query_id"`
	Query   string `json:"query"`
	Slice   string `json:"slice,omitempty"`
	HeldOut bool   `json:"held_out"`
	K       int    `json:"k"`
}

// Gold is a relevant id missing from the top k, with its rank further down
// (0 when not retrieved at all within the run's depth).
type Gold struct {
	ID      string `json:"id"`
	Grade   int    `json:"grade"`
	Rank    int    `json:"rank"`
	Snippet string `json:"snippet"`
	// Marks highlight the words of the snippet carrying query terms.
	Marks []Mark `json:"marks,omitempty"`
	// Diagnosis is why it was missed (docs/misses.md).
	Diagnosis *Diagnosis `json:"diagnosis,omitempty"`
}

// SpanMiss is one misses.jsonl row of span labels: a gold span no chunk of
// a cell's top prompt_k covers, with its text and what came back instead.
type SpanMiss struct {
	MissQuery
	Doc      string `json:"doc"`
	Start    int    `json:"start"` // code points, [start, end)
	End      int    `json:"end"`
	Text     string `json:"text"`
	Returned []Hit  `json:"returned"` // Relevant: the chunk covers a gold span of the query
	// TextMarks highlight the words of Text carrying query terms.
	TextMarks []Mark `json:"text_marks,omitempty"`
	// Diagnosis is why the passage was missed (docs/misses.md).
	Diagnosis *Diagnosis `json:"diagnosis,omitempty"`
}

// MissesJSONL is misses.jsonl: every cell's misses (CellResult.Misses,
// or SpanMisses with span labels), cell by cell in Results order, one JSON
// object per line, HTML characters as they are.
func MissesJSONL(res *Results) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, c := range res.Cells {
		for _, m := range c.SpanMisses {
			enc.Encode(m) // plain values: cannot fail
		}
		for _, m := range c.Misses {
			enc.Encode(m)
		}
	}
	return buf.Bytes()
}
