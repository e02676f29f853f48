package diagnose

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseVerdicts(t *testing.T) {
	in := "\ufeff{\"qid\": \"q000\", \"correct\": true}\r\n\r\n{\"qid\": \"q001\", \"correct\": false, \"answer\": \"x\"}"
	got, err := ParseVerdicts(strings.NewReader(in), "a.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := []Verdict{{QueryID: "q000", Correct: true, Line: 1}, {QueryID: "q001", Correct: false, Line: 3}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParseVerdictsErrors(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"empty file", "", `a.jsonl: no verdicts (empty answers file); want one JSON object per line, e.g. {"qid": "q000", "correct": true}`},
		{"blank lines only", "\n  \n\r\n", `a.jsonl: no verdicts (empty answers file)`},
		{"duplicate", `{"qid":"q1","correct":true}` + "\n" + `{"qid":"q2","correct":true}` + "\n" + `{"qid":"q1","correct":false}`,
			`a.jsonl:3: qid: duplicate verdict for query "q1" (first on line 1)`},
		{"string correct", `{"qid":"q1","correct":"yes"}`, `a.jsonl:1: correct: query "q1": want true or false, got "yes"`},
		{"numeric correct", `{"qid":"q1","correct":1}`, `a.jsonl:1: correct: query "q1": want true or false, got 1`},
		{"null correct", `{"qid":"q1","correct":null}`, `a.jsonl:1: correct: query "q1": want true or false, got null`},
		{"missing correct", `{"qid":"q1"}`, `a.jsonl:1: correct: missing for query "q1"`},
		{"missing qid", `{"id":"q1","correct":true}`, `a.jsonl:1: qid: missing`},
		{"numeric qid", `{"qid":7,"correct":true}`, `a.jsonl:1: qid: want a string, got 7`},
		{"empty qid", `{"qid":" ","correct":true}`, `a.jsonl:1: qid: empty`},
		{"not JSON", `{"qid":"q1"` + "\nqid=q2", `a.jsonl:1: not a JSON object`},
		{"JSON array", `["q1", true]`, `a.jsonl:1: not a JSON object`},
		// encoding/json keeps the last of two equal keys: the verdict would
		// silently be false here.
		{"correct twice", `{"qid":"q1","correct":true,"correct":false}`, `a.jsonl:1: correct: key given twice in one object`},
		{"qid twice", `{"qid":"q1","correct":true,"qid":"q2"}`, `a.jsonl:1: qid: key given twice in one object`},
	}
	for _, c := range cases {
		_, err := ParseVerdicts(strings.NewReader(c.in), "a.jsonl")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: err = %v\nwant prefix %s", c.name, err, c.want)
		}
	}
}

func TestReadVerdictsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "answers.jsonl")
	os.WriteFile(path, []byte(`{"qid":"a","correct":false}`+"\n"), 0o644)
	got, err := ReadVerdicts(path)
	if err != nil || len(got) != 1 || got[0].QueryID != "a" || got[0].Correct {
		t.Errorf("got %v, %v", got, err)
	}
	if _, err := ReadVerdicts(filepath.Join(t.TempDir(), "missing.jsonl")); err == nil {
		t.Error("missing file accepted")
	}
}

// TestVerdictInvalidUTF8: a qid holding invalid UTF-8 or a lone surrogate
// escape is refused, naming file and line; encoding/json rewrote it to
// U+FFFD, so that it no longer matched the run's (byte-exact) id.
func TestVerdictInvalidUTF8(t *testing.T) {
	for _, text := range []string{
		"{\"qid\": \"q0\", \"correct\": true}\n{\"qid\": \"q\xff\", \"correct\": true}\n",
		"{\"qid\": \"q0\", \"correct\": true}\n{\"qid\": \"q\\udc00\", \"correct\": true}\n",
	} {
		_, err := ParseVerdicts(strings.NewReader(text), "answers.jsonl")
		if err == nil || !strings.HasPrefix(err.Error(), "answers.jsonl:2: qid: ") || !strings.Contains(err.Error(), "U+FFFD") {
			t.Errorf("%q: %v; want an error on line 2, field qid", text, err)
		}
	}
}
