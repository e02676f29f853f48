package diagnose

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ragbench/ragbench/internal/jsonkey"
	"github.com/ragbench/ragbench/internal/srcpos"
)

// Verdict is one graded answer: whether the RAG answer to query QueryID was
// correct. Line is its 1-based line in the answers file (0 when not read
// from a file).
type Verdict struct {
	QueryID string
	Correct bool
	Line    int
}

// VerdictError is a bad line of an answers file: File:Line: Field: Msg.
// Line is 0 for errors about the whole file (e.g. an empty file). It is
// ragbench's one position error, srcpos.Error.
type VerdictError = srcpos.Error

// ReadVerdicts reads an answers file: JSONL, one object per line with a
// string "qid" and a boolean "correct", e.g. {"qid": "q000", "correct":
// true}. Other keys (the answer text, the judge's rationale) are ignored.
// Blank lines are skipped; a UTF-8 BOM and CRLF line ends are accepted.
//
// Errors (*VerdictError naming file, line and field): a line that is not a
// JSON object, a missing or empty "qid", a "qid" that is not a string, a
// missing "correct" or one that is not true/false (strings such as "yes"
// and numbers are refused, not guessed), a key repeated within one object,
// a query id given twice (both lines named), and a file without any verdict.
func ReadVerdicts(path string) ([]Verdict, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseVerdicts(f, path)
}

// ParseVerdicts is ReadVerdicts on an open reader; name is the file name
// used in errors.
func ParseVerdicts(r io.Reader, name string) ([]Verdict, error) {
	br := bufio.NewReader(r)
	var out []Verdict
	first := map[string]int{} // query id → line of its verdict
	for line := 1; ; line++ {
		raw, err := br.ReadBytes('\n')
		if len(raw) == 0 && err != nil {
			if err == io.EOF {
				break
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if line == 1 {
			raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
		}
		text := bytes.TrimSpace(raw)
		if len(text) > 0 {
			v, verr := parseVerdict(text)
			if verr != nil {
				verr.File, verr.Line = name, line
				return nil, verr
			}
			if prev, dup := first[v.QueryID]; dup {
				return nil, &VerdictError{File: name, Line: line, Field: "qid",
					Msg: fmt.Sprintf("duplicate verdict for query %q (first on line %d)", v.QueryID, prev)}
			}
			first[v.QueryID] = line
			v.Line = line
			out = append(out, v)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	if len(out) == 0 {
		return nil, &VerdictError{File: name, Msg: `no verdicts (empty answers file); want one JSON object per line, e.g. {"qid": "q000", "correct": true}`}
	}
	return out, nil
}

func parseVerdict(text []byte) (Verdict, *VerdictError) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(text, &obj); err != nil || obj == nil {
		msg := "not a JSON object"
		var se *json.SyntaxError
		if errors.As(err, &se) {
			msg += fmt.Sprintf(" (%v at byte %d)", se, se.Offset)
		}
		return Verdict{}, &VerdictError{Msg: msg + `; want {"qid": "...", "correct": true|false}`}
	}
	if key := jsonkey.Repeated(text, false); key != "" {
		return Verdict{}, &VerdictError{Field: key, Msg: "key given twice in one object (which value is meant is ambiguous)"}
	}
	var v Verdict
	rawID, ok := obj["qid"]
	if !ok {
		return v, &VerdictError{Field: "qid", Msg: "missing"}
	}
	if off := jsonkey.Rewritten(rawID); off >= 0 {
		// encoding/json would read U+FFFD there: the id would no longer
		// match the same id in the run (TREC ids are bytes).
		return v, &VerdictError{Field: "qid", Msg: fmt.Sprintf("%s: invalid UTF-8 or a lone \\u surrogate, which JSON decoding would replace by U+FFFD", clipJSON(rawID))}
	}
	if err := json.Unmarshal(rawID, &v.QueryID); err != nil {
		return v, &VerdictError{Field: "qid", Msg: fmt.Sprintf("want a string, got %s", rawID)}
	}
	if strings.TrimSpace(v.QueryID) == "" {
		return v, &VerdictError{Field: "qid", Msg: "empty"}
	}
	rawC, ok := obj["correct"]
	if !ok {
		return v, &VerdictError{Field: "correct", Msg: fmt.Sprintf("missing for query %q", v.QueryID)}
	}
	switch string(rawC) {
	case "true":
		v.Correct = true
	case "false":
		v.Correct = false
	default:
		return v, &VerdictError{Field: "correct", Msg: fmt.Sprintf("query %q: want true or false, got %s", v.QueryID, rawC)}
	}
	return v, nil
}

// clipJSON shortens a JSON value for an error message, quoting its bytes.
func clipJSON(raw []byte) string {
	if len(raw) > 40 {
		raw = raw[:40]
	}
	return fmt.Sprintf("%q", raw)
}
