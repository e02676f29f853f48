package eval

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strconv"

	"github.com/ragbench/ragbench/internal/plural"
)

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
		w = append(w, fmt.Sprintf("%s with another tag than the first line's %q, e.g. line %d: %q (a line cut short, or runs concatenated?)", plural.Count(i.OtherTags, "run line", "run lines"), i.Tag, i.OtherTagLine, i.OtherTag))
	}
	if i.NoFinalNewline {
		w = append(w, fmt.Sprintf("the run file does not end in a newline: its last line (%d) may be cut short", i.LastLine))
	}
	return w
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
// separators eight bytes at a time and writes no pointer; the last,
// partial word is read padded with spaces (a word of spaces when the line
// is a whole number of words), so one loop also ends the last field.
func splitFields(line []byte, dst []span) int {
	n := 0
	start := 0 // start of the current field candidate
	for i := 0; i <= len(line); i += 8 {
		var w uint64
		if i+8 <= len(line) {
			w = binary.LittleEndian.Uint64(line[i:])
		} else {
			tail := [8]byte{' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '}
			copy(tail[:], line[i:])
			w = binary.LittleEndian.Uint64(tail[:])
		}
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

// parseRunJSON reads a ranx run {"query id": {"doc id": score}}: errors
// name the line and field (a query or doc given twice, a score that is not
// a finite number, trailing data, no query).
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
	j := &jsonRun{data: data, name: name, dec: json.NewDecoder(bytes.NewReader(data))}
	j.dec.UseNumber()
	tok, err := j.dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, info, j.errf("json", "a ranx run must be an object {\"query id\": {\"doc id\": score}}")
	}
	run := Run{}
	for j.dec.More() {
		tok, err := j.dec.Token()
		if err != nil {
			return nil, info, j.errf("json", "%v", err)
		}
		qid := tok.(string)
		if _, dup := run[qid]; dup {
			return nil, info, j.errf("query id", "query %q given twice", qid)
		}
		res, err := j.query(qid)
		if err != nil {
			return nil, info, err
		}
		run[qid] = res
		info.Results += len(res)
	}
	if _, err := j.dec.Token(); err != nil {
		return nil, info, j.errf("json", "%v", err)
	}
	if _, err := j.dec.Token(); err != io.EOF {
		return nil, info, j.errf("json", "unexpected data after the run object")
	}
	if len(run) == 0 {
		return nil, info, &SyntaxError{File: name, Msg: "no query found (empty run {})"}
	}
	return run, info, nil
}

// jsonRun is the state of parseRunJSON: the file's bytes (for line
// numbers), its name and the token decoder.
type jsonRun struct {
	data []byte
	name string
	dec  *json.Decoder
}

// errf is a SyntaxError at the decoder's line.
func (j *jsonRun) errf(field, format string, a ...any) error {
	off := min(j.dec.InputOffset(), int64(len(j.data)))
	return &SyntaxError{File: j.name, Line: 1 + bytes.Count(j.data[:off], []byte("\n")), Field: field, Msg: fmt.Sprintf(format, a...)}
}

// query reads query qid's object {"doc id": score, ...}: finite numeric
// scores, each doc once.
func (j *jsonRun) query(qid string) ([]Result, error) {
	if tok, err := j.dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, j.errf("query id", "query %q: value must be an object {\"doc id\": score}", qid)
	}
	res := []Result{}
	seen := map[string]struct{}{}
	for j.dec.More() {
		tok, err := j.dec.Token()
		if err != nil {
			return nil, j.errf("json", "%v", err)
		}
		did := tok.(string)
		tok, err = j.dec.Token()
		if err != nil {
			return nil, j.errf("json", "%v", err)
		}
		num, ok := tok.(json.Number)
		if !ok {
			if str, isStr := tok.(string); isStr {
				return nil, j.errf("score", "query %q doc %q: score is a string, not a number: %q", qid, did, str)
			}
			return nil, j.errf("score", "query %q doc %q: score is not a number: %s", qid, did, jsonTokenText(tok))
		}
		sc, err := strconv.ParseFloat(num.String(), 64)
		if err != nil || math.IsInf(sc, 0) || math.IsNaN(sc) {
			return nil, j.errf("score", "query %q doc %q: score not finite: %s", qid, did, num)
		}
		if _, dup := seen[did]; dup {
			return nil, j.errf("doc id", "query %q retrieves doc %q twice", qid, did)
		}
		seen[did] = struct{}{}
		res = append(res, Result{DocID: did, Score: sc})
	}
	if _, err := j.dec.Token(); err != nil {
		return nil, j.errf("json", "%v", err)
	}
	return res, nil
}

// isRunComment reports whether a TREC run line is a comment: its first byte
// after leading white space is '#', as trec_eval 10 get_trec_results.c skips
// it.
func isRunComment(line []byte) bool {
	t := bytes.TrimLeft(line, " \t\v\f\r")
	return len(t) > 0 && t[0] == '#'
}
