package eval

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadQueryTexts: a BEIR queries.jsonl reads as id → text (BOM, CR,
// blank lines, extra keys, an integer id kept as written, a missing text
// as ""); what JSON decoding would change silently is an error naming
// file, line and field, as in the qrels readers.
func TestReadQueryTexts(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "queries.jsonl")
	os.WriteFile(good, []byte("\ufeff{\"_id\": \"q1\", \"text\": \"héllo\", \"metadata\": {}}\r\n\n{\"_id\": 12345678901234567890, \"text\": \"big\"}\n{\"_id\": \"q3\"}\n"), 0o644)
	got, err := ReadQueryTexts(good)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"q1": "héllo", "12345678901234567890": "big", "q3": ""}
	if !maps.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, tc := range []struct{ name, text, want string }{
		{"invalid UTF-8 in an id", "{\"_id\": \"q1\", \"text\": \"a\"}\n{\"_id\": \"q\xff\", \"text\": \"b\"}\n", ":2: json: column 11: invalid UTF-8 (byte 0xff)"},
		{"invalid UTF-8 in a text", "{\"_id\": \"q1\", \"text\": \"\xc3\"}\n", ":1: json: column 24: invalid UTF-8 (byte 0xc3)"},
		{"lone surrogate", "{\"_id\": \"q\\udc00\", \"text\": \"b\"}\n", ":1: json: column 11: a lone UTF-16 surrogate \\udc00"},
		{"key twice", "{\"_id\": \"q1\", \"text\": \"a\", \"text\": \"b\"}\n", ":1: text: key given twice in one object"},
		{"id twice", "{\"_id\": \"q1\", \"text\": \"a\"}\n{\"_id\": \"q2\"}\n{\"_id\": \"q1\", \"text\": \"b\"}\n", ":3: _id: query \"q1\" given twice (first on line 1)"},
		{"no _id", "{\"id\": \"q1\", \"text\": \"a\"}\n", ":1: _id: missing"},
		{"empty _id", "{\"_id\": \"\", \"text\": \"a\"}\n", ":1: _id: must be a non-empty string or an integer, got \"\""},
		{"text not a string", "{\"_id\": \"q1\", \"text\": 3}\n", ":1: text: must be a string, got 3"},
		{"not an object", "q1\teiffel\n", ":1: json: want one JSON object per line"},
		{"two objects", "{\"_id\": \"q1\"} {\"_id\": \"q2\"}\n", ":1: json: unexpected data after the object"},
		{"cut short", "{\"_id\": \"q1\", \"te\n", ":1: json: invalid JSON"},
	} {
		p := filepath.Join(dir, "bad.jsonl")
		os.WriteFile(p, []byte(tc.text), 0o644)
		_, err := ReadQueryTexts(p)
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), p+tc.want) {
			t.Errorf("%s: error %v, want a *SyntaxError containing %q", tc.name, err, p+tc.want)
		}
	}
}

// TestReadQueryTextsLongLine: a line over the 64 MiB limit is an error
// naming the file, the line and the limit (it was bufio's "token too
// long").
func TestReadQueryTextsLongLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "queries.jsonl")
	long := "{\"_id\": \"q2\", \"text\": \"" + strings.Repeat("x", 64<<20) + "\"}\n"
	os.WriteFile(p, []byte("{\"_id\": \"q1\", \"text\": \"a\"}\n"+long), 0o644)
	_, err := ReadQueryTexts(p)
	want := p + ":2: line longer than 67108864 bytes (64 MiB), the longest line this reader takes"
	var se *SyntaxError
	if !errors.As(err, &se) || err.Error() != want {
		t.Errorf("error %v, want a *SyntaxError %q", err, want)
	}
}
