package passages

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/jsonkey"
	"github.com/ragbench/ragbench/internal/plural"
	"github.com/ragbench/ragbench/internal/srcpos"
)

// Passage is one result of a run, placed in the corpus.
type Passage struct {
	// Doc is the document id, "" when the passage is unmapped.
	Doc string
	// Start and End are code points [Start, End) of Doc (0 when unmapped).
	Start, End int
	// Length is End − Start, or, for an unmapped passage, its text's
	// length in code points: what it adds to Σ|Ci| in the token measures.
	Length int
	// Placing says how it was placed (Offsets, Exact, Normalised) or why
	// it is unmapped (Absent, Ambiguous).
	Placing Placing
	// ID is the pipeline's own id of the passage ("id", or the TREC run's
	// doc id), "" when none; shown in listings, used by no measure.
	ID string
	// Text is the text the result gave, "" when it gave offsets only.
	Text string
	// Score is the result's score; HasScore reports whether the line gave
	// scores (every result of a line or none has one).
	Score    float64
	HasScore bool
}

// Query is one query of a run: its passages ranked best first.
type Query struct {
	ID   string
	Line int // the line of the run (or answer) that gave it; 0 when none
	// Passages are ranked: by score descending, equal scores in list
	// order; without scores in list order.
	Passages []Passage
	// OutOfOrder reports that the list was not in non-increasing score
	// order as given (it was sorted).
	OutOfOrder bool
}

// Unmapped is one unmapped result, for listings.
type Unmapped struct {
	Query  string
	Line   int // the run's line
	Index  int // its position in the line's results list, from 0 (results[Index])
	Rank   int // its rank once ranked, from 1
	Reason Placing
	Text   string // the first 60 code points of its text
}

// Run is a passage run: its queries in file order and what placing its
// results found.
type Run struct {
	// Name is the file's name (or the name given to Parse), for messages.
	Name    string
	Queries []Query
	// Results counts every result of every line; Placed counts them by
	// Placing (indexed by Placing).
	Results int
	Placed  [5]int
	// Unmapped lists the unmapped results in file order.
	Unmapped []Unmapped

	byID map[string]int
}

// Query returns the query qid of r.
func (r *Run) Query(qid string) (Query, bool) {
	i, ok := r.byID[qid]
	if !ok {
		return Query{}, false
	}
	return r.Queries[i], true
}

// UnmappedCount is the number of unmapped results (absent or ambiguous).
func (r *Run) UnmappedCount() int { return r.Placed[Absent] + r.Placed[Ambiguous] }

// UnmappedRate is unmapped results ÷ all results (0 for a run of no
// result), the rate --max-unmapped bounds.
func (r *Run) UnmappedRate() float64 {
	if r.Results == 0 {
		return 0
	}
	return float64(r.UnmappedCount()) / float64(r.Results)
}

// OutOfOrder counts the queries whose list was not in non-increasing score
// order (ranked by score all the same, as trec_eval does).
func (r *Run) OutOfOrder() int {
	n := 0
	for _, q := range r.Queries {
		if q.OutOfOrder {
			n++
		}
	}
	return n
}

// Cut keeps at most n passages of each query (their top n; n ≤ 0 keeps
// all): trec_eval's -M. The counts of the run's results are those read.
func (r *Run) Cut(n int) {
	if n <= 0 {
		return
	}
	for i := range r.Queries {
		if len(r.Queries[i].Passages) > n {
			r.Queries[i].Passages = r.Queries[i].Passages[:n]
		}
	}
}

// DefaultMaxUnmapped is the default highest unmapped rate a run may have
// (bench eval's --max-unmapped, the run and http kinds' max_unmapped): 5 %
// of its results.
const DefaultMaxUnmapped = 0.05

// CheckMaxUnmapped refuses a limit outside [0, 1] (or NaN).
func CheckMaxUnmapped(limit float64) error {
	if !(limit >= 0 && limit <= 1) {
		return fmt.Errorf("max unmapped %v: want a fraction in [0, 1] (0.05 = 5 %% of the results)", limit)
	}
	return nil
}

// CheckUnmapped returns an error when r's unmapped rate is above limit
// (a fraction in [0, 1]), naming the rate, the counts and the limit:
// "run.jsonl: 345 of 2760 results unmapped (12.5 %: 301 absent, 44
// ambiguous) > max unmapped 5 %". what names the limit in the message
// ("--max-unmapped", "max_unmapped").
func (r *Run) CheckUnmapped(limit float64, what string) error {
	if r.UnmappedRate() <= limit {
		return nil
	}
	return fmt.Errorf("%s: %s > %s %s (text found nowhere in the corpus, or at several places: is it the corpus the pipeline indexed?); unmapped:\n  %s",
		r.Name, r.UnmappedSummary(), what, percent(limit), strings.Join(r.unmappedLines(maxUnmappedListed), "\n  "))
}

// maxUnmappedListed is how many unmapped results CheckUnmapped's error
// lists.
const maxUnmappedListed = 10

// unmappedLines lists r's first n unmapped results, one line each — where
// (file:line: results[i]), the query, the rank, why (absent, ambiguous)
// and the text (Unmapped.Text: clipped to 60 code points) — then "… and N
// more unmapped results" when there are more.
func (r *Run) unmappedLines(n int) []string {
	var out []string
	for i, u := range r.Unmapped {
		if i == n {
			out = append(out, fmt.Sprintf("%s: … and %d more unmapped results", r.Name, len(r.Unmapped)-n))
			break
		}
		where := fmt.Sprintf("%s:%d: results[%d]", r.Name, u.Line, u.Index)
		if u.Line == 0 {
			where = r.Name
		}
		out = append(out, fmt.Sprintf("%s: query %q: unmapped at rank %d (%s): %q", where, u.Query, u.Rank, u.Reason, u.Text))
	}
	return out
}

// UnmappedSummary is "345 of 2760 results unmapped (12.5 %: 301 absent,
// 44 ambiguous)".
func (r *Run) UnmappedSummary() string {
	return fmt.Sprintf("%d of %d results unmapped (%s: %d absent, %d ambiguous)", r.UnmappedCount(), r.Results, percent(r.UnmappedRate()), r.Placed[Absent], r.Placed[Ambiguous])
}

// percent writes a fraction as a percentage with at most one decimal
// ("12.5 %", "5 %").
func percent(f float64) string {
	return strconv.FormatFloat(math.Round(f*1000)/10, 'f', -1, 64) + " %"
}

// Notes are what a reader should know about r, in words: how its results
// were placed, its unmapped results (the first few listed), the queries
// listed out of score order.
func (r *Run) Notes() []string {
	var out []string
	out = append(out, fmt.Sprintf("%s: %d queries, %d results placed: %d by offsets, %d by exact text, %d by text with white space normalised; %s",
		r.Name, len(r.Queries), r.Results, r.Placed[Offsets], r.Placed[Exact], r.Placed[Normalised], r.UnmappedSummary()))
	out = append(out, r.unmappedLines(5)...)
	if n := r.OutOfOrder(); n > 0 {
		out = append(out, fmt.Sprintf("%s: %s list results out of score order; ranked by score, as trec_eval does", r.Name, plural.Count(n, "query", "queries")))
	}
	return out
}

// resultKeys are the keys of one result, in the order docs/pipelines.md
// lists them.
var resultKeys = []string{"doc", "start", "end", "unit", "text", "score", "id"}

// maxErrors is how many errors of a file a reader lists before counting
// the rest.
const maxErrors = 100

// errorList collects the errors of one file.
type errorList struct {
	errs []error
	more int
}

func (l *errorList) add(file string, line int, field, format string, a ...any) {
	if len(l.errs) == maxErrors {
		l.more++
		return
	}
	l.errs = append(l.errs, &srcpos.Error{File: file, Line: line, Field: field, Msg: fmt.Sprintf(format, a...)})
}

func (l *errorList) err() error {
	if l.more > 0 {
		l.errs = append(l.errs, fmt.Errorf("… and %d more errors", l.more))
	}
	return errors.Join(l.errs...)
}

// Read reads the passage run at path (see Parse).
func Read(path string, loc *Locator) (*Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, path, loc)
}

// maxLine is the longest line Parse reads: 64 MiB, as eval's readers.
const maxLine = 64 << 20

// Parse reads a passage run (docs/pipelines.md): UTF-8 JSONL, a byte order
// mark dropped, LF or CRLF line ends, blank lines skipped, one object per
// line with "qid" (a non-empty string, or an integer read as its decimal
// text) and "results" (a list, [] for none; see the package comment for a
// result's shapes); other keys of the line are ignored. Text is placed by
// loc. It returns the run, or every error of the file (up to 100, then
// their count), each an *srcpos.Error naming name, line, results[i] and the
// field: a line that is not a JSON object (invalid UTF-8, a key given
// twice, NaN), a missing or malformed qid or results, a qid given twice
// (naming both lines), and each result's (see ParseAnswer for the result
// rules). A file with no line is an error.
func Parse(r io.Reader, name string, loc *Locator) (*Run, error) {
	run := &Run{Name: name, byID: map[string]int{}}
	var el errorList
	lines := 0
	qidLine := map[string]int{} // every qid read, valid line or not
	err := scanJSONL(r, name, func(line int, b []byte) bool {
		lines++
		obj, ok := lineObject(b, name, line, &el)
		if !ok {
			return true
		}
		qid, ok := lineQID(obj, name, line, &el)
		if first, dup := qidLine[qid]; ok && dup {
			el.add(name, line, "qid", "query %q given twice (first at line %d)", qid, first)
			ok = false
		} else if ok {
			qidLine[qid] = line
		}
		raw, has := obj["results"]
		if !has {
			el.add(name, line, "results", "missing (want a list of results, [] for none)")
			return true
		}
		ps, errs := parseResults(raw, loc)
		for _, e := range errs {
			el.add(name, line, e.field, "%s", e.msg)
		}
		if ok && len(errs) == 0 {
			run.add(qid, line, ps)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	if err := el.err(); err != nil {
		return nil, err
	}
	if lines == 0 {
		return nil, &srcpos.Error{File: name, Msg: "empty passage run (no line)"}
	}
	return run, nil
}

// scanJSONL calls each with every non-blank line of r (UTF-8 JSONL: a byte
// order mark dropped, LF or CRLF line ends; lines numbered from 1) and its
// number, until each returns false. Errors: a line longer than maxLine, a
// read error.
func scanJSONL(r io.Reader, name string, each func(line int, b []byte) bool) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), maxLine)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimRight(sc.Bytes(), "\r")
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
		}
		if len(bytes.TrimSpace(b)) > 0 && !each(line, b) {
			return nil
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &srcpos.Error{File: name, Line: line + 1, Msg: fmt.Sprintf("line longer than %d MiB, the longest line this reader takes", maxLine>>20)}
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// IsRun reports whether the file at path is a passage run: its first
// non-blank line is a JSON object with "results" (a TREC run's lines never
// start with '{', and a ranx JSON run is one object of query ids). A file
// that cannot be read is not one (the run reader then says why).
func IsRun(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	is := false
	scanJSONL(f, path, func(_ int, b []byte) bool {
		var obj map[string]json.RawMessage
		if json.Unmarshal(bytes.TrimSpace(b), &obj) == nil {
			_, is = obj["results"]
		}
		return false
	})
	return is
}

// add ranks a query's passages and adds it to r, counting its placings.
func (r *Run) add(qid string, line int, ps []Passage) {
	order, outOfOrder := rank(ps)
	q := Query{ID: qid, Line: line, Passages: make([]Passage, len(ps)), OutOfOrder: outOfOrder}
	rankOf := make([]int, len(ps)) // list index → rank
	for k, i := range order {
		q.Passages[k] = ps[i]
		rankOf[i] = k + 1
	}
	for i, p := range ps {
		r.Results++
		r.Placed[p.Placing]++
		if p.Placing.Unmapped() {
			r.Unmapped = append(r.Unmapped, Unmapped{Query: qid, Line: line, Index: i, Rank: rankOf[i], Reason: p.Placing, Text: clipText(p.Text, 60)})
		}
	}
	r.byID[qid] = len(r.Queries)
	r.Queries = append(r.Queries, q)
}

// rank orders passages by score, descending, equal scores keeping list
// order (a stable sort); without scores the list order is kept. It returns
// the list indices in rank order and whether the list was out of order.
func rank(ps []Passage) ([]int, bool) {
	order := make([]int, len(ps))
	for i := range order {
		order[i] = i
	}
	if len(ps) == 0 || !ps[0].HasScore {
		return order, false
	}
	outOfOrder := false
	for i := 1; i < len(ps); i++ {
		if ps[i].Score > ps[i-1].Score {
			outOfOrder = true
			break
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case ps[a].Score > ps[b].Score:
			return -1
		case ps[a].Score < ps[b].Score:
			return 1
		}
		return 0
	})
	return order, outOfOrder
}

// clipText is the first n code points of s, with "…" when cut.
func clipText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for k := range s {
		if i == n {
			return s[:k] + "…"
		}
		i++
	}
	return s
}

// lineObject decodes one line as a JSON object, recording why it is not
// one.
func lineObject(b []byte, name string, line int, el *errorList) (map[string]json.RawMessage, bool) {
	if at := jsonkey.Rewritten(b); at >= 0 {
		el.add(name, line, "", "not UTF-8 (or a lone surrogate escape) at byte %d: the line must be UTF-8 JSON", at)
		return nil, false
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
		el.add(name, line, "", "not a JSON object: %s", jsonError(err, b))
		return nil, false
	}
	if k := jsonkey.Repeated(b, false); k != "" {
		el.add(name, line, k, "key given twice in one object")
		return nil, false
	}
	return obj, true
}

// lineQID reads a line's qid: a non-empty string, or an integer read as its
// decimal text.
func lineQID(obj map[string]json.RawMessage, name string, line int, el *errorList) (string, bool) {
	raw, ok := obj["qid"]
	if !ok {
		el.add(name, line, "qid", "missing (want the labelled query's id)")
		return "", false
	}
	id, ok := jsonID(raw)
	if !ok {
		el.add(name, line, "qid", "want a non-empty string or an integer, got %s", jsonkey.Clip(raw))
		return "", false
	}
	return id, true
}

// jsonID reads a JSON string (non-empty) or integer literal as an id.
func jsonID(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, s != ""
	}
	if isInteger(raw) {
		return string(raw), true
	}
	return "", false
}

// isInteger reports whether raw is a JSON number with no fraction and no
// exponent.
func isInteger(raw json.RawMessage) bool {
	s := string(raw)
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// jsonError words a JSON decoding error without Go type names.
func jsonError(err error, b []byte) string {
	var se *json.SyntaxError
	switch {
	case err == nil:
		return "got " + jsonkey.Clip(bytes.TrimSpace(b))
	case errors.As(err, &se):
		return "invalid JSON: " + se.Error()
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "invalid JSON: unexpected end of line"
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return "got a JSON " + te.Value
	}
	return "invalid JSON"
}

// fieldError is one problem of a results list: the field
// ("results[2].start") and the message.
type fieldError struct{ field, msg string }

// parseResults reads a "results" list, placing each result with loc. It
// returns the passages in list order, or every problem of the list.
func parseResults(raw json.RawMessage, loc *Locator) ([]Passage, []fieldError) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || items == nil && !bytes.Equal(bytes.TrimSpace(raw), []byte("[]")) {
		return nil, []fieldError{{"results", "want a list of results ([] for none), got " + jsonkey.Clip(raw)}}
	}
	var errs []fieldError
	ps := make([]Passage, 0, len(items))
	scored := 0
	for i, it := range items {
		f := "results[" + strconv.Itoa(i) + "]"
		p, has, e := parseResult(it, f, loc)
		errs = append(errs, e...)
		if has {
			scored++
		}
		ps = append(ps, p)
	}
	if scored > 0 && scored < len(items) {
		errs = append(errs, fieldError{"results", fmt.Sprintf("score given on %d of the %d results: give it on every result of a line or on none", scored, len(items))})
	}
	return ps, errs
}

// parseResult reads one result (field f) and places it: its passage,
// whether it has a score, and its problems.
func parseResult(raw json.RawMessage, f string, loc *Locator) (Passage, bool, []fieldError) {
	var errs []fieldError
	bad := func(field, format string, a ...any) {
		errs = append(errs, fieldError{f + field, fmt.Sprintf(format, a...)})
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		bad("", "want an object with doc, start and end, or text, got %s", jsonkey.Clip(raw))
		return Passage{}, false, errs
	}
	if k := jsonkey.Repeated(raw, false); k != "" {
		bad("."+k, "key given twice in one result")
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(resultKeys, k) {
			bad("."+k, "unknown key (a result has %s)", strings.Join(resultKeys, ", "))
		}
	}
	var p Passage
	str := func(k string) (string, bool) {
		v, ok := obj[k]
		if !ok {
			return "", false
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			bad("."+k, "want a string, got %s", jsonkey.Clip(v))
			return "", false
		}
		return s, true
	}
	doc, hasDoc := str("doc")
	text, hasText := str("text")
	unit, hasUnit := str("unit")
	p.ID, _ = str("id")
	p.Text = text
	if raw, ok := obj["score"]; ok {
		if len(raw) == 0 || raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
			bad(".score", "want a finite number, got %s (leave score out when the retriever gives none)", jsonkey.Clip(raw))
		} else if v, err := strconv.ParseFloat(string(raw), 64); err != nil || math.IsInf(v, 0) {
			bad(".score", "%s is not a finite float64", jsonkey.Clip(raw))
		} else {
			p.Score, p.HasScore = v, true
		}
	}
	_, hasStart := obj["start"]
	_, hasEnd := obj["end"]
	offsets := hasStart || hasEnd
	if hasText && strings.TrimFunc(text, unicode.IsSpace) == "" {
		bad(".text", "empty or white space only: give the passage's text, or leave text out and give offsets")
	}
	if hasDoc {
		if _, ok := loc.Doc(doc); !ok {
			bad(".doc", "no document %q in the corpus (doc ids are file paths inside the corpus folder, without the extension, '/'-separated)%s", doc, suggest(loc, doc))
			hasDoc = false
		}
	}
	switch {
	case offsets:
		if hasUnit && unit != eval.UnitCodePoints && unit != eval.UnitBytes {
			bad(".unit", "want %q (the default) or %q, got %q", eval.UnitCodePoints, eval.UnitBytes, unit)
			return p, p.HasScore, errs
		}
		if _, given := obj["doc"]; !given {
			bad(".doc", "missing: offsets need the document they are in")
		}
		start, okS := offset(obj, "start", f, bad)
		end, okE := offset(obj, "end", f, bad)
		if !hasStart || !hasEnd {
			bad("", "give both start and end, or neither (then text)")
			return p, p.HasScore, errs
		}
		if !okS || !okE || !hasDoc || len(errs) > 0 {
			return p, p.HasScore, errs
		}
		p.place(loc, doc, start, end, unit, text, hasText, bad)
	case hasUnit:
		bad(".unit", "only with start and end")
	case !hasText:
		bad("", "want doc, start and end, or text (with or without doc)")
	case len(errs) == 0:
		at := loc.locate(doc, text)
		p.Placing = at.how
		if at.how.Unmapped() {
			p.Length = utf8.RuneCountInString(text)
		} else {
			p.Doc, p.Start, p.End, p.Length = at.doc, at.start, at.end, at.end-at.start
		}
	}
	return p, p.HasScore, errs
}

// offset reads the integer key k ("start" or "end") of a result.
func offset(obj map[string]json.RawMessage, k, f string, bad func(field, format string, a ...any)) (int, bool) {
	raw, ok := obj[k]
	if !ok {
		return 0, false
	}
	if !isInteger(raw) {
		bad("."+k, "want an integer (no fraction, no exponent), got %s", jsonkey.Clip(raw))
		return 0, false
	}
	n, err := strconv.Atoi(string(raw))
	if err != nil {
		bad("."+k, "%s is out of range", jsonkey.Clip(raw))
		return 0, false
	}
	return n, true
}

// place sets p from offsets [start, end) in unit of document doc, checked:
// inside the document, not empty, byte offsets on character boundaries,
// and text (when given) equal to the document there.
func (p *Passage) place(loc *Locator, doc string, start, end int, unit, text string, hasText bool, bad func(field, format string, a ...any)) {
	d, _ := loc.Doc(doc)
	if unit == "" {
		unit = eval.UnitCodePoints
	}
	size, what := d.Len(), "code points"
	if unit == eval.UnitBytes {
		size, what = len(d.Text), "bytes"
	}
	if start < 0 || end <= start || end > size {
		bad("", "doc %q: span [%d, %d) outside the document (0 to %d %s), or empty", doc, start, end, size, what)
		return
	}
	r, err := d.ByCodePoints(start, end)
	if unit == eval.UnitBytes {
		r, err = d.ByBytes(start, end)
	}
	if err != nil {
		bad("", "doc %q: byte offsets [%d, %d) fall inside a character (UTF-8 offsets must be on character boundaries; code points are the default unit)", doc, start, end)
		return
	}
	if hasText && d.Slice(r) != text {
		bad(".text", "doc %q: differs from the document at [%d, %d) %s (offsets in the other unit, or a loader that changed the text?): result %q, document %q", doc, start, end, what, clipText(text, 40), clipText(d.Slice(r), 40))
		return
	}
	p.Doc, p.Start, p.End, p.Length, p.Placing = doc, r.Start, r.End, r.Len(), Offsets
}

// suggest is a hint naming the document id meant, "" when none is known.
func suggest(loc *Locator, id string) string {
	if s, _ := loc.ix.SuggestID(id); s != "" {
		return fmt.Sprintf("; did you mean %q?", s)
	}
	return ""
}

// NewRun returns an empty run named name, to which AddAnswer adds the
// answers of a retriever service.
func NewRun(name string) *Run { return &Run{Name: name, byID: map[string]int{}} }

// AnswerError is a service's answer that breaks the contract
// (docs/pipelines.md, "The HTTP contract"): a query error, not retried
// (asking again gives the same answer).
type AnswerError struct {
	Query string
	Msg   string
}

func (e *AnswerError) Error() string {
	return fmt.Sprintf("query %q: malformed answer: %s", e.Query, e.Msg)
}

// AddAnswer reads a retriever service's answer body to query qid, which
// asked for k results, and adds the query to r (ranked and placed as a
// passage run's line; loc places text). The body must be UTF-8 JSON: an
// object with "results" (at most k of them, every result rule of Parse)
// and, optionally, "qid" equal to qid; other keys are ignored. Errors (an
// *AnswerError naming every problem of the answer): not JSON, not an
// object, no results list, a broken result rule, more than k results, a
// different qid; and a query added twice. Unmapped text is not an error:
// it is counted as in a passage run.
func (r *Run) AddAnswer(qid string, body []byte, k int, loc *Locator) error {
	if _, dup := r.byID[qid]; dup {
		return &AnswerError{qid, "the query was answered twice"}
	}
	var el errorList
	obj, ok := lineObject(bytes.TrimSpace(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))), "answer", 0, &el)
	if !ok {
		return &AnswerError{qid, strings.TrimPrefix(el.err().Error(), "answer: ")}
	}
	var msgs []string
	if raw, has := obj["qid"]; has {
		if got, ok := jsonID(raw); !ok || got != qid {
			msgs = append(msgs, fmt.Sprintf("qid: %s, not the query asked (%q): answers mixed up?", jsonkey.Clip(raw), qid))
		}
	}
	raw, has := obj["results"]
	if !has {
		return &AnswerError{qid, strings.Join(append(msgs, "results: missing (want a list of results, [] for none)"), "; ")}
	}
	ps, errs := parseResults(raw, loc)
	for _, e := range errs {
		msgs = append(msgs, e.field+": "+e.msg)
	}
	if len(ps) > k {
		msgs = append(msgs, fmt.Sprintf("results: %d results, more than the %d asked for", len(ps), k))
	}
	if len(msgs) > 0 {
		if len(msgs) > 10 {
			msgs = append(msgs[:10], fmt.Sprintf("… and %d more problems", len(msgs)-10))
		}
		return &AnswerError{qid, strings.Join(msgs, "; ")}
	}
	r.add(qid, 0, ps)
	return nil
}
