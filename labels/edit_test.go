package labels

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/anchor"
	"github.com/ragbench/ragbench/corpus"
)

// TestFileRoundTrip: a file read and written unedited is the same bytes (a
// byte order mark, CRLF, a blank line, a row that does not read, no final
// line end).
func TestFileRoundTrip(t *testing.T) {
	in := "\ufeff" + `{"id": "a", "gold_spans": [{"any_of": [{"text": "Units go last:", "doc": "practices/naming"}, {"doc": "faq", "text": "A: Yes."}]}], "topic": "x"}` + "\r\n\r\n" +
		`{"id": "b", "gold_spans": [{"doc":"faq", "start": 21, "end": 28, "unit": "code_points"}]}` + "\r\n" +
		`{"id": "bad", "gold_spans": 3}` + "\r\n" +
		`{"id": "c", "question": "q?", "gold_spans": [], "kind": "k"}`
	f, err := ReadFile(write(t, "l.jsonl", in))
	if err != nil {
		t.Fatal(err)
	}
	if f.ReadErr == nil || !strings.Contains(f.ReadErr.Error(), "l.jsonl:4: gold_spans") {
		t.Errorf("read error %v, want line 4's", f.ReadErr)
	}
	got, err := f.Bytes()
	if err != nil || string(got) != in {
		t.Fatalf("unedited:\n%q\nwant\n%q (%v)", got, in, err)
	}
	if rows := f.Rows(); len(rows) != 3 || rows[0].Line != 1 || rows[1].Line != 3 || rows[2].Line != 5 || rows[2].Slice != "k" {
		t.Errorf("rows %+v", rows)
	}
}

// TestFileEdit: an edited row keeps its other keys in their order and its
// untouched passages as written; a grade change rewrites that passage's
// grade only; a new passage is written with its text and context; a new
// row goes at the end in the file's line end; the rest is byte for byte.
// After Saved, the same content compares as unedited.
func TestFileEdit(t *testing.T) {
	in := `{"id": "a", "gold_spans": [{"doc": "faq", "text": "A: Yes."}], "topic": "x", "question": "pay?"}` + "\r\n" +
		`{"id": "b", "gold_spans": [{"doc":"faq", "start": 0, "end": 2}]}` + "\r\n"
	path := write(t, "l.jsonl", in)
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := f.Row("a")
	d := anchor.NewDoc("practices/naming", docs[0].Text)
	p, err := NewPassage(d, 28, 37, 2, 0)
	if err != nil || p.Text != "Units go " || p.Prefix != "Name metrics in snake_case. " || p.Suffix != "last: request_seconds." {
		t.Fatalf("%+v %v", p, err)
	}
	ps := a.Passages()
	ps[0].Grade = 3
	a.SetPassages(append(ps, p))
	a.Note, a.Slice = "checked <twice> & more", "plain"
	n, err := f.AddRow("new", "a new one")
	if err != nil {
		t.Fatal(err)
	}
	n.Unanswerable = true
	got, err := f.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id": "a", "gold_spans": [{"doc": "faq", "text": "A: Yes.", "grade": 3}, {"doc": "practices/naming", "start": 28, "end": 37, "text": "Units go ", "prefix": "Name metrics in snake_case. ", "suffix": "last: request_seconds.", "grade": 2}], "topic": "x", "question": "pay?", "kind": "plain", "note": "checked <twice> & more"}` + "\r\n" +
		`{"id": "b", "gold_spans": [{"doc":"faq", "start": 0, "end": 2}]}` + "\r\n" +
		`{"id": "new", "question": "a new one", "gold_spans": [], "unanswerable": true}` + "\r\n"
	if string(got) != want {
		t.Fatalf("edited:\n%s\nwant\n%s", got, want)
	}
	c, err := f.Check(docs, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if len(c.Problems) != 0 || c.Queries != 3 || c.Unanswerable != 1 {
		t.Errorf("check: %v, %d queries, %d unanswerable", c.Err(), c.Queries, c.Unanswerable)
	}
	if ps := a.Passages(); !ps[0].Placed || ps[0].Start != 21 || ps[0].End != 28 || ps[1].Field != "gold_spans[1]" {
		t.Errorf("placed %+v", ps)
	}
	if err := f.Saved(); err != nil {
		t.Fatal(err)
	}
	for _, r := range f.Rows() {
		if r.Edited() {
			t.Errorf("row %s edited after Saved", r.ID)
		}
	}
	if again, _ := f.Bytes(); string(again) != want {
		t.Errorf("after Saved:\n%s", again)
	}
	n.Unanswerable = false
	n.Question = "renamed"
	a.Note = ""
	if again, _ := f.Bytes(); !strings.HasSuffix(string(again), `{"id": "new", "question": "renamed", "gold_spans": []}`+"\r\n") || strings.Contains(string(again), "note") {
		t.Errorf("after a second edit:\n%s", again)
	}
	if f.DeleteRow("b"); strings.Contains(mustBytes(t, f), `"b"`) {
		t.Error("row b not deleted")
	}
}

func mustBytes(t *testing.T, f *File) string {
	t.Helper()
	b, err := f.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFileGroupsAndRefusals: passages given one group number are written
// as {"any_of": [...]} where the first stands (a group of one is a
// required passage); a row marked unanswerable with a relevant passage,
// a passage outside its document, grade 0 in a group, a duplicate id are
// refused.
func TestFileGroupsAndRefusals(t *testing.T) {
	f, err := ReadFile(filepath.Join(t.TempDir(), "new.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	d := anchor.NewDoc("faq", docs[1].Text)
	r, _ := f.AddRow("q", "weekly?")
	p1, _ := NewPassage(d, 0, 2, 1, 1)
	p2, _ := NewPassage(d, 21, 23, 1, 0)
	p3, _ := NewPassage(d, 24, 28, 2, 1)
	p4, _ := NewPassage(d, 3, 6, 1, 2)
	r.SetPassages([]Passage{p1, p2, p3, p4})
	got := mustBytes(t, f)
	want := `{"id": "q", "question": "weekly?", "gold_spans": [{"any_of": [{"doc": "faq", "start": 0, "end": 2, "text": "Q:", "suffix": " Can I pay weekly?\nA: Yes.", "grade": 1}, ` +
		`{"doc": "faq", "start": 24, "end": 28, "text": "Yes.", "prefix": "Q: Can I pay weekly?\nA: ", "grade": 2}]}, ` +
		`{"doc": "faq", "start": 21, "end": 23, "text": "A:", "prefix": "Q: Can I pay weekly?\n", "suffix": " Yes.", "grade": 1}, ` +
		`{"doc": "faq", "start": 3, "end": 6, "text": "Can", "prefix": "Q: ", "suffix": " I pay weekly?\nA: Yes.", "grade": 1}]}` + "\n"
	if got != want {
		t.Errorf("groups:\n%s\nwant\n%s", got, want)
	}
	path := write(t, "g.jsonl", got)
	c, err := Check(path, []corpus.Document{docs[1]}, DefaultOptions())
	if err != nil || len(c.Problems) != 0 || c.Groups != 1 {
		t.Errorf("the groups written do not check: %v, %d groups", c.Err(), c.Groups)
	}
	r.Unanswerable = true
	if _, err := f.Bytes(); err == nil || !strings.Contains(err.Error(), "marked unanswerable") {
		t.Errorf("unanswerable with gold: %v", err)
	}
	for _, c := range [][4]int{{5, 5, 1, 0}, {0, 99, 1, 0}, {-1, 2, 1, 0}, {0, 2, 0, 1}, {0, 2, -1, 0}} {
		if _, err := NewPassage(d, c[0], c[1], c[2], c[3]); err == nil {
			t.Errorf("NewPassage%v: no error", c)
		}
	}
	if _, err := f.AddRow("q", "again"); err == nil {
		t.Error("duplicate id added")
	}
	if _, err := f.AddRow("", "x"); err == nil {
		t.Error("empty id added")
	}
	if _, err := ReadFile(write(t, "q.csv", "question,references,corpus_id\n")); err == nil {
		t.Error("a Chroma CSV was read for editing")
	}
	if _, err := os.Stat(f.Path); err == nil {
		t.Error("Bytes wrote the file")
	}
}

// FuzzFileRoundTrip: any file ReadFile takes is written back byte for byte
// when nothing is edited; a note set on each row then leaves every other
// member of the row as it was, and the file still reads, row for row.
func FuzzFileRoundTrip(f *testing.F) {
	f.Add("\ufeff" + `{"id": "a", "gold_spans": [{"any_of": [{"text": "x", "doc": "d"}, {"doc": "e", "text": "y"}]}], "topic": "x"}` + "\r\n\r\n" + `{"id": "b", "gold_spans": []}`)
	f.Add(`{"id": 1, "text": "q", "gold_spans": [{"doc": "d", "start": 0, "end": 2, "unit": "bytes", "grade": 0}], "slice": "s", "note": 3}` + "\n" + `{"bad`)
	f.Fuzz(func(t *testing.T, content string) {
		path := filepath.Join(t.TempDir(), "l.jsonl")
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		file, err := ReadFile(path)
		if err != nil {
			return
		}
		got, err := file.Bytes()
		if err != nil || string(got) != content && !(len(file.Rows()) == 0 && file.ReadErr == nil) {
			t.Fatalf("unedited: %q → %q (%v)", content, got, err)
		}
		for _, r := range file.Rows() {
			r.Note = "checked"
		}
		edited, err := file.Bytes()
		if err != nil {
			return // a row marked unanswerable with a relevant passage is refused
		}
		if err := os.WriteFile(path, edited, 0o644); err != nil {
			t.Fatal(err)
		}
		again, err := ReadFile(path)
		if err != nil || len(again.Rows()) != len(file.Rows()) {
			t.Fatalf("%q → %q: %v", content, edited, err)
		}
		for i, r := range again.Rows() {
			want := file.Rows()[i]
			if r.ID != want.ID || r.Note != "checked" || r.Question != want.Question || r.Slice != want.Slice || len(r.Passages()) != len(want.Passages()) {
				t.Fatalf("row %d: %+v, want %+v", i, r, want)
			}
		}
	})
}
