package labels

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/spans"
)

var docs = []corpus.Document{
	{ID: "practices/naming", Text: "Name metrics in snake_case. Units go last: request_seconds."},
	{ID: "faq", Text: "Q: Can I pay weekly?\nA: Yes."},
}

func write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFixKeepsTheRest: repairs rewrite only their rows and their passages'
// keys; a byte order mark, CRLF line ends, blank lines, other keys and
// their order, and a group's other member stay as they were.
func TestFixKeepsTheRest(t *testing.T) {
	in := "\ufeff" + `{"id": "a", "gold_spans": [{"any_of": [{"text": "Units go  last:", "doc": "practices/naming"}, {"doc": "faq", "text": "A: Yes."}]}], "topic": "x"}` + "\r\n\r\n" +
		`{"id": "b", "gold_spans": [{"doc":"faq", "start": 0, "end": 2, "unit": "bytes", "text": "A: Yes."}]}` + "\r\n" +
		`{"id": "c", "gold_spans": [{"doc": "faq", "text": "Q:"}]}`
	path := write(t, "l.jsonl", in)
	r, err := Check(path, docs, DefaultOptions())
	if err != nil || len(r.Problems) != 2 || r.Groups != 1 || r.ExitCode() != ExitFixable {
		t.Fatalf("%v %v", err, r.Err())
	}
	f, err := Fix(r, docs, "", DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := "\ufeff" + `{"id": "a", "gold_spans": [{"any_of": [{"text": "Units go last:", "doc": "practices/naming"}, {"doc": "faq", "text": "A: Yes."}]}], "topic": "x"}` + "\r\n\r\n" +
		`{"id": "b", "gold_spans": [{"doc": "faq", "start": 21, "end": 28, "text": "A: Yes."}]}` + "\r\n" +
		`{"id": "c", "gold_spans": [{"doc": "faq", "text": "Q:"}]}`
	got, _ := os.ReadFile(path)
	if string(got) != want {
		t.Errorf("fixed:\n%q\nwant\n%q", got, want)
	}
	if b, _ := os.ReadFile(f.Backup); string(b) != in || len(f.Changes) != 2 || len(f.After.Problems) != 0 || !f.Recorded {
		t.Errorf("backup %q, changes %+v, after %v, recorded %v", b, f.Changes, f.After.Err(), f.Recorded)
	}
	if f2, err := Fix(r, docs, "", DefaultOptions()); err != nil || f2.Backup != path+".bak.1" {
		t.Errorf("second backup: %+v, %v", f2, err)
	}
}

// TestIDLabels: unknown ids are problems with the id meant (a sure repair
// for the one with its extension, renamed in a list and in an object of
// grades); grade-0 judgements are counted; chunk ids with no record are a
// warning; Chroma's CSV is not rewritten.
func TestIDLabels(t *testing.T) {
	path := write(t, "ids.jsonl", `{"id": "q1", "question": "x", "gold": ["practices/naming.md", "faq"]}
{"id": "q2", "question": "y", "gold": {"practices/naming.md": 2, "faq#0": 0, "fqa": 1}}
`)
	r, err := Check(path, docs, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Problems) != 3 || r.NotRelevant != 1 || r.Judged != 5 || len(r.ChunkIDs) != 1 || len(r.Warnings) != 1 {
		t.Fatalf("problems %v, not relevant %d, judged %d, chunk ids %v, warnings %v", r.Err(), r.NotRelevant, r.Judged, r.ChunkIDs, r.Warnings)
	}
	if p := r.Problems[1]; p.Doc != "fqa" || !strings.Contains(p.Hint, `the nearest doc id is "faq"`) || p.Repair != nil {
		t.Errorf("fqa: %+v", r.Problems[1])
	}
	if _, err := Fix(r, docs, filepath.Join(filepath.Dir(path), "out.jsonl"), DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(filepath.Dir(path), "out.jsonl"))
	want := `{"id": "q1", "question": "x", "gold": ["practices/naming", "faq"]}
{"id": "q2", "question": "y", "gold": {"practices/naming": 2, "faq#0": 0, "fqa": 1}}
`
	if string(got) != want {
		t.Errorf("fixed:\n%s\nwant\n%s", got, want)
	}
	csv := write(t, "q.csv", "question,references,corpus_id\nq,\"[{\"\"content\"\": \"\"A: Yes\"\", \"\"start_index\"\": 0, \"\"end_index\"\": 6}]\",faq\n")
	r, _ = Check(csv, docs, DefaultOptions())
	if _, err := Fix(r, docs, "", DefaultOptions()); err == nil || !strings.Contains(err.Error(), "not rewritten") || len(r.Problems) != 1 || r.Problems[0].Repair == nil {
		t.Errorf("csv: %v %v", err, r.Err())
	}
}

// FuzzRepairRow: a repair written into any row that reads as span labels
// leaves a JSON object with the same keys in the same order, every value
// but gold_spans byte for byte, and the passage repaired holding the
// repair's values.
func FuzzRepairRow(f *testing.F) {
	f.Add(`{"id": "a", "gold_spans": [{"doc": "d", "text": "x"}], "kind": "k"}`, 0, -1, 3, 9, "new")
	f.Add(`{"gold_spans": [{"any_of": [{"doc": "d", "text": "x"}, {"text": "y", "doc": "e", "unit": "bytes"}]}], "id": 1}`, 0, 1, 0, 1, "z")
	f.Fuzz(func(t *testing.T, row string, i, j, start, end int, text string) {
		obj, err := members([]byte(row))
		if err != nil || i < 0 || i > 3 || j < -1 || j > 3 || !utf8.ValidString(text) { // a repair's text is a document's: UTF-8
			return
		}
		rp := &spans.Repair{HasOffsets: true, Start: start, End: end, HasText: true, Text: text, Note: "n"}
		field := fmt.Sprintf("gold_spans[%d]", i)
		if j >= 0 {
			field += fmt.Sprintf(".any_of[%d]", j)
		}
		out, err := repairRow([]byte(row), []spans.Problem{{Field: field, Repair: rp}})
		if err != nil {
			return
		}
		got, err := members(out)
		if err != nil || len(got) != len(obj) {
			t.Fatalf("%s → %s: %v", row, out, err)
		}
		for k := range got {
			if got[k].key != obj[k].key || got[k].key != "gold_spans" && !bytes.Equal(got[k].raw, obj[k].raw) {
				t.Fatalf("%s → %s: member %d changed", row, out, k)
			}
		}
		var check []map[string]json.RawMessage
		raw, _ := got.get("gold_spans")
		if json.Unmarshal(raw, &check) != nil {
			t.Fatalf("gold_spans no longer a list of objects: %s", raw)
		}
		target := check[i]
		if j >= 0 {
			var ms []map[string]json.RawMessage
			if json.Unmarshal(target["any_of"], &ms) != nil {
				t.Fatalf("any_of: %s", target["any_of"])
			}
			target = ms[j]
		}
		var s string
		if json.Unmarshal(target["text"], &s) != nil || s != text || string(target["start"]) != fmt.Sprint(start) || target["unit"] != nil {
			t.Fatalf("repaired passage %v", target)
		}
	})
}
