package anchor_test

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/anchor"
	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/internal/testenv"
	"github.com/ragbench/ragbench/spans"
)

func chromaDocs(t testing.TB) []corpus.Document {
	dir := testenv.Shared(t, "datasets/chunking-chroma")
	docs, err := corpus.LoadFolder(filepath.Join(dir, "corpora"))
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// TestThresholdSeparates: no gold passage of Chroma's questions.csv (452,
// median 148 code points) comes within DefaultThreshold of any passage of
// another of the three documents, so a label whose passage is gone from its
// document is Lost, not Changed. (Measured: the highest is 0.545, the 99th
// percentile 0.47.)
func TestThresholdSeparates(t *testing.T) {
	docs := chromaDocs(t)
	qs, err := spans.ReadChromaCSV(filepath.Join(testenv.Shared(t, "datasets/chunking-chroma"), "questions.csv"), docs)
	if err != nil {
		t.Fatal(err)
	}
	ix := anchor.NewIndex(docs)
	highest, n := 0.0, 0
	for _, q := range qs {
		for _, g := range q.Gold {
			for _, d := range ix.Docs() {
				if d.ID == g.Doc {
					continue
				}
				_, s, _ := d.Nearest(g.Text)
				highest = max(highest, s)
				n++
			}
		}
	}
	t.Logf("%d passages against the other documents: highest similarity %.3f", n, highest)
	if n != 904 || highest >= anchor.DefaultThreshold {
		t.Errorf("%d comparisons, highest similarity %.3f; want 904, below %v", n, highest, anchor.DefaultThreshold)
	}
}

// scaled builds n documents of about size code points each from the
// sentences of the chunking-chroma corpus, drawn at random (seeded): a
// corpus of many long documents in which most passages of several sentences
// occur once.
func scaled(t testing.TB, n, size int) []corpus.Document {
	var sentences []string
	for _, d := range chromaDocs(t) {
		for _, s := range strings.SplitAfter(d.Text, ". ") {
			if len(s) > 20 {
				sentences = append(sentences, s)
			}
		}
	}
	r := rand.New(rand.NewPCG(7, 11))
	docs := make([]corpus.Document, n)
	for i := range docs {
		var b strings.Builder
		for b.Len() < size {
			b.WriteString(sentences[r.IntN(len(sentences))])
			if r.IntN(8) == 0 {
				b.WriteString("\n\n")
			}
		}
		docs[i] = corpus.Document{ID: fmt.Sprintf("doc-%03d", i), Text: b.String()}
	}
	return docs
}

// chunkTexts cuts every document into chunks of about 800 bytes at white
// space (recursive, as LangChain's splitter would), and returns every
// third chunk's text, half of them with their white space reflowed (line
// ends turned into spaces, as text copied from a rendered page).
func chunkTexts(t testing.TB, docs []corpus.Document) []string {
	spec := corpus.Spec{Strategy: "recursive", Size: 800}
	chunks, err := spec.Chunk(docs)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, c := range chunks.All() {
		if i%3 != 0 {
			continue
		}
		text := c.Text
		if i%2 == 0 {
			text = strings.ReplaceAll(text, "\n", " ")
		}
		out = append(out, text)
	}
	return out
}

// BenchmarkLocate locates chunk texts in a corpus of 200 documents of 50,000
// code points (10 MB; the suffix arrays built before timing): one op is one
// chunk located, exactly, else with white space folded, as passage runs
// give them. Compare BenchmarkLocateScan, the same lookups by scanning each
// document in turn.
func BenchmarkLocate(b *testing.B) {
	docs := scaled(b, 200, 50_000)
	texts := chunkTexts(b, docs)
	ix := anchor.NewIndex(docs)
	ix.Locate(texts[0], anchor.FoldSpace, 2) // build both suffix arrays
	ix.Locate(texts[1], anchor.FoldSpace, 2)
	b.ReportMetric(float64(len(texts)), "chunks")
	b.ResetTimer()
	unique := 0
	for i := 0; i < b.N; i++ {
		if ix.Locate(texts[i%len(texts)], anchor.FoldSpace, 2).Unique() {
			unique++
		}
	}
	if b.N >= len(texts) && unique < b.N/2 {
		b.Fatalf("%d of %d chunks located once", unique, b.N)
	}
}

// BenchmarkLocateScan is BenchmarkLocate's lookups done by scanning every
// document (Doc.Find, then Doc.FindFolded), the way without an index.
func BenchmarkLocateScan(b *testing.B) {
	docs := scaled(b, 200, 50_000)
	texts := chunkTexts(b, docs)
	ix := anchor.NewIndex(docs)
	for _, d := range ix.Docs() {
		d.FindFolded("x", anchor.FoldSpace, 1) // fold every document before timing
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := texts[i%len(texts)]
		n := 0
		for _, d := range ix.Docs() {
			n += len(d.Find(q, 2))
		}
		if n == 0 {
			for _, d := range ix.Docs() {
				n += len(d.FindFolded(q, anchor.FoldSpace, 2))
			}
		}
	}
}

// BenchmarkIndexBuild builds the exact and the white-space-folded suffix
// arrays of the 200-document corpus.
func BenchmarkIndexBuild(b *testing.B) {
	docs := scaled(b, 200, 50_000)
	for i := 0; i < b.N; i++ {
		ix := anchor.NewIndex(docs)
		ix.Locate("\x00", anchor.FoldSpace, 1)
		ix.Locate("a b c d e f g h", anchor.FoldSpace, 1)
	}
}

// BenchmarkNearest finds the nearest passage to an edited gold passage in
// the longest chunking-chroma document (wikitexts, 118,372 code points).
func BenchmarkNearest(b *testing.B) {
	docs := chromaDocs(b)
	var d *anchor.Doc
	for _, doc := range docs {
		if doc.ID == "wikitexts" {
			d = anchor.NewDoc(doc.ID, doc.Text)
		}
	}
	quote := strings.Replace(d.Text[50_000:50_300], " the ", " a ", 1)
	d.Nearest("warm up")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, s, _ := d.Nearest(quote); s < 0.9 {
			b.Fatalf("similarity %v", s)
		}
	}
}

// BenchmarkLocateChroma locates every chunk of the shared chunking-chroma
// corpus (three documents, 206,423 code points) cut by LangChain's
// recursive splitter at 200 characters, half with their line ends turned
// into spaces: one op is every chunk located once (exactly, else with
// white space folded), the suffix arrays built before timing.
func BenchmarkLocateChroma(b *testing.B) {
	docs := chromaDocs(b)
	chunks, err := corpus.Spec{Strategy: "recursive", Size: 200}.Chunk(docs)
	if err != nil {
		b.Fatal(err)
	}
	texts := make([]string, chunks.Len())
	for i, c := range chunks.All() {
		texts[i] = c.Text
		if i%2 == 0 {
			texts[i] = strings.ReplaceAll(c.Text, "\n", " ")
		}
	}
	ix := anchor.NewIndex(docs)
	ix.Locate(texts[0], anchor.FoldSpace, 2)
	ix.Locate("a\nb", anchor.FoldSpace, 2)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		found := 0
		for _, t := range texts {
			if len(ix.Locate(t, anchor.FoldSpace, 2).Matches) > 0 {
				found++
			}
		}
		if found != len(texts) {
			b.Fatalf("%d of %d chunks found", found, len(texts))
		}
	}
	b.ReportMetric(float64(len(texts)), "chunks/op")
}

// BenchmarkSimilarityIn compares a 1,500-character passage of one
// chunking-chroma document with a 1,500-character window of another at
// anchor's threshold (no passage within it: the common case of judged
// coverage's hole search, spans.HoleFinder): one op is one comparison.
func BenchmarkSimilarityIn(b *testing.B) {
	docs := chromaDocs(b)
	quote, text := docs[0].Text[10_000:11_500], docs[1].Text[20_000:21_500]
	p := anchor.NewPattern(quote)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ok := p.SimilarityIn(text, anchor.DefaultThreshold); ok {
			b.Fatal("found a passage of another document")
		}
	}
}
