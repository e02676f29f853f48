package jsonkey

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRewritten: the offsets are those of the bytes encoding/json turns
// into U+FFFD (checked against encoding/json itself: what Rewritten
// passes decodes to a string without U+FFFD, what it flags with one).
func TestRewritten(t *testing.T) {
	for _, c := range []struct {
		text string
		want int
	}{
		{`"abc"`, -1},
		{`"a\u00e9\ud83d\ude00"`, -1},
		{`"a\\ud800"`, -1}, // an escaped backslash, then text
		{"\"a\xffb\"", 2},
		{"\"\xe2\x82\"", 1},
		{`"ab\udc00"`, 3},
		{`"ab\ud800x"`, 3},
		{`"ab\ud800\u0041"`, 3},
		{`{"k": "\ud800"}`, 7},
	} {
		if got := Rewritten([]byte(c.text)); got != c.want {
			t.Errorf("Rewritten(%q) = %d, want %d", c.text, got, c.want)
		}
		var v any
		if json.Unmarshal([]byte(c.text), &v) != nil {
			t.Fatalf("%q: not JSON", c.text)
		}
		s := v
		if m, ok := v.(map[string]any); ok {
			s = m["k"]
		}
		if hasFFFD := strings.ContainsRune(s.(string), '\uFFFD'); hasFFFD != (c.want >= 0) {
			t.Errorf("%q: encoding/json gives U+FFFD: %v; Rewritten says %d", c.text, hasFFFD, c.want)
		}
	}
}

// TestClip: a value of 40 bytes stays whole; a longer one keeps its first 37
// bytes and "...", 40 in all.
func TestClip(t *testing.T) {
	v40 := strings.Repeat("a", 40)
	if got := Clip([]byte(v40)); got != v40 {
		t.Errorf("Clip(40 bytes) = %q, want it unchanged", got)
	}
	if got, want := Clip([]byte(v40+"b")), strings.Repeat("a", 37)+"..."; got != want {
		t.Errorf("Clip(41 bytes) = %q, want %q", got, want)
	}
}
