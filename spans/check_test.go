package spans

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ragbench/ragbench/anchor"
	"github.com/ragbench/ragbench/corpus"
)

// checkDocs: act holds "Rent is due monthly." twice (the second followed
// by " unless agreed."), a curly apostrophe at code point 80 (3 bytes), 88
// code points in all.
var checkDocs = []corpus.Document{
	{ID: "act", Text: "Section 1. Rent is due monthly. Section 2. Rent is due monthly unless agreed. It’s late."},
	{ID: "faq", Text: "Q: Can I pay weekly?\nA: Yes."},
}

// TestCheckProblems: every kind of wrong label in one file gives its
// problem, in file order, each with its hint and, when certain, its repair;
// the good labels are placed.
func TestCheckProblems(t *testing.T) {
	rows := []string{
		`{"id": "ws", "gold_spans": [{"doc": "act", "text": "Rent is due\n monthly unless"}]}`,
		`{"id": "curly", "gold_spans": [{"doc": "act", "text": "It's late."}]}`,
		`{"id": "ext", "gold_spans": [{"doc": "act.md", "text": "It’s late."}]}`,
		`{"id": "dup", "gold_spans": [{"doc": "act", "text": "Rent is due monthly"}]}`,
		`{"id": "end", "gold_spans": [{"doc": "act", "start": 78, "end": 99, "text": "It’s late."}]}`,
		`{"id": "nodoc", "gold_spans": [{"doc": "lease", "text": "Can I pay weekly?"}]}`,
		`{"id": "edited", "gold_spans": [{"doc": "act", "start": 43, "end": 77, "text": "Rent is due weekly unless agreed."}]}`,
		`{"id": "empty", "gold_spans": [{"doc": "act", "start": 32, "end": 42, "text": ""}]}`,
		`{"id": "moved", "gold_spans": [{"doc": "act", "start": 0, "end": 10, "text": "Section 2.", "prefix": "monthly. "}]}`,
		`{"id": "lost", "gold_spans": [{"doc": "faq", "text": "Deposits are returned within thirty days."}]}`,
		`{"id": "good", "gold_spans": [{"doc": "faq", "text": "A: Yes.", "grade": 2}, {"doc": "act", "start": 0, "end": 10, "grade": 0}]}`,
	}
	c, err := CheckJSONL(strings.NewReader(strings.Join(rows, "\n")+"\n"), "l.jsonl", checkDocs, DefaultCheckOptions())
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		line          int
		msg, hint     string
		status        string // "" when not an anchoring problem
		repairNote    string
		doc, text     string
		start, end    int
		offsets, sure bool
	}
	wants := []want{
		{line: 1, msg: `doc "act": text "Rent is due\n monthly unless" not found in the document`, hint: `found with different white space at act:1:44 [43, 69): "Rent is due monthly unless"`, status: "changed",
			repairNote: "text → the document's spelling (white space)", text: "Rent is due monthly unless", sure: true},
		{line: 2, msg: `text "It's late." not found`, hint: `found with different quote marks at act:1:79 [78, 88)`, status: "changed", text: "It’s late.", sure: true, repairNote: "text → the document's spelling (quote marks)"},
		{line: 3, msg: `doc "act.md": no such document in the corpus`, hint: `the corpus has "act" (doc ids are file paths`, status: "lost", doc: "act", sure: true, repairNote: `doc "act.md" → "act"`},
		{line: 4, msg: `doc "act": text "Rent is due monthly" found more than once, at act:1:12, act:1:44 (code points 11, 43)`, status: "changed"},
		{line: 5, msg: `doc "act": span [78, 99) outside the document (0 to 88 code points), or empty`, hint: `the text is at act:1:79 [78, 88)`, offsets: true, start: 78, end: 88, sure: true, repairNote: "offsets [78, 99) → [78, 88)"},
		{line: 6, msg: `doc "lease": no such document in the corpus`, hint: `its text is in doc "faq" at faq:1:4`, status: "lost"},
		// 85%: 1 − 5/33, Levenshtein("weekly", "monthly") = 5 (Python, by hand)
		{line: 7, msg: `doc "act": text differs from the document at [43, 77) code points (the corpus changed since labelling?): label "Rent is due weekly unless agreed.", document "Rent is due monthly unless agreed."`,
			hint: `changed: the nearest passage, 85% similar, is at act:1:44 [43, 77): "Rent is due monthly unless agreed."; check it and correct the label by hand`, status: "changed"},
		{line: 8, msg: `doc "act": text is empty`, hint: `the document has "Section 2." there`, text: "Section 2.", sure: true, repairNote: "text filled from the document at [32, 42)"},
		{line: 9, msg: `doc "act": text differs from the document at [0, 10) code points`, hint: `moved: the same text is now at act:1:33 [32, 42)`, status: "moved", offsets: true, start: 32, end: 42, sure: true, repairNote: "offsets [0, 10) → [32, 42)"},
		{line: 10, msg: `doc "faq": text "Deposits are returned within thirty days." not found in the document`, hint: `lost: no passage of the document is 75% similar to it (the nearest: `, status: "lost"},
	}
	if len(c.Problems) != len(wants) {
		for _, p := range c.Problems {
			t.Log(p.Error("l.jsonl"))
		}
		t.Fatalf("%d problems, want %d", len(c.Problems), len(wants))
	}
	for i, w := range wants {
		p := c.Problems[i]
		status := ""
		if p.Anchored {
			status = p.Status.String()
		}
		if p.Line != w.line || !strings.Contains(p.Msg, w.msg) || !strings.Contains(p.Hint, w.hint) || status != w.status || (p.Repair != nil) != w.sure {
			t.Errorf("problem %d: %s (status %q, repair %+v)\nwant line %d, %q, hint %q, status %q, repair %v", i, p.Error("l.jsonl"), status, p.Repair, w.line, w.msg, w.hint, w.status, w.sure)
			continue
		}
		if r := p.Repair; r != nil && (r.Doc != w.doc || r.HasOffsets != w.offsets || r.Start != w.start || r.End != w.end || r.Text != w.text || r.Note != w.repairNote) {
			t.Errorf("problem %d: repair %+v, want %+v", i, *r, w)
		}
	}
	if r := c.Problems[8].Repair; !r.HasContext || r.Prefix != "monthly. " || r.Suffix != "" {
		t.Errorf("moved: context not renewed: %+v", r)
	}
	// Statuses of the labels giving their text: good's "A: Yes."
	// unchanged; moved, and end (its text is at one place, not at its
	// offsets) moved; ws, curly, dup, edited changed; lost, and ext and
	// nodoc (no such document) lost. The empty text counts in none.
	if want := [4]int{1, 2, 4, 3}; c.Status != want {
		t.Errorf("statuses %v, want %v", c.Status, want)
	}
	good := c.Queries[len(c.Queries)-1]
	if len(good.Gold) != 1 || good.Gold[0].Grade != 2 || len(good.NonRelevant) != 1 || good.NonRelevant[0].Text != "Section 1." || c.NoText != 1 {
		t.Errorf("good: %+v, no text %d", good, c.NoText)
	}
	err = c.Err()
	if err == nil || len(err.(interface{ Unwrap() []error }).Unwrap()) != len(wants) || !strings.HasPrefix(err.Error(), "l.jsonl:1: gold_spans[0]: query \"ws\": doc \"act\"") {
		t.Errorf("Err: %v", err)
	}
}

// TestCheckAcceptMoved: with AcceptMoved a moved label is placed at its new
// place and listed; changed and lost labels are still problems.
func TestCheckAcceptMoved(t *testing.T) {
	in := `{"id": "m", "gold_spans": [{"doc": "act", "start": 0, "end": 10, "unit": "bytes", "text": "Section 2."}]}` + "\n"
	opt := DefaultCheckOptions()
	opt.AcceptMoved = true
	c, err := CheckJSONL(strings.NewReader(in), "l.jsonl", checkDocs, opt)
	if err != nil || len(c.Problems) != 0 {
		t.Fatalf("%v %v", err, c.Err())
	}
	g := c.Queries[0].Gold[0]
	if g.Start != 32 || g.End != 42 || len(c.Moved) != 1 || c.Moved[0].From.Start != 0 || c.Moved[0].To.Start != 32 || c.Status[anchor.Moved] != 1 {
		t.Errorf("gold %+v, moved %+v", g, c.Moved)
	}
}

// TestCheckRecorded: with an anchor record, a label that differs from an
// unchanged document was wrong from the start, one of a changed document
// changed with it.
func TestCheckRecorded(t *testing.T) {
	in := `{"id": "x", "gold_spans": [{"doc": "act", "start": 0, "end": 10, "text": "Section 9."}]}` + "\n"
	for text, want := range map[string]string{
		checkDocs[0].Text:       "the document is as recorded: the label was wrong when written",
		"Preamble. " + "Sec 1.": "the document changed since the labels were recorded",
	} {
		opt := DefaultCheckOptions()
		opt.Recorded = map[string]string{"act": DocDigest(text)}
		c, _ := CheckJSONL(strings.NewReader(in), "l.jsonl", checkDocs, opt)
		if len(c.Problems) != 1 || !strings.Contains(c.Problems[0].Msg, want) {
			t.Errorf("recorded %q: %v; want %q", text, c.Err(), want)
		}
	}
}

// TestCheckGroups: a group of alternatives is read with its members
// numbered; a group of one, grade 0 in a group and nested groups are
// errors.
func TestCheckGroups(t *testing.T) {
	in := `{"id": "g", "gold_spans": [{"any_of": [{"doc": "act", "text": "Section 1."}, {"doc": "act", "text": "Section 2."}]}, {"doc": "faq", "text": "A: Yes."}, {"any_of": [{"doc": "faq", "text": "Q:"}, {"doc": "act", "text": "late"}]}]}` + "\n"
	qs, err := ParseJSONL(strings.NewReader(in), "l.jsonl", checkDocs)
	if err != nil {
		t.Fatal(err)
	}
	var groups []int
	for _, g := range qs[0].Gold {
		groups = append(groups, g.Group)
	}
	if !cmp.Equal(groups, []int{1, 1, 0, 2, 2}) || len(qs[0].Passages()) != 3 {
		t.Errorf("groups %v, passages %v", groups, qs[0].Passages())
	}
	for name, c := range map[string]struct{ in, want string }{
		"one":     {`{"id": "g", "gold_spans": [{"any_of": [{"doc": "act", "text": "Section 1."}]}]}`, `gold_spans[0].any_of: query "g": want a list of at least two passages`},
		"grade 0": {`{"id": "g", "gold_spans": [{"any_of": [{"doc": "act", "text": "Section 1."}, {"doc": "act", "text": "late", "grade": 0}]}]}`, `gold_spans[0].any_of[1].grade: query "g": a passage judged not relevant (grade 0) cannot be an alternative answer`},
		"nested":  {`{"id": "g", "gold_spans": [{"any_of": [{"doc": "act", "text": "Section 1."}, {"any_of": []}]}]}`, `gold_spans[0].any_of[1]: query "g": groups of alternatives do not nest`},
		"beside":  {`{"id": "g", "gold_spans": [{"any_of": [], "doc": "act"}]}`, `unknown key "doc" beside "any_of"`},
		"twice":   {`{"id": "g", "gold_spans": [{"doc": "act", "start": 0, "end": 10}, {"doc": "act", "start": 0, "end": 10, "grade": 0}]}`, `span [0, 10) judged both relevant and not relevant (grade 0)`},
		"context": {`{"id": "g", "gold_spans": [{"doc": "act", "start": 0, "end": 10, "prefix": "x"}]}`, `prefix and suffix surround a quote: give the passage's text too`},
	} {
		if _, err := ParseJSONL(strings.NewReader(c.in+"\n"), "l.jsonl", checkDocs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v\nwant %q", name, err, c.want)
		}
	}
}

// TestAnchorRecordAndDigest: the record round-trips; the digest ignores
// how labels are written and sees what they say.
func TestAnchorRecordAndDigest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "l.jsonl")
	if _, err := ReadAnchorRecord(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no record: %v", err)
	}
	data := []byte(`{"id": "q", "gold_spans": [{"doc": "faq", "text": "A: Yes."}]}` + "\n")
	c, _ := CheckJSONL(strings.NewReader(string(data)), path, checkDocs, DefaultCheckOptions())
	rec := NewAnchorRecord(data, c, checkDocs)
	if err := WriteAnchorRecord(path, rec); err != nil {
		t.Fatal(err)
	}
	got, err := ReadAnchorRecord(path)
	if err != nil || !cmp.Equal(got, rec) || len(got.Documents) != 1 || got.Documents["faq"] != DocDigest(checkDocs[1].Text) {
		t.Errorf("read %+v, %v; wrote %+v", got, err, rec)
	}
	a, _ := ParseJSONL(strings.NewReader(`{"id": "q", "gold_spans": [{"doc": "faq", "text": "A: Yes."}]}`), "a", checkDocs)
	b, _ := ParseJSONL(strings.NewReader(`{"gold_spans": [{"start": 21, "doc": "faq", "end": 28}], "qid": "q"}`), "b", checkDocs)
	g, _ := ParseJSONL(strings.NewReader(`{"id": "q", "gold_spans": [{"doc": "faq", "text": "A: Yes.", "grade": 2}]}`), "c", checkDocs)
	if Digest(a) != Digest(b) || Digest(a) == Digest(g) {
		t.Errorf("digests %s %s %s", Digest(a), Digest(b), Digest(g))
	}
}

// FuzzChromaColumns: any header line (and one data row) over the columns
// of Chroma's questions.csv reads without panic; a file whose header lacks
// a wanted column fails naming it, as a problem of line 1; an accepted file
// places every reference consistently.
func FuzzChromaColumns(f *testing.F) {
	f.Add("question,references,corpus_id", "q,[],act")
	f.Add("Question,references,corpus_id", "q,[],act")
	f.Add("corpus_id,\"question\",references,extra", "act,q,\"[{\"\"content\"\": \"\"Section 1.\"\", \"\"start_index\"\": 0, \"\"end_index\"\": 10}]\",x")
	f.Add("question,refs", "q,[]")
	f.Fuzz(func(t *testing.T, header, row string) {
		c, err := CheckChromaCSV(strings.NewReader(header+"\n"+row+"\n"), "f.csv", checkDocs, DefaultCheckOptions())
		if err != nil {
			t.Fatalf("read error on a string: %v", err)
		}
		for _, want := range chromaWant {
			if !strings.Contains(header, want) && len(c.Problems) == 0 {
				t.Fatalf("header %q lacks %s, yet no problem", header, want)
			}
		}
		if len(c.Problems) == 0 {
			checkQueries(t, c.Queries, checkDocs)
		}
	})
}
