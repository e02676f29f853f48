// Package jsonkey finds what encoding/json accepts silently in JSON text, so
// that ragbench's readers can refuse it with an error naming the place:
// repeated keys in objects (Repeated: encoding/json keeps the last value)
// and text it would rewrite to U+FFFD (Rewritten: invalid UTF-8, lone
// surrogate escapes); Clip is how such an error quotes a bad value.
package jsonkey

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Repeated returns the first key that occurs twice at the top level of the
// JSON object text (already decoded without error), or "" when no key
// repeats or text is not an object. encoding/json silently keeps the last
// value of a repeated key, and matches struct fields case-insensitively:
// with foldCase, keys equal but for case ("gold", "Gold") count as repeated
// (the key returned is the second spelling met).
func Repeated(text []byte, foldCase bool) string {
	dec := json.NewDecoder(bytes.NewReader(text))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		key, _ := tok.(string)
		k := key
		if foldCase {
			k = strings.ToLower(key)
		}
		if seen[k] {
			return key
		}
		seen[k] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return ""
		}
	}
	return ""
}
