package diagnose

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/internal/fuzzwatch"
)

// FuzzParseVerdicts: reading any answers JSONL never panics and takes
// bounded time; the verdicts it accepts, written back one object per line,
// read to the same (query id, correct) pairs in the same order.
func FuzzParseVerdicts(f *testing.F) {
	for _, s := range []string{
		"{\"qid\": \"q000\", \"correct\": true, \"answer\": \"Paris\"}\n{\"qid\": \"q001\", \"correct\": false}\n",
		"\xef\xbb\xbf{\"qid\": \"q\\u00e9\", \"correct\": true}\r\n\r\n",
		`{"qid": "q1", "correct": "yes"}`,
		`{"qid": "q1", "qid": "q2", "correct": true}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzwatch.Start(fuzzwatch.Bound)()
		vs, err := ParseVerdicts(bytes.NewReader(data), "answers.jsonl")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "answers.jsonl") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		var b bytes.Buffer
		for _, v := range vs {
			id, err := json.Marshal(v.QueryID)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "{\"qid\": %s, \"correct\": %t}\n", id, v.Correct)
		}
		back, err := ParseVerdicts(&b, "written")
		if err != nil {
			t.Fatalf("written back: %v\n%s", err, b.String())
		}
		if len(back) != len(vs) {
			t.Fatalf("%d verdicts, then %d", len(vs), len(back))
		}
		for i := range vs {
			if back[i].QueryID != vs[i].QueryID || back[i].Correct != vs[i].Correct {
				t.Fatalf("verdict %d: %+v, then %+v", i, vs[i], back[i])
			}
		}
	})
}
