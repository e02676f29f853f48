package corpus

import (
	"encoding/json"
	"unicode/utf8"
	"unsafe"
)

// fastDoc is the fast path of parseJSONLine: one pass over a corpus line
// that reads the "_id", "id", "title" and "text" keys of a flat JSON
// object. It returns ok only when the line is valid JSON that
// parseJSONLine would accept and read the same way; anything else (a
// syntax error, a key given twice, a key or id holding an escape, a value
// of those keys that is not a string, invalid UTF-8, deep nesting) is left
// to parseJSONLine, whose errors stay the only ones. Strings without
// escapes are taken as they are, bytes copied into arena (one allocation
// per arena block, not per field); a title or text with escapes is
// decoded by encoding/json.
func fastDoc(line []byte, a *arena) (Document, bool) {
	p := scanner{b: line}
	p.space()
	if !p.eat('{') {
		return Document{}, false
	}
	// The values of the four keys (raw spans, inner text for strings
	// without escapes), and whether each was seen.
	type val struct {
		s, e    int
		seen    bool
		escaped bool
	}
	var id, plainID, title, text val
	var keys [8][2]int // spans of the keys met, to refuse a repeat (more keys: slow path)
	nkeys := 0
	p.space()
	if p.eat('}') {
		return Document{}, false // no id: the slow path says so
	}
	for {
		p.space()
		ks, ke, kesc, ok := p.str()
		if !ok || kesc {
			return Document{}, false
		}
		key := line[ks:ke]
		if !utf8.Valid(key) {
			return Document{}, false // encoding/json would rewrite it: repeats are the slow path's to find
		}
		if nkeys == len(keys) {
			return Document{}, false
		}
		for _, k := range keys[:nkeys] {
			if string(line[k[0]:k[1]]) == string(key) {
				return Document{}, false
			}
		}
		keys[nkeys] = [2]int{ks, ke}
		nkeys++
		p.space()
		if !p.eat(':') {
			return Document{}, false
		}
		p.space()
		var dst *val
		switch string(key) {
		case "_id":
			dst = &id
		case "id":
			dst = &plainID
		case "title":
			dst = &title
		case "text":
			dst = &text
		}
		if dst != nil {
			s, e, esc, ok := p.str()
			if !ok {
				return Document{}, false
			}
			*dst = val{s: s, e: e, seen: true, escaped: esc}
		} else if !p.value(0) {
			return Document{}, false
		}
		p.space()
		if p.eat(',') {
			continue
		}
		if !p.eat('}') {
			return Document{}, false
		}
		break
	}
	p.space()
	if p.i != len(line) {
		return Document{}, false
	}
	idv := id
	switch {
	case id.seen && plainID.seen:
		return Document{}, false // equal or not, the slow path decides
	case plainID.seen:
		idv = plainID
	case !id.seen:
		return Document{}, false
	}
	if idv.escaped || !text.seen {
		return Document{}, false
	}
	idb := line[idv.s:idv.e]
	if !checkIDBytes(idb) {
		return Document{}, false
	}
	d := Document{ID: a.str(idb)}
	var ok bool
	if title.seen {
		if d.Title, ok = a.decode(line[title.s:title.e], title.escaped); !ok {
			return Document{}, false
		}
	}
	if d.Text, ok = a.decode(line[text.s:text.e], text.escaped); !ok {
		return Document{}, false
	}
	return d, true
}

// checkIDBytes is checkDocID's acceptance without its errors: not empty
// after trimming white space, valid UTF-8, no ASCII white space; an id
// with other Unicode white space is left to the slow path.
func checkIDBytes(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			return false
		case c >= utf8.RuneSelf:
			return false // non-ASCII ids (rare): the slow path checks them
		}
	}
	return true
}

// arena hands out strings that share large blocks: the corpus's ids,
// titles and texts, one allocation per block instead of one per field.
type arena struct {
	buf []byte // the current block's unused tail
	// borrow makes decode's strings without escapes alias the line
	// instead of copying it: valid only until the next line is read
	// (the spill copies them out at once; see load).
	borrow bool
	// alloc, when set, gives the blocks, outside the Go heap (the
	// spill's ids, see spiller.anon), and every string str makes is in
	// one of them, however long; err is its first failure (str then
	// returns "").
	alloc func(n int) ([]byte, error)
	err   error
}

const arenaBlock = 1 << 20

// str returns a string holding b's bytes.
func (a *arena) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if a.alloc != nil {
		return a.strOff(b)
	}
	if len(b) > arenaBlock/8 {
		return string(b)
	}
	if len(b) > len(a.buf) {
		a.buf = make([]byte, arenaBlock)
	}
	n := copy(a.buf, b)
	s := unsafeString(a.buf[:n])
	a.buf = a.buf[n:]
	return s
}

// strOff is str with the blocks of a.alloc: a string longer than an
// eighth of a block gets a block of its own.
func (a *arena) strOff(b []byte) string {
	if a.err != nil {
		return ""
	}
	if len(b) > len(a.buf) {
		own := len(b) > arenaBlock/8
		size := arenaBlock
		if own {
			size = len(b)
		}
		blk, err := a.alloc(size)
		if err != nil {
			a.err = err
			return ""
		}
		if own {
			return unsafeString(blk[:copy(blk, b)])
		}
		a.buf = blk
	}
	n := copy(a.buf, b)
	s := unsafeString(a.buf[:n])
	a.buf = a.buf[n:]
	return s
}

// decode returns the string whose JSON text (between the quotes) is b:
// b itself when it holds no escape and is valid UTF-8, else
// encoding/json's decoding of it (which replaces invalid UTF-8 by U+FFFD,
// as the slow path does).
func (a *arena) decode(b []byte, escaped bool) (string, bool) {
	if !escaped && utf8.Valid(b) {
		if a.borrow && len(b) > 0 {
			return unsafeString(b), true
		}
		return a.str(b), true
	}
	var s string
	q := make([]byte, 0, len(b)+2)
	q = append(append(append(q, '"'), b...), '"')
	if err := json.Unmarshal(q, &s); err != nil {
		return "", false
	}
	return s, true
}

// unsafeString is b's bytes as a string without copying; the arena never
// writes a block's bytes again once handed out.
func unsafeString(b []byte) string { return unsafe.String(&b[0], len(b)) }

// scanner walks JSON text, checking it as encoding/json would.
type scanner struct {
	b []byte
	i int
}

func (p *scanner) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *scanner) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// str reads a string at p.i: the span of its inner text, whether it holds
// an escape, and whether it is well formed (escapes valid, no control
// characters).
func (p *scanner) str() (s, e int, escaped, ok bool) {
	if !p.eat('"') {
		return 0, 0, false, false
	}
	s = p.i
	b := p.b
	for i := p.i; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			p.i = i + 1
			return s, i, escaped, true
		case c < 0x20:
			return 0, 0, false, false
		case c == '\\':
			escaped = true
			i++
			if i >= len(b) {
				return 0, 0, false, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return 0, 0, false, false
				}
				for _, h := range b[i+1 : i+5] {
					if !isHex(h) {
						return 0, 0, false, false
					}
				}
				i += 4
			default:
				return 0, 0, false, false
			}
		}
	}
	return 0, 0, false, false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// maxDepth bounds the nesting the fast path follows (deeper: slow path).
const maxDepth = 64

// members checks the members of an object or array whose opening byte
// was just read: member, then each further one after a comma, up to the
// closing byte (none at all is allowed).
func (p *scanner) members(closing byte, member func() bool) bool {
	p.space()
	if p.eat(closing) {
		return true
	}
	for {
		p.space()
		if !member() {
			return false
		}
		p.space()
		if !p.eat(',') {
			return p.eat(closing)
		}
	}
}

// value skips one JSON value at p.i, checking its syntax.
func (p *scanner) value(depth int) bool {
	if depth > maxDepth || p.i >= len(p.b) {
		return false
	}
	switch c := p.b[p.i]; {
	case c == '"':
		_, _, _, ok := p.str()
		return ok
	case c == '{':
		p.i++
		return p.members('}', func() bool {
			if _, _, _, ok := p.str(); !ok {
				return false
			}
			p.space()
			if !p.eat(':') {
				return false
			}
			p.space()
			return p.value(depth + 1)
		})
	case c == '[':
		p.i++
		return p.members(']', func() bool { return p.value(depth + 1) })
	case c == 't':
		return p.lit("true")
	case c == 'f':
		return p.lit("false")
	case c == 'n':
		return p.lit("null")
	default:
		return p.number()
	}
}

func (p *scanner) lit(w string) bool {
	if len(p.b)-p.i >= len(w) && string(p.b[p.i:p.i+len(w)]) == w {
		p.i += len(w)
		return true
	}
	return false
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (p *scanner) number() bool {
	b := p.b
	digits := func() int {
		n := 0
		for p.i < len(b) && b[p.i] >= '0' && b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	p.eat('-')
	if p.i >= len(b) {
		return false
	}
	if b[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return false
	}
	if p.eat('.') && digits() == 0 {
		return false
	}
	if p.i < len(b) && (b[p.i] == 'e' || b[p.i] == 'E') {
		p.i++
		if !p.eat('+') {
			p.eat('-')
		}
		if digits() == 0 {
			return false
		}
	}
	return true
}
