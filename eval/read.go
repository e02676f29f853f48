package eval

import (
	"encoding/json"
	"errors"
	"io"

	"github.com/ragbench/ragbench/internal/srcpos"
)

// SyntaxError reports bad input at a place in a file: File is the path (or
// the name given to a Parse function), Line is 1-based (0 when the error
// concerns the whole file), Field names the column or JSON key at fault.
// Its message reads "file:line: field: message" (line and field omitted
// when unknown). It is the one position error of ragbench's readers
// (srcpos.Error), so errors.As finds it whichever reader failed.
type SyntaxError = srcpos.Error

// QueryMeta is what a labelled-query JSONL file says about a query besides
// its judgements: Text is the query text ("question" or "text" key) and Slice
// its slice label ("kind" or "slice" key, e.g. "multi-hop",
// "unanswerable"). Both are "" when absent or when the qrels format carries
// no such information (TREC and BEIR qrels).
type QueryMeta struct {
	Text  string
	Slice string
}

// jsonSyntax words a JSON decoding error without Go type names.
func jsonSyntax(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return "invalid JSON: " + se.Error()
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "invalid JSON: unexpected end of line"
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return "invalid JSON: unexpected " + te.Value
	}
	return "invalid JSON"
}
