package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// ReadQrels reads relevance judgements from path and returns them with any
// per-query metadata (query text and slice; entries exist only for JSONL
// input). Gzip content is decompressed (".gz" suffix or magic bytes).
// UTF-8 with or without BOM, LF or CRLF. The format is recognised from the
// content:
//
//   - TREC qrels: "qid iter docid grade" separated by white space; iter is
//     ignored; grade is an integer (≤ 0 non-relevant, < 0 "in pool but not
//     judged" as trec_eval).
//   - BEIR qrels TSV: a header line "query-id<TAB>corpus-id<TAB>score", then
//     one judgement per line with an integer score.
//   - Labelled-query JSONL, one query per line, in either shape:
//     {"id":..,"question":..,"gold":["p-1","p-2"],"kind":..} (binary: each
//     gold id gets grade 1) or {"qid":..,"text":..,"gold":{"c1":2},"slice":..}
//     (graded). An empty gold list or object keeps the query in the Qrels
//     with an empty, non-nil map: the query is unanswerable. Keys match
//     exactly ("Gold" is an error naming it); other keys are ignored;
//     "kind"/"slice" and "question"/"text" given together must agree; an
//     id is a string or an integer literal of any length, kept as written.
//   - ranx qrels JSON: one object {"q1": {"d1": 2}, "q2": {}} (integer
//     grades; an empty object is an unanswerable query), told from JSONL by
//     being a single object whose values are all objects.
//
// Comments are skipped as trec_eval 10 skips them: a TREC qrels line whose
// first byte is '#' (see isQrelsComment). Ids are kept exactly: TREC and
// BEIR ids are bytes, whatever their encoding (as in trec_eval); JSON and
// JSONL text must be valid UTF-8 without lone \u surrogate escapes, which
// encoding/json would rewrite to U+FFFD (an error naming the line). Grades
// are any integer that fits in an int: the gain computations are linear in
// the number of judgements, not in the largest grade.
//
// Errors are *SyntaxError values naming file, line and field: malformed
// lines, non-integer grades, invalid UTF-8 in JSON, a (query, doc) pair judged twice, a query id
// given twice in JSONL, a JSONL line holding a repeated key, more than one
// object, or "id" and "qid" that disagree, or a file with no judgement at all.
func ReadQrels(path string) (Qrels, map[string]QueryMeta, error) {
	q, meta, _, err := ReadQrelsLines(path)
	return q, meta, err
}

// Judgement is one (query id, doc id) pair of a qrels file.
type Judgement struct {
	Query, Doc string
}

// ReadQrelsLines is ReadQrels that also returns the 1-based line of each
// judgement in the file, so callers that check judgements against other
// data (bench run checks gold ids against the corpus) name the line
// without parsing the file a second time: the line of the TREC or BEIR
// line for text qrels, the query's line for labelled-query JSONL. ranx
// qrels JSON gives no lines (the map is empty: one object spans the file).
func ReadQrelsLines(path string) (Qrels, map[string]QueryMeta, map[Judgement]int, error) {
	rc, err := openMaybeGzip(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer rc.Close()
	lines := map[Judgement]int{}
	q, meta, err := parseQrels(rc, path, lines)
	if gerr := gzipErr(rc); gerr != nil {
		return nil, nil, nil, gerr
	}
	if err != nil {
		return nil, nil, nil, err
	}
	return q, meta, lines, nil
}

// ParseQrels is ReadQrels on an open reader; name is used in error messages.
func ParseQrels(r io.Reader, name string) (Qrels, map[string]QueryMeta, error) {
	return parseQrels(r, name, nil)
}

// parseQrels reads qrels of any format from r; lines, when not nil,
// receives each judgement's line (see ReadQrelsLines).
func parseQrels(r io.Reader, name string, lines map[Judgement]int) (Qrels, map[string]QueryMeta, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	if startsWithBrace(br) {
		data, err := io.ReadAll(br)
		if err != nil {
			return nil, nil, &SyntaxError{File: name, Msg: err.Error()}
		}
		if err := checkJSONText(data, name); err != nil {
			return nil, nil, err
		}
		if isRanxQrels(data) {
			return noMeta(parseQrelsRanx(data, name))
		}
		return parseQrelsJSONL(bytes.NewReader(data), name, lines)
	}
	return noMeta(parseQrelsText(br, name, lines))
}

// noMeta completes the result of a qrels reader whose format carries no
// query metadata: an empty map, or nil with an error.
func noMeta(q Qrels, err error) (Qrels, map[string]QueryMeta, error) {
	if err != nil {
		return nil, nil, err
	}
	return q, map[string]QueryMeta{}, nil
}

func parseQrelsText(r io.Reader, name string, lines map[Judgement]int) (Qrels, error) {
	s := newLineScanner(r, name)
	qrels := Qrels{}
	beir := false
	n := 0
	for s.Scan() {
		line := s.Bytes()
		if len(bytes.TrimSpace(line)) == 0 || !beir && isQrelsComment(line) {
			continue
		}
		var qid, did, grade string
		if s.line == 1 || (n == 0 && !beir) {
			if f := strings.Split(string(line), "\t"); len(f) == 3 && strings.TrimSpace(f[0]) == "query-id" {
				beir = true
				if strings.TrimSpace(f[1]) != "corpus-id" || strings.TrimSpace(f[2]) != "score" {
					return nil, s.errf("header", "BEIR qrels header must be \"query-id\\tcorpus-id\\tscore\", got %q", line)
				}
				continue
			}
		}
		if beir {
			f := strings.Split(string(line), "\t")
			if len(f) != 3 {
				return nil, s.errf("line", "BEIR qrels line needs 3 tab-separated fields (query-id, corpus-id, score), got %d", len(f))
			}
			qid, did, grade = strings.TrimSpace(f[0]), strings.TrimSpace(f[1]), strings.TrimSpace(f[2])
		} else {
			f := strings.FieldsFunc(string(line), isTrecSpace)
			if len(f) != 4 {
				hint := ""
				switch {
				case len(f) == 6 && f[1] == "Q0":
					hint = " (this looks like a run line: give QRELS first, then RUN)"
				case len(f) == 3 && len(strings.Split(string(line), "\t")) == 3:
					hint = " (this looks like a BEIR qrels TSV without its header line: add \"query-id\\tcorpus-id\\tscore\" as the first line)"
				}
				return nil, s.errf("line", "TREC qrels line needs 4 fields (qid iter docid grade), got %d%s", len(f), hint)
			}
			qid, did, grade = f[0], f[2], f[3]
		}
		if qid == "" {
			return nil, s.errf("query id", "empty")
		}
		if did == "" {
			return nil, s.errf("doc id", "empty")
		}
		g, err := strconv.Atoi(grade)
		if err != nil {
			field := "grade"
			if beir {
				field = "score"
			}
			return nil, s.errf(field, "not an integer: %q", grade)
		}
		m := qrels[qid]
		if m == nil {
			m = map[string]int{}
			qrels[qid] = m
		}
		if _, dup := m[did]; dup {
			return nil, s.errf("doc id", "query %q judges doc %q twice", qid, did)
		}
		m[did] = g
		if lines != nil {
			lines[Judgement{qid, did}] = s.line
		}
		n++
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, &SyntaxError{File: name, Msg: "no judgements found (empty qrels file)"}
	}
	return qrels, nil
}

// isRanxQrels reports whether data is one JSON object whose values are all
// objects — ranx's qrels {"q1": {"d1": 1}} — rather than labelled-query
// JSONL (one object per line with "id"/"qid" and "gold").
func isRanxQrels(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
	var obj map[string]json.RawMessage
	if dec.Decode(&obj) != nil || len(obj) == 0 {
		return false
	}
	if _, err := dec.Token(); err != io.EOF {
		return false
	}
	for k, v := range obj {
		if len(v) == 0 || v[0] != '{' || slices.Contains(jsonlKeys, k) {
			return false
		}
	}
	return true
}

// parseQrelsRanx reads ranx-style qrels {"q1": {"d1": 2, "d2": 0}, ...}:
// integer grades; a query with an empty object is unanswerable.
func parseQrelsRanx(data []byte, name string) (Qrels, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	fail := func(field, format string, a ...any) (Qrels, error) {
		off := min(dec.InputOffset(), int64(len(data)))
		return nil, &SyntaxError{File: name, Line: 1 + bytes.Count(data[:off], []byte("\n")), Field: field, Msg: fmt.Sprintf(format, a...)}
	}
	if _, err := dec.Token(); err != nil { // '{', checked by isRanxQrels
		return fail("json", "%s", jsonSyntax(err))
	}
	qrels := Qrels{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fail("json", "%s", jsonSyntax(err))
		}
		qid := tok.(string)
		if _, dup := qrels[qid]; dup {
			return fail("query id", "query %q given twice", qid)
		}
		if qid == "" {
			return fail("query id", "empty")
		}
		if _, err := dec.Token(); err != nil { // '{'
			return fail("json", "%s", jsonSyntax(err))
		}
		m := map[string]int{}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return fail("json", "%s", jsonSyntax(err))
			}
			did := tok.(string)
			if did == "" {
				return fail("doc id", "query %q: empty doc id", qid)
			}
			tok, err = dec.Token()
			if err != nil {
				return fail("json", "%s", jsonSyntax(err))
			}
			num, isNum := tok.(json.Number)
			g, err := strconv.Atoi(string(num))
			if !isNum || err != nil {
				hint := ""
				if isNum {
					hint = " (scores like this are a ranx run's: give QRELS first, then RUN)"
				}
				return fail("grade", "query %q doc %q: grade must be an integer, got %v%s", qid, did, tok, hint)
			}
			if _, dup := m[did]; dup {
				return fail("doc id", "query %q judges doc %q twice", qid, did)
			}
			m[did] = g
		}
		if _, err := dec.Token(); err != nil { // '}'
			return fail("json", "%s", jsonSyntax(err))
		}
		qrels[qid] = m
	}
	return qrels, nil
}

// isQrelsComment reports whether a TREC qrels line is a comment: its first
// byte is '#', as trec_eval 10 get_qrels.c skips it (a '#' after leading
// white space is data there, and here). trec_eval's parse loop skips one
// comment line at a time, so that a second comment line in a row is read as
// data (or "Malformed line"); every such line is skipped here, as its
// line-counting loop does.
func isQrelsComment(line []byte) bool {
	return len(line) > 0 && line[0] == '#'
}

// qrelsLineHint explains a run line with too few fields that looks like a
// qrels line ("q1 0 d1 1", or BEIR's "query-id<TAB>corpus-id<TAB>score"
// header): the QRELS and RUN arguments were probably swapped.
func qrelsLineHint(line []byte, nf int) string {
	f := bytes.Fields(line)
	if nf == 4 && len(f) == 4 && string(f[1]) == "0" || nf == 3 && bytes.HasPrefix(line, []byte("query-id\t")) {
		return " (this looks like a qrels line: give QRELS first, then RUN)"
	}
	return ""
}
