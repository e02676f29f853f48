package labels_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/anchor"
	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/internal/testenv"
	"github.com/ragbench/ragbench/labels"
	"github.com/ragbench/ragbench/spans"
)

// TestReanchorRealDocument re-anchors the 95 gold passages of Chroma's
// questions on state_of_the_union (48,051 code points) after three edits
// made here, with what each does to the labels known by construction:
//
//   - two paragraphs inserted above the passage at code point 20,925: the
//     labels before it are unchanged, those after it moved;
//   - one word of one passage edited ("minimum" → "modest" in "I proposed a
//     minimum tax for billionaires…"): its labels (two questions share it)
//     changed;
//   - a section of three paragraphs deleted, holding two passages whole:
//     those labels lost.
//
// bench labels check's library counts exactly that, and after Fix every
// moved label's offsets are where Python's str.find (code points) finds
// its quote in the edited document, while the changed and lost labels are
// left as they were, for a person.
func TestReanchorRealDocument(t *testing.T) {
	python := testenv.Python(t)
	dir := testenv.Shared(t, "datasets/chunking-chroma")
	docs, err := corpus.LoadFolder(filepath.Join(dir, "corpora"))
	if err != nil {
		t.Fatal(err)
	}
	qs, err := spans.ReadChromaCSV(filepath.Join(dir, "questions.csv"), docs)
	if err != nil {
		t.Fatal(err)
	}
	var sotu corpus.Document
	for _, d := range docs {
		if d.ID == "state_of_the_union" {
			sotu = d
		}
	}
	work := t.TempDir()
	labelsPath, all := writeLabels(t, work, qs)
	rec := spans.NewAnchorRecord(nil, &spans.Checked{Docs: map[string]bool{sotu.ID: true}}, []corpus.Document{sotu})
	if err := spans.WriteAnchorRecord(labelsPath, rec); err != nil {
		t.Fatal(err)
	}
	edited, want := edit(t, sotu.Text, all)
	corpusDir := filepath.Join(work, "corpus")
	if err := os.MkdirAll(corpusDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(corpusDir, "state_of_the_union.md"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	newDocs, err := corpus.LoadFolder(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := labels.Check(labelsPath, newDocs, labels.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if r.Spans.Status != want || len(r.ChangedDocs) != 1 {
		t.Fatalf("statuses %v, want %v (unchanged, moved, changed, lost); changed documents %v", r.Spans.Status, want, r.ChangedDocs)
	}
	f, err := labels.Fix(r, newDocs, "", labels.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Changes) != want[anchor.Moved] || len(f.After.Problems) != want[anchor.Changed]+want[anchor.Lost] {
		t.Errorf("%d repairs, %d problems left; want %d, %d", len(f.Changes), len(f.After.Problems), want[anchor.Moved], want[anchor.Changed]+want[anchor.Lost])
	}
	compareWithPython(t, python, labelsPath, filepath.Join(corpusDir, "state_of_the_union.md"), all)
}

// passage is one label: its query, place and quote in the original.
type passage struct {
	query      string
	start, end int
	text       string
}

// writeLabels writes state_of_the_union's questions as span labels (offsets
// and quote) and returns the file and the passages in document order.
func writeLabels(t *testing.T, dir string, qs []spans.Query) (string, []passage) {
	var b strings.Builder
	var all []passage
	for _, q := range qs {
		if q.Slice != "state_of_the_union" {
			continue
		}
		var items []string
		for _, g := range q.Gold {
			item, _ := json.Marshal(map[string]any{"doc": g.Doc, "start": g.Start, "end": g.End, "text": g.Text})
			items = append(items, string(item))
			all = append(all, passage{q.ID, g.Start, g.End, g.Text})
		}
		fmt.Fprintf(&b, `{"id": %q, "question": %q, "gold_spans": [%s]}`+"\n", q.ID, q.Text, strings.Join(items, ", "))
	}
	path := filepath.Join(dir, "labels.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, all
}

// edit makes the three edits (in code points of the original, from the end
// so earlier offsets hold) and returns the edited text and the statuses
// they give by construction.
func edit(t *testing.T, text string, all []passage) (string, [4]int) {
	rs := []rune(text)
	at := func(s string) int { // code point offset of s, which occurs once
		i := strings.Index(text, s)
		if i < 0 || strings.Count(text, s) != 1 {
			t.Fatalf("%q occurs %d times", s, strings.Count(text, s))
		}
		return len([]rune(text[:i]))
	}
	insertAt := 20925 // a passage's start, at a paragraph's start
	if rs[insertAt-1] != '\n' {
		t.Fatalf("code point %d does not start a paragraph", insertAt)
	}
	// The section deleted: three paragraphs, from the one holding
	// "THE PRESIDENT: It was then" through the next two.
	delFrom := at("THE PRESIDENT: It was then")
	for delFrom > 0 && rs[delFrom-1] != '\n' {
		delFrom--
	}
	delTo := delFrom
	for n := 0; n < 3; n++ {
		for delTo < len(rs) && rs[delTo] != '\n' {
			delTo++
		}
		for delTo < len(rs) && rs[delTo] == '\n' {
			delTo++
		}
	}
	editWord := at("I proposed a minimum tax for billionaires") + len([]rune("I proposed a "))
	var want [4]int
	for _, p := range all {
		switch {
		case p.start >= delFrom && p.end <= delTo:
			want[anchor.Lost]++
		case p.end > delFrom && p.start < delTo:
			t.Fatalf("passage [%d, %d) straddles the deleted section [%d, %d)", p.start, p.end, delFrom, delTo)
		case p.start <= editWord && editWord < p.end:
			want[anchor.Changed]++
		case p.start >= insertAt:
			want[anchor.Moved]++
		case p.end <= insertAt:
			want[anchor.Unchanged]++
		default:
			t.Fatalf("passage [%d, %d) straddles the insertion at %d", p.start, p.end, insertAt)
		}
	}
	if want != [4]int{40, 51, 2, 2} || insertAt > editWord || editWord > delFrom {
		t.Fatalf("edits give %v; the test is built for 40 unchanged, 51 moved, 2 changed (the passage edited is labelled by two questions), 2 lost, insert < edit < delete", want)
	}
	out := append([]rune(nil), rs[:delFrom]...)
	out = append(out, rs[delTo:]...)
	word := []rune("minimum")
	if string(out[editWord:editWord+len(word)]) != string(word) {
		t.Fatalf("no %q at %d", string(word), editWord)
	}
	out = append(out[:editWord], append([]rune("modest"), out[editWord+len(word):]...)...)
	inserted := []rune("A paragraph inserted above the labels, as an editor would.\n\nAnd a second one, so that every label below moves by more than one line.\n\n")
	out = append(out[:insertAt], append(inserted, out[insertAt:]...)...)
	return string(out), want
}

// compareWithPython checks the fixed labels against Python's own offsets:
// for each label in the fixed file, str.find of its quote in the edited
// document (code points), computed by the test-only Python.
func compareWithPython(t *testing.T, python, labelsPath, docPath string, all []passage) {
	script := `
import json, sys
doc = open(sys.argv[1], encoding="utf-8").read()
out = []
for line in open(sys.argv[2], encoding="utf-8"):
    row = json.loads(line)
    for g in row["gold_spans"]:
        i = doc.find(g["text"])
        out.append([row["id"], g["start"], g["end"], i, i + len(g["text"]) if i >= 0 else -1, doc.count(g["text"])])
print(json.dumps(out))
`
	cmd := exec.Command(python, "-c", script, docPath, labelsPath)
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v", err)
	}
	var rows [][]any
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(all) {
		t.Fatalf("python read %d labels, want %d", len(rows), len(all))
	}
	moved := 0
	for i, r := range rows {
		start, end, pyStart, pyEnd, n := int(r[1].(float64)), int(r[2].(float64)), int(r[3].(float64)), int(r[4].(float64)), int(r[5].(float64))
		orig := all[i]
		switch {
		case pyStart < 0: // changed or lost: left as labelled
			if start != orig.start || end != orig.end {
				t.Errorf("label %d (query %s): not found, yet its offsets changed to [%d, %d)", i, r[0], start, end)
			}
		case n != 1 || start != pyStart || end != pyEnd:
			t.Errorf("label %d (query %s): at [%d, %d), Python finds its quote %d times, first at [%d, %d)", i, r[0], start, end, n, pyStart, pyEnd)
		case start != orig.start:
			moved++
		}
	}
	t.Logf("%d labels moved and fixed, each where Python finds its quote", moved)
}
