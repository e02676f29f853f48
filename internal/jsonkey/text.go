package jsonkey

import (
	"strconv"
	"unicode/utf8"
)

// Rewritten returns the offset of the first byte of the JSON text data that
// encoding/json would silently rewrite to U+FFFD when decoding: a byte that
// is not valid UTF-8 (anywhere), or a \uXXXX escape of a lone UTF-16
// surrogate inside a string (the offset of its backslash). It returns -1
// when there is none. A reader that must keep strings exact (ids) refuses
// such text instead of decoding it. Malformed escapes are left to the JSON
// decoder to report.
func Rewritten(data []byte) int {
	if !utf8.Valid(data) {
		for i := 0; i < len(data); {
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n <= 1 {
				return i
			}
			i += n
		}
	}
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case !inString:
			inString = c == '"'
		case c == '"':
			inString = false
		case c == '\\' && i+1 < len(data):
			i++
			if data[i] != 'u' {
				continue
			}
			r, ok := hex4(data[i+1:])
			if !ok {
				continue // malformed: the JSON decoder reports it
			}
			switch {
			case r >= 0xdc00 && r <= 0xdfff: // low surrogate first
				return i - 1
			case r >= 0xd800 && r <= 0xdbff:
				lo, ok := rune(0), false
				if i+6 < len(data) && data[i+5] == '\\' && data[i+6] == 'u' {
					lo, ok = hex4(data[i+7:])
				}
				if !ok || lo < 0xdc00 || lo > 0xdfff {
					return i - 1
				}
				i += 10 // the pair: uXXXX\uXXXX
			default:
				i += 4
			}
		}
	}
	return -1
}

// hex4 reads the 4 hex digits at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[:4]), 16, 32)
	return rune(v), err == nil
}

// Clip is the JSON value raw as a reader quotes it in an error message: its
// bytes unchanged up to 40, else the first 37 and "...". The readers of
// labelled queries (eval) and of passage runs (passages) share it, so that a
// bad value reads the same in both.
func Clip(raw []byte) string {
	if len(raw) > 40 {
		return string(raw[:37]) + "..."
	}
	return string(raw)
}
