package eval

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ragbench/ragbench/internal/fileutil"
	"github.com/ragbench/ragbench/internal/jsonkey"
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

// RunInfo describes a run file as read by ReadRunInfo: Tag is the run tag
// (6th column of the first line of a TREC run; "" for JSON runs), Format is
// "trec" or "json", and Results counts the (query, doc) pairs read.
type RunInfo struct {
	Tag     string
	Format  string
	Results int
	// OtherTags counts the TREC result lines whose tag (6th column)
	// differs from the first line's; OtherTagLine is the first of them
	// (1-based) and OtherTag its tag. A differing tag usually means a line
	// cut short (its last field lost) or runs concatenated.
	OtherTags    int
	OtherTagLine int
	OtherTag     string
	// NoFinalNewline reports a TREC run whose last byte is not a line
	// feed: its last line (LastLine) may have been cut short.
	NoFinalNewline bool
	LastLine       int
}

// Warnings describes, in words, what is suspect about the run file (tags
// that differ from the first line's, no newline at the end); nil when
// nothing is.
func (i RunInfo) Warnings() []string {
	var w []string
	if i.OtherTags > 0 {
		w = append(w, fmt.Sprintf("%d run line%s with another tag than the first line's %q, e.g. line %d: %q (a line cut short, or runs concatenated?)", i.OtherTags, map[bool]string{true: "", false: "s"}[i.OtherTags == 1], i.Tag, i.OtherTagLine, i.OtherTag))
	}
	if i.NoFinalNewline {
		w = append(w, fmt.Sprintf("the run file does not end in a newline: its last line (%d) may be cut short", i.LastLine))
	}
	return w
}

// lastByteReader passes reads through, remembering the last byte read and
// the number of lines (line feeds, plus one for a last line without one).
type lastByteReader struct {
	r    io.Reader
	last byte
	n    int64
}

func (l *lastByteReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if n > 0 {
		l.last = p[n-1]
		l.n += int64(n)
	}
	return n, err
}

// openMaybeGzip opens path, transparently decompressing it when its name ends
// in ".gz" or its content starts with the gzip magic bytes 1f 8b (a gzip
// file without the extension: no text qrels or run starts with them, as
// 0x8b is not valid UTF-8 after 0x1f).
func openMaybeGzip(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, &SyntaxError{File: path, Msg: "is a directory, want a file"}
	}
	// The first two bytes are read, then put back in front of the rest
	// (no Seek: the path may be a pipe such as /dev/stdin).
	var magic [2]byte
	n, err := io.ReadFull(f, magic[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		f.Close()
		return nil, err
	}
	r := io.MultiReader(bytes.NewReader(magic[:n]), f)
	if !strings.HasSuffix(path, ".gz") && (n < 2 || magic != [2]byte{0x1f, 0x8b}) {
		return readCloser{r, f}, nil
	}
	zr, err := gzip.NewReader(r)
	if err != nil {
		f.Close()
		return nil, &SyntaxError{File: path, Msg: "not a gzip file: " + err.Error()}
	}
	return &gzipFile{zr: zr, f: f, path: path}, nil
}

// readCloser reads from Reader and closes Closer.
type readCloser struct {
	io.Reader
	io.Closer
}

// gzipFile is a decompressing reader that reports a gzip stream cut short
// (io.ErrUnexpectedEOF from compress/gzip: missing data or trailer) or
// failing its checksum as a *SyntaxError "corrupt gzip", so that callers
// reading to EOF (io.ReadFull, bufio.Scanner) never mistake a truncated file
// for a complete, shorter one. The first such error is kept in err.
type gzipFile struct {
	zr   *gzip.Reader
	f    *os.File
	path string
	err  error
}

func (g *gzipFile) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.zr.Read(p)
	if err != nil && err != io.EOF {
		g.err = &SyntaxError{File: g.path, Msg: "corrupt gzip: " + err.Error() + " (truncated or damaged file)"}
		err = g.err
	}
	return n, err
}

func (g *gzipFile) Close() error {
	err := g.zr.Close()
	if err2 := g.f.Close(); err == nil {
		err = err2
	}
	return err
}

// gzipErr returns the corruption error met while reading r, if r is a
// gzipFile that met one: it explains any parse error on the bytes read
// before it (a partial last line).
func gzipErr(r io.Reader) error {
	if g, ok := r.(*gzipFile); ok {
		return g.err
	}
	return nil
}

// lineScanner yields the lines of a text file without BOM, trailing CR or
// trailing spaces, counting line numbers. Lines may be up to 64 MiB long.
type lineScanner struct {
	sc   *bufio.Scanner
	line int
	name string
}

// maxLineBytes is the longest line a lineScanner reads: 64 MiB.
const maxLineBytes = 64 << 20

func newLineScanner(r io.Reader, name string) *lineScanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), maxLineBytes)
	return &lineScanner{sc: sc, name: name}
}

func (s *lineScanner) Scan() bool {
	return s.sc.Scan()
}

// Bytes returns the current line; it is valid until the next Scan.
func (s *lineScanner) Bytes() []byte {
	s.line++
	b := s.sc.Bytes()
	if s.line == 1 {
		b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	}
	return bytes.TrimRight(b, "\r")
}

func (s *lineScanner) Err() error {
	err := s.sc.Err()
	switch {
	case err == nil:
		return nil
	case errors.Is(err, bufio.ErrTooLong): // bufio's "token too long" names no limit
		return &SyntaxError{File: s.name, Line: s.line + 1, Msg: fmt.Sprintf("line longer than %d bytes (%d MiB), the longest line this reader takes", maxLineBytes, maxLineBytes>>20)}
	}
	return &SyntaxError{File: s.name, Line: s.line + 1, Msg: err.Error()}
}

func (s *lineScanner) errf(field, format string, a ...any) error {
	return &SyntaxError{File: s.name, Line: s.line, Field: field, Msg: fmt.Sprintf(format, a...)}
}

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

// clip shortens a JSON value for an error message.
func clip(raw []byte) string {
	if len(raw) > 40 {
		return string(raw[:37]) + "..."
	}
	return string(raw)
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

// ReadRun reads a run from path: a TREC run ("qid Q0 docid rank score tag",
// separated by C's white space as in trec_eval: space, \t, \v, \f, \r, at least 6 columns, extra columns ignored as
// trec_eval does; the rank column is ignored) or a ranx-style JSON object
// {"q1": {"d1": 0.9, ...}, ...}. Gzip content is decompressed (".gz" suffix
// or magic bytes); BOM and CRLF are accepted. Results keep file order (see
// Options.TieBreak).
//
// Comments are skipped as trec_eval 10 skips them: a TREC run line whose
// first byte after leading white space is '#'. In a ranx JSON run a query
// with an empty object {"q1": {}} is a query that retrieved nothing: it is
// kept with no results and scores 0 wherever it is judged, whether or not
// other queries are present (a TREC run cannot express it; a query missing
// from a TREC run scores the same under Options.CompleteQueries). Ids are
// kept exactly: TREC ids are the bytes between white space, whatever their
// encoding (as in trec_eval); JSON text must be valid UTF-8 without lone
// \u surrogate escapes, which encoding/json would rewrite to U+FFFD.
//
// Errors are *SyntaxError values naming file, line and field: malformed
// lines, a score that is not a finite number (NaN and ±Inf are rejected), a
// (query, doc) pair retrieved twice (an error, as in trec_eval), JSON that
// is not valid UTF-8, or a file with no result (TREC) or no query ({}).
func ReadRun(path string) (Run, error) {
	run, _, err := ReadRunInfo(path)
	return run, err
}

// ReadRunInfo is ReadRun that also returns the run tag and format, and what
// is suspect about a TREC run file (RunInfo.Warnings).
func ReadRunInfo(path string) (Run, RunInfo, error) {
	rc, err := openMaybeGzip(path)
	if err != nil {
		return nil, RunInfo{}, err
	}
	defer rc.Close()
	run, info, err := ParseRun(rc, path)
	if gerr := gzipErr(rc); gerr != nil {
		return nil, RunInfo{}, gerr
	}
	return run, info, err
}

// ParseRun is ReadRunInfo on an open reader; name is used in error messages.
func ParseRun(r io.Reader, name string) (Run, RunInfo, error) {
	lb := &lastByteReader{r: r}
	br := bufio.NewReaderSize(lb, 1<<16)
	if startsWithBrace(br) {
		return parseRunJSON(br, name)
	}
	run, info, err := parseRunTREC(br, name)
	if err == nil && lb.n > 0 && lb.last != '\n' {
		info.NoFinalNewline = true
	}
	return run, info, err
}

func parseRunTREC(r io.Reader, name string) (Run, RunInfo, error) {
	s := newLineScanner(r, name)
	run := Run{}
	info := RunInfo{Format: "trec"}
	// seen detects duplicate docs per query; reset when the query changes
	// and, for files that revisit a query, rebuilt lazily.
	seen := map[string]map[string]struct{}{}
	var sp [6]span
	for s.Scan() {
		line := s.Bytes()
		nf := splitFields(line, sp[:])
		if nf == 0 || isRunComment(line) {
			continue
		}
		if nf < 6 {
			return nil, info, s.errf("line", "TREC run line needs 6 fields (qid Q0 docid rank score tag), got %d%s", nf, qrelsLineHint(line, nf))
		}
		field := func(i int) []byte { return line[sp[i].start:sp[i].end] }
		sc, err := parseScore(field(4))
		if err != nil {
			return nil, info, s.errf("score", "not a number: %q", field(4))
		}
		if math.IsNaN(sc) || math.IsInf(sc, 0) {
			return nil, info, s.errf("score", "not finite: %q", field(4))
		}
		qid := string(field(0))
		did := string(field(2))
		if info.Results == 0 {
			info.Tag = string(field(5))
		} else if tag := field(5); string(tag) != info.Tag {
			if info.OtherTags == 0 {
				info.OtherTagLine, info.OtherTag = s.line, string(tag)
			}
			info.OtherTags++
		}
		info.LastLine = s.line
		set := seen[qid]
		if set == nil {
			set = map[string]struct{}{}
			seen[qid] = set
		}
		if _, dup := set[did]; dup {
			return nil, info, s.errf("doc id", "query %q retrieves doc %q twice (trec_eval rejects duplicate docs)", qid, did)
		}
		set[did] = struct{}{}
		run[qid] = append(run[qid], Result{DocID: did, Score: sc})
		info.Results++
	}
	if err := s.Err(); err != nil {
		return nil, info, err
	}
	if info.Results == 0 {
		return nil, info, &SyntaxError{File: name, Msg: "no results found (empty run file)"}
	}
	return run, info, nil
}

// span is the byte range [start, end) of a field within its line.
type span struct{ start, end int }

// splitFields finds the fields of line separated by trec_eval's white space
// (isTrecSpace: space, \t, \v, \f, \r; a line holds no \n), records
// the ranges of the first len(dst) of them, and returns how many fields the
// line has (counting past len(dst) only up to len(dst)+1). It looks for
// separators eight bytes at a time and writes no pointer.
func splitFields(line []byte, dst []span) int {
	n := 0
	start := 0 // start of the current field candidate
	i := 0
	for ; i+8 <= len(line); i += 8 {
		w := binary.LittleEndian.Uint64(line[i:])
		m := zeroBytes(w^(0x20*lsbs)) | zeroBytes(w^(0x09*lsbs)) | zeroBytes(w^(0x0b*lsbs)) |
			zeroBytes(w^(0x0c*lsbs)) | zeroBytes(w^(0x0d*lsbs))
		for m != 0 {
			p := i + bits.TrailingZeros64(m)/8
			if p > start {
				if n == len(dst) {
					return n + 1
				}
				dst[n] = span{start, p}
				n++
			}
			start = p + 1
			m &= m - 1
		}
	}
	for ; i < len(line); i++ {
		if isTrecSpace(rune(line[i])) {
			if i > start {
				if n == len(dst) {
					return n + 1
				}
				dst[n] = span{start, i}
				n++
			}
			start = i + 1
		}
	}
	if len(line) > start {
		if n == len(dst) {
			return n + 1
		}
		dst[n] = span{start, len(line)}
		n++
	}
	return n
}

// pow10 holds the powers of ten that are exact in float64.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseScore parses a run score exactly as strconv.ParseFloat(s, 64) does,
// except that digit-separating underscores ("1_000") are refused.
// Plain decimals with at most 15 significant digits and 22 decimals (what
// retrieval systems print) take a fast path that is still exact: the digits
// form an integer m < 2^53 and the value is m / 10^d, one correctly rounded
// IEEE division of two exact numbers (Clinger's fast path); anything else
// goes to strconv.
func parseScore(b []byte) (float64, error) {
	i := 0
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		i = 1
	}
	var m uint64
	sig, frac := 0, 0
	dot, digit := false, false
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			digit = true
			m = m*10 + uint64(c-'0')
			if m != 0 {
				sig++
			}
			if dot {
				frac++
			}
			if sig > 15 || frac > 22 {
				return parseFloatStrict(b)
			}
		case c == '.' && !dot:
			dot = true
		default:
			return parseFloatStrict(b)
		}
	}
	if !digit {
		return parseFloatStrict(b)
	}
	f := float64(m) / pow10[frac]
	if neg {
		f = -f
	}
	return f, nil
}

// parseFloatStrict is strconv.ParseFloat without Go's digit-separating
// underscores, which no run writer means and trec_eval reads differently.
func parseFloatStrict(b []byte) (float64, error) {
	if bytes.IndexByte(b, '_') >= 0 {
		return 0, &strconv.NumError{Func: "ParseFloat", Num: string(b), Err: strconv.ErrSyntax}
	}
	return strconv.ParseFloat(string(b), 64)
}

const lsbs = 0x0101010101010101

// zeroBytes returns a word with the high bit set exactly in the bytes of x
// that are zero.
func zeroBytes(x uint64) uint64 {
	const m = 0x7f7f7f7f7f7f7f7f
	t := (x & m) + m
	return ^(t | x | m)
}

func parseRunJSON(r io.Reader, name string) (Run, RunInfo, error) {
	info := RunInfo{Format: "json"}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, info, &SyntaxError{File: name, Msg: err.Error()}
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if err := checkJSONText(data, name); err != nil {
		return nil, info, err
	}
	lineOf := func(off int64) int {
		if off > int64(len(data)) {
			off = int64(len(data))
		}
		return 1 + bytes.Count(data[:off], []byte("\n"))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	fail := func(field, format string, a ...any) (Run, RunInfo, error) {
		return nil, info, &SyntaxError{File: name, Line: lineOf(dec.InputOffset()), Field: field, Msg: fmt.Sprintf(format, a...)}
	}
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return fail("json", "a ranx run must be an object {\"query id\": {\"doc id\": score}}")
	}
	run := Run{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fail("json", "%v", err)
		}
		qid := tok.(string)
		if _, dup := run[qid]; dup {
			return fail("query id", "query %q given twice", qid)
		}
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			return fail("query id", "query %q: value must be an object {\"doc id\": score}", qid)
		}
		res := []Result{}
		seen := map[string]struct{}{}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return fail("json", "%v", err)
			}
			did := tok.(string)
			tok, err = dec.Token()
			if err != nil {
				return fail("json", "%v", err)
			}
			num, ok := tok.(json.Number)
			if !ok {
				if str, isStr := tok.(string); isStr {
					return fail("score", "query %q doc %q: score is a string, not a number: %q", qid, did, str)
				}
				return fail("score", "query %q doc %q: score is not a number: %s", qid, did, jsonTokenText(tok))
			}
			sc, err := strconv.ParseFloat(num.String(), 64)
			if err != nil || math.IsInf(sc, 0) || math.IsNaN(sc) {
				return fail("score", "query %q doc %q: score not finite: %s", qid, did, num)
			}
			if _, dup := seen[did]; dup {
				return fail("doc id", "query %q retrieves doc %q twice", qid, did)
			}
			seen[did] = struct{}{}
			res = append(res, Result{DocID: did, Score: sc})
		}
		if _, err := dec.Token(); err != nil {
			return fail("json", "%v", err)
		}
		run[qid] = res
		info.Results += len(res)
	}
	if _, err := dec.Token(); err != nil {
		return fail("json", "%v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fail("json", "unexpected data after the run object")
	}
	if len(run) == 0 {
		return nil, info, &SyntaxError{File: name, Msg: "no query found (empty run {})"}
	}
	return run, info, nil
}

// CheckRunQueryID returns an error unless id can be the query field of a
// TREC run line and be read back unchanged: non-empty, without white space
// (isTrecSpace) and not starting with the '#' of a comment (trecID).
// WriteRunTREC applies it to every query; a caller that writes runs only
// after long work (the sweep) calls it on its query ids first.
func CheckRunQueryID(id string) error {
	if !trecID(id, true) {
		return fmt.Errorf("query id %q cannot be written in TREC format (empty, white space, or a leading '#' that trec_eval reads as a comment)", id)
	}
	return nil
}

// WriteRunTREC writes run in TREC format, one "qid Q0 docid rank score tag"
// line per result, queries in byte order of their ids and results in the
// order of Sort (score descending, ties by doc id descending; rank from 1).
// Scores are printed with the shortest representation that round-trips.
// tag must be non-empty and contain no white space.
func WriteRunTREC(w io.Writer, run Run, tag string) error {
	if tag == "" || strings.ContainsAny(tag, " \t\r\n") {
		return fmt.Errorf("run tag %q must be non-empty and contain no white space", tag)
	}
	bw := bufio.NewWriter(w)
	wrote := false // a line was written
	for _, qid := range sortedKeys(run) {
		if err := CheckRunQueryID(qid); err != nil {
			return err
		}
		if !wrote && len(run[qid]) > 0 && !trecFirstID(qid) {
			return fmt.Errorf("query id %q cannot be written first in a TREC run file (a leading '{' or byte order mark reads as JSON or is dropped)", qid)
		}
		wrote = wrote || len(run[qid]) > 0
		res := append([]Result(nil), run[qid]...)
		Sort(res, TieDocIDDesc)
		for i, r := range res {
			if !trecID(r.DocID, false) {
				return fmt.Errorf("doc id %q cannot be written in TREC format (empty or white space)", r.DocID)
			}
			if math.IsNaN(r.Score) || math.IsInf(r.Score, 0) {
				return fmt.Errorf("query %q doc %q: score %v not finite", qid, r.DocID, r.Score)
			}
			fmt.Fprintf(bw, "%s Q0 %s %d %s %s\n", qid, r.DocID, i+1, strconv.FormatFloat(r.Score, 'g', -1, 64), tag)
		}
	}
	return bw.Flush()
}

// WriteRunFile writes run in TREC format (as WriteRunTREC) to path
// atomically: to a temporary file in the same folder, renamed over path once
// complete, so a reader never sees a partial run. A ".gz" suffix compresses.
func WriteRunFile(path string, run Run, tag string) error {
	return writeAtomic(path, func(w io.Writer) error { return WriteRunTREC(w, run, tag) })
}

// WriteQrelsFile writes qrels in TREC format (as WriteQrelsTREC) to path
// atomically; see WriteRunFile. It returns the number of unanswerable
// queries skipped.
func WriteQrelsFile(path string, qrels Qrels) (skipped int, err error) {
	err = writeAtomic(path, func(w io.Writer) error {
		var e error
		skipped, e = WriteQrelsTREC(w, qrels)
		return e
	})
	return skipped, err
}

// writeAtomic streams write's output (gzip-compressed when path ends in
// ".gz") to a file that atomically replaces path once complete
// (fileutil.WriteStream: pending file beside path, fsync, rename; new files
// get mode 0644).
func writeAtomic(path string, write func(io.Writer) error) error {
	return fileutil.WriteStream(path, func(w io.Writer) error {
		if !strings.HasSuffix(path, ".gz") {
			return write(w)
		}
		zw := gzip.NewWriter(w)
		if err := write(zw); err != nil {
			return err
		}
		return zw.Close()
	})
}

// WriteQrelsTREC writes qrels in TREC format ("qid 0 docid grade"), queries
// and docs in byte order of their ids. Unanswerable queries (no judgement at
// all) cannot be represented in TREC qrels and are skipped; the number
// skipped is returned.
func WriteQrelsTREC(w io.Writer, qrels Qrels) (skipped int, err error) {
	bw := bufio.NewWriter(w)
	wrote := false // a line was written
	for _, qid := range sortedKeys(qrels) {
		m := qrels[qid]
		if len(m) == 0 {
			skipped++
			continue
		}
		if !trecID(qid, true) {
			return skipped, fmt.Errorf("query id %q cannot be written in TREC format (empty, white space, or a leading '#' that trec_eval reads as a comment)", qid)
		}
		if !wrote && !trecFirstID(qid) {
			return skipped, fmt.Errorf("query id %q cannot be written first in a TREC qrels file (a leading '{' or byte order mark reads as JSON or is dropped)", qid)
		}
		wrote = true
		for _, did := range sortedKeys(m) {
			if !trecID(did, false) {
				return skipped, fmt.Errorf("doc id %q cannot be written in TREC format (empty or white space)", did)
			}
			fmt.Fprintf(bw, "%s 0 %s %d\n", qid, did, m[did])
		}
	}
	return skipped, bw.Flush()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// startsWithBrace reports whether the first byte after an optional UTF-8 BOM
// and any white space (blank lines included, as far as br's buffer reaches)
// is '{': the content is JSON rather than TREC text. Nothing is consumed.
func startsWithBrace(br *bufio.Reader) bool {
	for n := 64; ; n *= 2 {
		n = min(n, br.Size())
		head, err := br.Peek(n)
		rest := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
		if len(rest) > 0 {
			return rest[0] == '{'
		}
		if err != nil || n == br.Size() {
			return false
		}
	}
}

// isTrecSpace reports whether c separates fields in TREC qrels and runs:
// C's isspace in the "C" locale, as trec_eval splits them (space, \t, \n,
// \v, \f, \r). Other bytes, such as those of U+00A0, belong to an id.
func isTrecSpace(c rune) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// trecID reports whether id can be written as a field of a TREC run or
// qrels line and read back unchanged: non-empty, without a field separator
// (isTrecSpace), and, as the line's first field (first), not starting
// with the '#' of a comment line.
func trecID(id string, first bool) bool {
	return id != "" && !strings.ContainsFunc(id, isTrecSpace) && !(first && id[0] == '#')
}

// trecFirstID reports whether id can start a TREC file and be read back as
// it is: the readers take a file starting with '{' for JSON, and drop a
// UTF-8 byte order mark at its start.
func trecFirstID(id string) bool {
	return !strings.HasPrefix(id, "{") && !strings.HasPrefix(id, "\xef\xbb\xbf")
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

// isRunComment reports whether a TREC run line is a comment: its first byte
// after leading white space is '#', as trec_eval 10 get_trec_results.c skips
// it.
func isRunComment(line []byte) bool {
	t := bytes.TrimLeft(line, " \t\v\f\r")
	return len(t) > 0 && t[0] == '#'
}

// jsonTokenText names a JSON token as the file spells it: null, true,
// false, or the opening of an object or list.
func jsonTokenText(tok json.Token) string {
	switch t := tok.(type) {
	case nil:
		return "null"
	case json.Delim:
		if t == '{' {
			return "an object {…}"
		}
		return "a list […]"
	default:
		return fmt.Sprint(t)
	}
}

// checkJSONText returns a *SyntaxError naming the line of the first byte of
// data that JSON decoding would rewrite to U+FFFD (jsonkey.Rewritten), or
// nil. The readers refuse it: an id holding one would no longer match the
// same id read from a TREC file, where ids are bytes kept exact.
func checkJSONText(data []byte, name string) error {
	off := jsonkey.Rewritten(data)
	if off < 0 {
		return nil
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - (bytes.LastIndexByte(data[:off], '\n') + 1) + 1
	what := fmt.Sprintf("invalid UTF-8 (byte 0x%02x)", data[off])
	if data[off] == '\\' {
		what = fmt.Sprintf("a lone UTF-16 surrogate %s", clip(data[off:min(off+6, len(data))]))
	}
	return &SyntaxError{File: name, Line: line, Field: "json", Msg: fmt.Sprintf("column %d: %s: JSON text must be UTF-8, and JSON decoding would replace it by U+FFFD (an id would then no longer match the same id in a TREC file); fix the encoding or use a TREC file, where ids are bytes kept exact", col, what)}
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
