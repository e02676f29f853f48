package jsonkey

import "testing"

// TestRepeated: hand-written objects; only top-level keys count, and case
// folding only when asked.
func TestRepeated(t *testing.T) {
	for _, c := range []struct {
		text     string
		foldCase bool
		want     string
	}{
		{`{"a": 1, "b": 2}`, false, ""},
		{`{"a": 1, "b": 2, "a": 3}`, false, "a"},
		{`{"a": {"x": 1, "x": 2}, "b": 2}`, false, ""}, // nested repeats are not top level
		{`{"gold": 1, "Gold": 2}`, false, ""},
		{`{"gold": 1, "Gold": 2}`, true, "Gold"},
		{`{"q": [1, {"a": 1}], "q": null}`, true, "q"},
		{`null`, false, ""},
		{`[1, 1]`, false, ""},
	} {
		if got := Repeated([]byte(c.text), c.foldCase); got != c.want {
			t.Errorf("Repeated(%s, %v) = %q, want %q", c.text, c.foldCase, got, c.want)
		}
	}
}
