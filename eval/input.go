package eval

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ragbench/ragbench/internal/jsonkey"
)

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
		what = fmt.Sprintf("a lone UTF-16 surrogate %s", jsonkey.Clip(data[off:min(off+6, len(data))]))
	}
	return &SyntaxError{File: name, Line: line, Field: "json", Msg: fmt.Sprintf("column %d: %s: JSON text must be UTF-8, and JSON decoding would replace it by U+FFFD (an id would then no longer match the same id in a TREC file); fix the encoding or use a TREC file, where ids are bytes kept exact", col, what)}
}
