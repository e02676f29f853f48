package corpus

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ragbench/ragbench/internal/hashkey"
	"github.com/ragbench/ragbench/internal/jsonkey"
	"github.com/ragbench/ragbench/internal/srcpos"
)

// maxLine is the longest line (in bytes) Load accepts: 64 MiB.
const maxLine = 64 << 20

// LineError is a bad line of a corpus file: File:Line: Field: Msg. Line
// counts from 1; Field is the JSON key or TSV column ("" when the whole line
// is at fault). It is ragbench's one position error, srcpos.Error.
type LineError = srcpos.Error

// Load reads a document collection from path. A folder is read by
// LoadFolder (one document per .md or .txt file). Otherwise the format
// follows the file name, after an optional ".gz" suffix (gzip-compressed):
//
//   - ".jsonl" or ".json": one JSON object per line. BEIR's corpus.jsonl
//     keys "_id", "title", "text" are read, and "id" is accepted for "_id"
//     (plain JSONL). Other keys (BEIR's "metadata") are ignored. "title" may
//     be missing; "text" must be present (it may be "").
//   - ".tsv": id<TAB>title<TAB>text per line, no quoting; or id<TAB>text
//     (MS MARCO's collection.tsv; no titles). The first data line decides
//     which, and every line must have that many columns. A first line
//     "id<TAB>title<TAB>text" or "id<TAB>text" (any case; "_id" too) is a
//     header and skipped.
//
// The file is UTF-8, with or without a byte order mark (U+FEFF, dropped),
// with LF or CRLF line ends (carriage returns ending a line are dropped), as for
// qrels and runs (eval.ReadQrels). Blank lines are skipped. Documents are
// returned in file order.
//
// Errors (as *LineError where a line is at fault): a missing or empty id, an
// id holding white space (no TREC run or qrels line could name it), a
// duplicate doc id (naming both lines), malformed JSON, a JSON key repeated
// within a line, a truncated or damaged ".gz" ("corrupt gzip"), a TSV line with
// another number of columns than the first, a file with no documents ("empty corpus"). Empty
// text is allowed: Summarize counts such documents so reports can show them
// (Cranfield has two).
func Load(path string) ([]Document, error) {
	docs, _, err := LoadIndexed(path)
	return docs, err
}

// LoadIndexed is Load that also returns each document's position by id,
// the index Load builds anyway to refuse duplicate ids (a caller that
// needs it saves building a second one).
func LoadIndexed(path string) ([]Document, *IDIndex, error) {
	return load(path, nil)
}

// load is LoadIndexed; with sp, each document's title and text go to
// the spill file as it is read (sp.put), and the documents come back
// with them empty until sp.finish maps them (LoadSpilled). An error
// writing the spill is a *spillError.
func load(path string, sp *spiller) ([]Document, *IDIndex, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		docs, err := LoadFolder(path)
		if err != nil {
			return nil, nil, err
		}
		for i := range docs {
			if err := sp.put(&docs[i]); err != nil {
				return nil, nil, err
			}
		}
		return docs, IndexDocs(docs), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	name := path
	var r io.Reader = f
	if strings.HasSuffix(strings.ToLower(name), ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		defer gz.Close()
		r = gz
		name = name[:len(name)-len(".gz")]
	}
	var parse func(line []byte, lineNo int) (Document, error)
	// With a spill, the fast path's titles and texts borrow the line
	// (sp.put copies them out before the next line is read); ids are
	// always the arena's.
	a := arena{borrow: sp != nil}
	switch ext := strings.ToLower(filepath.Ext(name)); ext {
	case ".jsonl", ".json":
		parse = func(line []byte, n int) (Document, error) {
			if d, ok := fastDoc(line, &a); ok {
				return d, nil
			}
			d, err := parseJSONLine(path, n, line)
			if err == nil && sp != nil {
				d.ID = a.str([]byte(d.ID)) // the table holds the arena's ids only (spiller.anon)
			}
			return d, err
		}
	case ".tsv":
		cols := 0 // set by the first data line: 3 (id, title, text) or 2 (id, text)
		parse = func(line []byte, n int) (Document, error) {
			d, err := parseTSVLine(path, n, line, &cols)
			if err == nil && sp != nil {
				// The id is a substring of the whole line's string:
				// a copy of its own lets the line go once spilled.
				d.ID = a.str([]byte(d.ID))
			}
			return d, err
		}
	default:
		return nil, nil, fmt.Errorf("%s: unknown corpus format %q (want .jsonl, .json or .tsv, optionally .gz)", path, ext)
	}

	br := bufio.NewReaderSize(r, 1<<20)
	n := estimateLines(br, f, r == io.Reader(f))
	var docs []Document
	var lineOf []int // line of each document (for the duplicate error)
	var slots *slotTables
	if sp == nil {
		docs = make([]Document, 0, n)
		lineOf = make([]int, 0, n)
	} else {
		// With the spill, the table, the ids and the index's slots are
		// outside the Go heap (spiller.anon), and so are the lists the
		// load needs while it runs (the lines here, the texts' lengths
		// in the spiller), unmapped when done; each reserved half as
		// large again as the estimate.
		a.alloc, slots = sp.anon, sp.slots()
		if docs, err = anonSlice[Document](sp, n+n/2); err != nil {
			return nil, nil, err
		}
		if lineOf, err = anonSlice[int](sp, n+n/2); err != nil {
			return nil, nil, err
		}
		if sp.lens, err = anonSlice[uint32](sp, 2*(n+n/2)); err != nil {
			return nil, nil, err
		}
		defer func() { unmapSlice(sp, lineOf) }()
	}
	byID := newIDIndexIn(func(i int) string { return docs[i].ID }, n, slots) // doc id → position in docs
	defer func() { byID.table = nil }()                                      // an Add after the load grows on the heap
	var buf []byte                                                           // the line read, reused (parse copies what it keeps)
	for lineNo := 1; ; lineNo++ {
		line, err := readLine(br, &buf)
		if err != nil && !errors.Is(err, io.EOF) {
			if errors.Is(err, errLongLine) {
				return nil, nil, &LineError{File: path, Line: lineNo, Msg: err.Error()}
			}
			if r != io.Reader(f) && errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, nil, fmt.Errorf("%s: corrupt gzip: %w (truncated or damaged file)", path, err)
			}
			return nil, nil, fmt.Errorf("%s:%d: %w", path, lineNo, err)
		}
		eof := errors.Is(err, io.EOF)
		if lineNo == 1 {
			line = bytes.TrimPrefix(line, utf8BOM)
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(bytes.TrimSpace(line)) > 0 {
			if lineNo == 1 && isTSVHeader(name, line) {
				continue
			}
			d, perr := parse(line, lineNo)
			if perr != nil {
				return nil, nil, perr
			}
			if a.err != nil {
				return nil, nil, a.err
			}
			// Spilled before the table holds it: a table outside the
			// heap must never point into it (spiller.anon).
			if err := sp.put(&d); err != nil {
				return nil, nil, err
			}
			if sp == nil {
				docs = append(docs, d)
			} else if docs, err = anonAppend(sp, docs, d); err != nil {
				return nil, nil, err
			}
			if i, dup := byID.Add(len(docs) - 1); dup {
				prev := lineOf[i]
				return nil, nil, &LineError{File: path, Line: lineNo, Field: "id",
					Msg: fmt.Sprintf("duplicate doc id %q (first at line %d, again at line %d)", d.ID, prev, lineNo)}
			}
			if sp == nil {
				lineOf = append(lineOf, lineNo)
			} else if lineOf, err = anonAppend(sp, lineOf, lineNo); err != nil {
				return nil, nil, err
			}
		}
		if eof {
			break
		}
	}
	if len(docs) == 0 {
		return nil, nil, fmt.Errorf("%s: empty corpus: no documents", path)
	}
	// No spare capacity: an append to a table outside the heap makes a
	// copy on the heap instead of writing (maybe heap pointers) into it.
	return docs[:len(docs):len(docs)], byID, nil
}

// estimateLines guesses how many lines a plain file holds from the lines in
// its first megabyte (br's buffer, peeked), so that the documents' slice
// and index are sized once instead of grown (growing a map of a million
// ids rehashes it about twenty times). It returns 0 for a compressed file
// (size unknown). The guess is capped at one line per 256 bytes of file,
// so that a first megabyte of short lines cannot make it reserve much more
// than the file's size (about 100 bytes a line): a guess too small only
// means growing, as without one.
func estimateLines(br *bufio.Reader, f *os.File, plain bool) int {
	if !plain {
		return 0
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return 0
	}
	head, _ := br.Peek(br.Size())
	lines := bytes.Count(head, []byte{'\n'})
	if lines == 0 || len(head) == 0 {
		return 0
	}
	return int(min(st.Size()/int64(len(head))*int64(lines)+int64(lines), st.Size()/256+1))
}

// utf8BOM is the byte order mark some editors (Notepad, Excel exports) put
// at the start of a UTF-8 file; Load drops it from the first line.
var utf8BOM = []byte("\ufeff")

var errLongLine = fmt.Errorf("line longer than %d bytes", maxLine)

// readLine returns the next line including its newline; io.EOF with the last
// (unterminated) line. The line is valid until the next call: it is the
// reader's own buffer when the line fits in it, else *buf, reused.
func readLine(br *bufio.Reader, buf *[]byte) ([]byte, error) {
	part, err := br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return part, err
	}
	*buf = append((*buf)[:0], part...)
	for {
		part, err := br.ReadSlice('\n')
		*buf = append(*buf, part...)
		if len(*buf) > maxLine {
			return nil, errLongLine
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return *buf, err
	}
}

func isTSVHeader(name string, line []byte) bool {
	if !strings.EqualFold(filepath.Ext(name), ".tsv") {
		return false
	}
	cols := strings.Split(strings.ToLower(string(line)), "\t")
	id := cols[0] == "id" || cols[0] == "_id" || cols[0] == "doc_id" || cols[0] == "docid"
	return id && (len(cols) == 3 && cols[1] == "title" && cols[2] == "text" ||
		len(cols) == 2 && cols[1] == "text")
}

// checkDocID refuses an empty doc id, one holding white space, which no
// TREC run or qrels line can hold (its fields are white-space separated),
// and one that is not valid UTF-8, which the indexes (bleve's stored ids,
// JSON) and the run files would write with U+FFFD in place of its bad
// bytes: every judgement of it would silently miss.
func checkDocID(file string, n int, field, id string) error {
	if strings.TrimSpace(id) == "" {
		return &LineError{File: file, Line: n, Field: field, Msg: "empty doc id"}
	}
	if !utf8.ValidString(id) {
		return &LineError{File: file, Line: n, Field: field,
			Msg: fmt.Sprintf("doc id %s is not valid UTF-8 (byte 0x%02x): indexes and runs would store it altered", strconv.Quote(id), id[firstInvalid(id)])}
	}
	if strings.ContainsAny(id, " \t\n\r\v\f") {
		return &LineError{File: file, Line: n, Field: field,
			Msg: fmt.Sprintf("doc id %q contains white space (TREC run and qrels files cannot hold it)", id)}
	}
	return nil
}

func parseJSONLine(file string, n int, line []byte) (Document, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		return Document{}, &LineError{File: file, Line: n, Msg: "invalid JSON: " + err.Error()}
	}
	if key := jsonkey.Repeated(line, false); key != "" {
		return Document{}, &LineError{File: file, Line: n, Field: key, Msg: "key given twice in one object"}
	}
	str := func(key string) (string, bool, error) {
		v, ok := raw[key]
		if !ok {
			return "", false, nil
		}
		if (key == "_id" || key == "id") && jsonkey.Rewritten(v) >= 0 {
			// encoding/json would read U+FFFD there: the doc id would no
			// longer match the qrels' (TREC ids are bytes, kept exact).
			return "", true, &LineError{File: file, Line: n, Field: key, Msg: "invalid UTF-8 or a lone \\u surrogate, which JSON decoding would replace by U+FFFD"}
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			// BEIR ids are strings, but some exports write numbers.
			var num json.Number
			if key == "_id" || key == "id" {
				if json.Unmarshal(v, &num) == nil {
					return num.String(), true, nil
				}
			}
			return "", true, &LineError{File: file, Line: n, Field: key, Msg: "want a string, got " + string(v)}
		}
		return s, true, nil
	}
	id, hasID, err := str("_id")
	if err != nil {
		return Document{}, err
	}
	plainID, hasPlain, err := str("id")
	if err != nil {
		return Document{}, err
	}
	field := "_id"
	switch {
	case hasID && hasPlain && id != plainID:
		return Document{}, &LineError{File: file, Line: n, Field: "_id",
			Msg: fmt.Sprintf("both _id %q and id %q given", id, plainID)}
	case !hasID && hasPlain:
		id, field = plainID, "id"
	case !hasID:
		return Document{}, &LineError{File: file, Line: n, Field: "_id", Msg: `missing (want "_id" or "id")`}
	}
	if err := checkDocID(file, n, field, id); err != nil {
		return Document{}, err
	}
	title, _, err := str("title")
	if err != nil {
		return Document{}, err
	}
	text, hasText, err := str("text")
	if err != nil {
		return Document{}, err
	}
	if !hasText {
		return Document{}, &LineError{File: file, Line: n, Field: "text", Msg: "missing"}
	}
	return Document{ID: id, Title: title, Text: text}, nil
}

func parseTSVLine(file string, n int, line []byte, cols *int) (Document, error) {
	fields := strings.Split(string(line), "\t")
	if *cols == 0 && (len(fields) == 2 || len(fields) == 3) {
		*cols = len(fields)
	}
	if len(fields) != *cols {
		want := "3 tab-separated columns (id, title, text)"
		if *cols == 2 {
			want = "2 tab-separated columns (id, text), as on the first line"
		} else if *cols == 3 {
			want = "3 tab-separated columns (id, title, text), as on the first line"
		}
		return Document{}, &LineError{File: file, Line: n, Msg: fmt.Sprintf("want %s, got %d", want, len(fields))}
	}
	if err := checkDocID(file, n, "id", fields[0]); err != nil {
		return Document{}, err
	}
	if *cols == 2 {
		return Document{ID: fields[0], Text: fields[1]}, nil
	}
	return Document{ID: fields[0], Title: fields[1], Text: fields[2]}, nil
}

// Summary describes a loaded collection for reports.
type Summary struct {
	Docs       int      // number of documents
	EmptyText  []string // ids of documents whose Text is empty or only white space, in corpus order
	EmptyTitle int      // documents without a title
	Words      int      // whitespace words in all texts (titles excluded)
}

// Summarize counts docs, empty texts and titles, and whitespace words (the
// chunkers' token unit, see Spec).
func Summarize(docs []Document) Summary {
	s := Summary{Docs: len(docs)}
	for _, d := range docs {
		w := countFields(d.Text)
		if w == 0 {
			s.EmptyText = append(s.EmptyText, d.ID)
		}
		if strings.TrimSpace(d.Title) == "" {
			s.EmptyTitle++
		}
		s.Words += w
	}
	return s
}

// countFields is len(strings.Fields(s)) without building the slice.
func countFields(s string) int {
	n := 0
	inField := false
	for i := 0; i < len(s); {
		c := s[i]
		var space bool
		if c < utf8.RuneSelf {
			space = asciiSpace[c]
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			space = unicode.IsSpace(r)
			i += size
		}
		if !space && !inField {
			n++
		}
		inField = !space
	}
	return n
}

// asciiSpace are the ASCII bytes unicode.IsSpace accepts.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// Warnings returns the summary's policy notes for a report, e.g.
// "2 documents with empty text (kept; only their titles can match): 471, 995".
func (s Summary) Warnings() []string {
	if len(s.EmptyText) == 0 {
		return nil
	}
	ids := s.EmptyText
	more := ""
	if len(ids) > 5 {
		ids, more = ids[:5], fmt.Sprintf(", … (%d more)", len(s.EmptyText)-5)
	}
	return []string{fmt.Sprintf("%d documents with empty text (kept; only their titles can match): %s%s",
		len(s.EmptyText), strings.Join(ids, ", "), more)}
}

// Hash is a SHA-256 (hex) of the documents' ids, titles and texts in order,
// each length-prefixed, so any change to the collection changes it. Used as
// a cache key for indexes and embeddings.
func Hash(docs []Document) string {
	f := hashkey.NewFields()
	for _, d := range docs {
		f.Put(d.ID)
		f.Put(d.Title)
		f.Put(d.Text)
	}
	return f.Hex()
}
