package corpus

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/internal/testenv"
)

// fastCases are corpus lines the fast path must read as parseJSONLine does,
// or leave to it: escapes, repeats, nesting, numbers, bad syntax, invalid
// UTF-8, ids of every kind.
var fastCases = []string{
	`{"_id": "d1", "title": "T", "text": "hello world"}`,
	`{"_id":"d1","text":""}`,
	`  {"text": "x", "_id": "d2", "metadata": {"a": [1, -2.5e+3, true, false, null, {"b": "c"}], "u": "\u00e9"}}  `,
	`{"id": "d3", "text": "plain jsonl"}`,
	`{"_id": "d4", "id": "d4", "text": "both equal"}`,
	`{"_id": "d4", "id": "d5", "text": "both differ"}`,
	`{"_id": "d6", "title": "esc \"q\" \\ \/ \b\f\n\r\t \u00e9 \ud83d\ude00", "text": "a\u0000b"}`,
	`{"_id": "d7", "title": "lone \ud800", "text": "bad \xff byte"}`,
	`{"_id": "d\u0038", "text": "escaped id"}`,
	`{"_id": "d9 x", "text": "space in id"}`,
	`{"_id": "", "text": "empty id"}`,
	`{"_id": "é1", "text": "non-ASCII id"}`,
	`{"_id": "\xff", "text": "bad id"}`,
	`{"_id": 12, "text": "number id"}`,
	`{"_id": 1.5e3, "text": "number id"}`,
	`{"_id": "d10", "text": 3}`,
	`{"_id": "d11", "text": null}`,
	`{"_id": "d12", "title": null, "text": "t"}`,
	`{"_id": "d13"}`,
	`{"_id": "d14", "text": "a", "text": "b"}`,
	`{"_id": "d15", "x": 1, "x": 2, "text": "b"}`,
	`{"_id": "d16", "te\u0078t": "escaped key"}`,
	`{"_id": "d17", "text": "a"} x`,
	`{"_id": "d18", "text": "a",}`,
	`{"_id": "d19" "text": "a"}`,
	`{"_id": "d20", "text": "a\x01"}`,
	`{"_id": "d21", "text": "a\q"}`,
	`{"_id": "d22", "text": "a\u12"}`,
	`{"_id": "d23", "n": 01, "text": "a"}`,
	`{"_id": "d24", "n": -, "text": "a"}`,
	`{"_id": "d25", "n": 1., "text": "a"}`,
	`{"_id": "d26", "n": [1, 2,], "text": "a"}`,
	`{"_id": "d27", "n": tru, "text": "a"}`,
	`{"_id": "d28", "n": {"a" 1}, "text": "a"}`,
	`{"_id": "d29", "t\xffx": 1, "t\xfex": 2, "text": "a"}`,
	`{"_id": "d30", "a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8, "text": "many keys"}`,
	`{}`,
	`[]`,
	`"s"`,
	`{"_id": "d31", "text": "unterminated`,
	`{"_id": "d32", "text": "tab	raw"}`,
	`{"_id": "d33", "text": "a\u2028b ` + "\u00a0" + `"}`,
	`{"_id":"d34","Text":"case"}`,
	`{"_id": "d35", "n": ` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `, "text": "deep"}`,
	`{"_id": "d36", "n": ` + strings.Repeat("[", 60) + strings.Repeat("]", 60) + `, "text": "nested"}`,
	"{\"_id\": \"d37\", \"title\": \"bad \xff\xfe byte\", \"text\": \"ok \xc3\xa9\"}",
	"{\"_id\": \"d38\xff\", \"text\": \"bad id byte\"}",
	"{\"_id\": \"d39\", \"t\xffx\": 1, \"t\xfex\": 2, \"text\": \"keys equal once decoded\"}",
}

// TestFastDocAgrees: wherever the fast path reads a line, parseJSONLine
// reads the same document without error (it is the reference); the plain
// cases do take the fast path.
func TestFastDocAgrees(t *testing.T) {
	fast := 0
	for _, c := range fastCases {
		checkFast(t, []byte(c))
		if _, ok := fastDoc([]byte(c), &arena{}); ok {
			fast++
		}
	}
	if fast < 8 {
		t.Errorf("fast path took %d of %d lines, want the plain ones", fast, len(fastCases))
	}
	if _, ok := fastDoc([]byte(fastCases[0]), &arena{}); !ok {
		t.Errorf("plain line %s left to the slow path", fastCases[0])
	}
}

func checkFast(t *testing.T, line []byte) {
	t.Helper()
	got, ok := fastDoc(bytes.Clone(line), &arena{})
	if !ok {
		return
	}
	want, err := parseJSONLine("c.jsonl", 1, line)
	if err != nil {
		t.Fatalf("fast path accepted %q, parseJSONLine refuses it: %v", line, err)
	}
	if got != want {
		t.Fatalf("line %q: fast path %+v, parseJSONLine %+v", line, got, want)
	}
}

// FuzzFastDoc: the fast path never accepts what parseJSONLine refuses,
// and reads what it accepts the same way.
func FuzzFastDoc(f *testing.F) {
	for _, c := range fastCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkFast(t, line)
	})
}

// TestCountFields: countFields is len(strings.Fields).
func TestCountFields(t *testing.T) {
	for _, s := range []string{"", " ", "a", " a ", "a b\tc\nd\ve\ff\rg", "a\u00a0b\u0085c\u2028d\u3000e", "\xff \xfe", "é  ü", "x\u200by"} {
		if got, want := countFields(s), len(strings.Fields(s)); got != want {
			t.Errorf("countFields(%q) = %d, want %d", s, got, want)
		}
	}
}

// TestFastDocSharedCorpora: every line of the shared SciFact and Cranfield
// corpora reads the same through Load (fast path) as through the
// encoding/json path alone (parseJSONLine), and the fast path takes them
// all (their values are plain strings).
func TestFastDocSharedCorpora(t *testing.T) {
	for _, name := range []string{"scifact", "cranfield"} {
		path := filepath.Join(testenv.Shared(t, "datasets/"+name), "corpus.jsonl")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var want []Document
		slow := 0
		for i, line := range bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n")) {
			d, err := parseJSONLine(path, i+1, line)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, d)
			if _, ok := fastDoc(line, &arena{}); !ok {
				slow++
			}
		}
		got, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: Load's documents differ from parseJSONLine's", name)
		}
		if Hash(got) != Hash(want) {
			t.Errorf("%s: hash differs", name)
		}
		if slow > 0 {
			t.Logf("%s: %d of %d lines left to the encoding/json path", name, slow, len(want))
		}
	}
}
