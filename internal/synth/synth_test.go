package synth

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
)

// TestWrite: the dataset is BEIR's layout as ragbench reads it (corpus.Load,
// eval.ReadQrels), the same spec writes the same bytes, every document has
// 40–160 words, and every query has 3–6 distinct words of its one judged
// target document.
func TestWrite(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	spec := Spec{Docs: 2000, Queries: 100, Seed: 7}
	for _, dir := range []string{a, b} {
		if err := Write(dir, spec); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"corpus.jsonl", "queries.jsonl", "qrels/test.tsv"} {
		x, _ := os.ReadFile(filepath.Join(a, f))
		y, _ := os.ReadFile(filepath.Join(b, f))
		if len(x) == 0 || !bytes.Equal(x, y) {
			t.Errorf("%s: %d bytes, equal across two writes: %v", f, len(x), bytes.Equal(x, y))
		}
	}
	docs, err := corpus.Load(filepath.Join(a, "corpus.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	text := map[string]string{}
	for _, d := range docs {
		if n := len(strings.Fields(d.Text)); n < 40 || n > 160 {
			t.Fatalf("%s: %d words", d.ID, n)
		}
		text[d.ID] = " " + d.Text + " "
	}
	if len(docs) != 2000 {
		t.Fatalf("%d documents, want 2000", len(docs))
	}
	qrels, _, err := eval.ReadQrels(filepath.Join(a, "qrels", "test.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	qs, err := os.ReadFile(filepath.Join(a, "queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(qs)), "\n")
	if len(lines) != 100 || len(qrels) != 100 {
		t.Fatalf("%d queries, %d judged, want 100", len(lines), len(qrels))
	}
	for _, line := range lines {
		id := strings.SplitN(line, `"`, 5)[3]
		words := strings.Fields(strings.SplitN(line, `"text": "`, 2)[1][:len(strings.SplitN(line, `"text": "`, 2)[1])-2])
		if len(qrels[id]) != 1 || len(words) < 3 || len(words) > 6 {
			t.Fatalf("%s: %d judged docs, %d words", id, len(qrels[id]), len(words))
		}
		for target := range qrels[id] {
			for _, w := range words {
				if !strings.Contains(text[target], " "+w+" ") {
					t.Errorf("%s: %q not in its target %s", id, w, target)
				}
			}
		}
	}
	if err := Write(t.TempDir(), Spec{Docs: 10, Queries: 11}); err == nil || !strings.HasPrefix(err.Error(), "synth: queries:") {
		t.Errorf("more queries than documents: err = %v", err)
	}
}

// TestWord: words are distinct, at least three letters, consonants other
// than s and y only.
func TestWord(t *testing.T) {
	seen := map[string]int{}
	for r := range 200000 {
		w := Word(r)
		if len(w) < 3 || strings.Trim(w, letters) != "" {
			t.Fatalf("Word(%d) = %q", r, w)
		}
		if p, dup := seen[w]; dup {
			t.Fatalf("Word(%d) = Word(%d) = %q", r, p, w)
		}
		seen[w] = r
	}
	if Word(0) != "bbb" || Word(1) != "bbc" {
		t.Errorf("Word(0), Word(1) = %q, %q", Word(0), Word(1))
	}
}
