package eval

import (
	"bufio"
	"bytes"
	"io"

	"github.com/ragbench/ragbench/internal/jsonkey"
)

// ReadQueryTexts reads a BEIR queries.jsonl — one JSON object per line
// with the query id under "_id" (a non-empty string, or an integer literal
// kept as written) and its text under "text" (a string; absent is "") —
// and returns query id → text. Other keys (BEIR's "metadata", a slice
// field) are allowed. Blank lines are skipped; the file is opened as Open
// opens it (gzip), a UTF-8 byte order mark and CR line ends are dropped.
//
// The JSON rules are those of the qrels readers, so that an id read here
// matches the same id read there: text that JSON decoding would rewrite to
// U+FFFD (invalid UTF-8, a lone \u surrogate; jsonkey.Rewritten) is
// refused, as is a key given twice in one object (jsonkey.Repeated) and a
// query id given on two lines. Errors are *SyntaxError values naming file,
// line and field ("_id", "text" or "json").
func ReadQueryTexts(path string) (map[string]string, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseQueryTexts(f, path)
}

func parseQueryTexts(r io.Reader, name string) (map[string]string, error) {
	s := newLineScanner(bufio.NewReaderSize(r, 1<<16), name)
	out := map[string]string{}
	first := map[string]int{} // id → line, for a repeated id
	for s.Scan() {
		line := s.Bytes()
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			continue
		}
		obj, err := lineObject(s, line, `{"_id": …, "text": …}`)
		if err != nil {
			return nil, err
		}
		raw, ok := obj["_id"]
		if !ok {
			return nil, s.errf("_id", "missing (a BEIR queries.jsonl line is {\"_id\": …, \"text\": …})")
		}
		id, ok := jsonID(raw)
		if !ok {
			return nil, s.errf("_id", "must be a non-empty string or an integer, got %s", jsonkey.Clip(raw))
		}
		text, _, err := jsonString(s, obj, "text")
		if err != nil {
			return nil, err
		}
		if at, dup := first[id]; dup {
			return nil, s.errf("_id", "query %q given twice (first on line %d)", id, at)
		}
		first[id] = s.line
		out[id] = text
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	return out, nil
}
