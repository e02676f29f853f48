package bm25

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"

	segment "github.com/blevesearch/scorch_segment_api/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/mapped"
	"github.com/ragbench/ragbench/internal/synth"
	"github.com/ragbench/ragbench/retrievers"
)

func chunksOf(t testing.TB, title bool, docs ...corpus.Document) []corpus.Chunk {
	t.Helper()
	csView, err := corpus.Spec{Strategy: corpus.Whole, Title: title}.Chunk(docs)
	if err != nil {
		t.Fatal(err)
	}
	cs := csView.Slice()
	return cs
}

func newRetriever(t testing.TB, chunks []corpus.Chunk, o Options) *Retriever {
	t.Helper()
	r, err := New(context.Background(), chunks, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func search(t testing.TB, r *Retriever, k int, texts ...string) eval.Run {
	t.Helper()
	var qs []retrievers.Query
	for i, s := range texts {
		qs = append(qs, retrievers.Query{ID: fmt.Sprint("q", i), Text: s})
	}
	run, err := r.Search(context.Background(), qs, k)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

var approx = cmpopts.EquateApprox(0, 1e-12)

// TestHandComputed checks Lucene BM25 (k1 = 0.9, b = 0.4) by hand.
//
// Analysed ("en": lower-case, stop words, Porter): d1 "cat cat dog" (dl 3),
// d2 "cat bird" (dl 2), d3 "fish" (dl 1); N = 3, avgdl = 6/3 = 2.
//
//	idf(cat) = ln(1 + (3 − 2 + 0.5)/(2 + 0.5)) = ln 1.6     ≈ 0.470004
//	idf(dog) = ln(1 + (3 − 1 + 0.5)/(1 + 0.5)) = ln(8/3)   ≈ 0.980829
//	denom(d1) = 0.9·(1 − 0.4 + 0.4·3/2) = 1.08
//	denom(d2) = 0.9·(1 − 0.4 + 0.4·2/2) = 0.9
//
// Query "The cats!" → {cat}: d1 = ln1.6·2/(2+1.08) ≈ 0.305197,
// d2 = ln1.6·1/(1+0.9) ≈ 0.247370. Query "dog dog cats" → {cat:1, dog:2}:
// d1 = ln1.6·2/3.08 + 2·ln(8/3)·1/(1+1.08) ≈ 1.248302, d2 as before.
func TestHandComputed(t *testing.T) {
	docs := []corpus.Document{
		{ID: "d1", Text: "Cat cat, dog."},
		{ID: "d2", Text: "the cat and a bird"},
		{ID: "d3", Text: "Fish"},
	}
	r := newRetriever(t, chunksOf(t, false, docs...), Options{})
	if got := r.Terms("dog dog cats"); !cmp.Equal(got, []TermCount{{"cat", 1}, {"dog", 2}}) {
		t.Fatalf("Terms = %v", got)
	}
	idfCat, idfDog := math.Log(1.6), math.Log(8.0/3)
	want := eval.Run{
		"q0": {{DocID: "d1", Score: idfCat * 2 / (2 + 1.08)}, {DocID: "d2", Score: idfCat * 1 / (1 + 0.9)}},
		"q1": {{DocID: "d1", Score: idfCat*2/(2+1.08) + 2*idfDog*1/(1+1.08)}, {DocID: "d2", Score: idfCat / 1.9}},
	}
	got := search(t, r, 10, "The cats!", "dog dog cats")
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if math.Abs(got["q1"][0].Score-1.248302) > 1e-6 {
		t.Errorf("d1 score %.6f, hand value 1.248302", got["q1"][0].Score)
	}
	// k1 = 0: each matching term adds idf once, whatever tf; d1 and d2 tie
	// on ln 1.6 and are ordered by id descending, as trec_eval ranks them.
	rb := newRetriever(t, chunksOf(t, false, docs...), Options{BinaryTF: true})
	want0 := eval.Run{"q0": {{DocID: "d2", Score: idfCat}, {DocID: "d1", Score: idfCat}}}
	if diff := cmp.Diff(want0, search(t, rb, 10, "cats"), approx); diff != "" {
		t.Errorf("BinaryTF (-want +got):\n%s", diff)
	}
	// k cuts the list.
	if got := search(t, r, 1, "cat"); len(got["q0"]) != 1 || got["q0"][0].DocID != "d1" {
		t.Errorf("k=1: %v", got)
	}
}

// TestLengthEncoding: Lucene's SmallFloat.intToByte4 keeps lengths < 24
// exactly and 4 significant bits above: 24 + (76 → 9·8 = 72) → 100 is
// stored as 96, 41 as 40 (24 + 16), 40 as 40, 32 as 32.
func TestLengthEncoding(t *testing.T) {
	for in, want := range map[int]int{0: 0, 1: 1, 23: 23, 24: 24, 25: 25, 31: 31, 32: 32, 40: 40, 41: 40, 100: 96} {
		if got := byte4ToInt(intToByte4(in)); got != want {
			t.Errorf("byte4ToInt(intToByte4(%d)) = %d, want %d", in, got, want)
		}
	}
	if b := intToByte4(1<<31 - 1); b != 255 {
		t.Errorf("intToByte4(MaxInt32) = %d, want 255", b)
	}
	prev := 0
	for i := 0; i < 1<<20; i++ { // monotone and never above the length
		got := byte4ToInt(intToByte4(i))
		if got > i || got < prev {
			t.Fatalf("length %d decodes to %d (previous %d)", i, got, prev)
		}
		prev = got
	}

	// A 100-token document is scored with dl = 96 unless ExactLengths.
	// N = 2, avgdl = (100 + 2)/2 = 51, idf(apple) = ln(1 + 0.5/2.5) = ln 1.2.
	var long []string
	for i := 0; i < 99; i++ {
		long = append(long, fmt.Sprintf("x%d", i))
	}
	docs := []corpus.Document{{ID: "long", Text: "apple " + strings.Join(long, " ")}, {ID: "short", Text: "apple pear"}}
	chunks := chunksOf(t, false, docs...)
	idf := math.Log(1.2)
	for _, exact := range []bool{false, true} {
		dl := 96.0
		if exact {
			dl = 100
		}
		r := newRetriever(t, chunks, Options{ExactLengths: exact})
		got := search(t, r, 10, "apple")["q0"]
		want := []eval.Result{
			{DocID: "short", Score: idf / (1 + 0.9*(0.6+0.4*2/51.0))},
			{DocID: "long", Score: idf / (1 + 0.9*(0.6+0.4*dl/51.0))},
		}
		if diff := cmp.Diff(want, got, approx); diff != "" {
			t.Errorf("exact=%v (-want +got):\n%s", exact, diff)
		}
	}
}

// TestMultiField: with Fields "multi", title and body are scored as two
// fields, each with its own N, df and avgdl, and summed.
//
// Titles "cat" (dl 1), "" (none): title N = 1, avgdl 1, df(cat) = 1,
// idf = ln(1 + 0.5/1.5) = ln(4/3), denom = 0.9. Bodies "cat dog" (2),
// "cat" (1): N = 2, avgdl 1.5, df = 2, idf = ln(1 + 0.5/2.5) = ln 1.2,
// denom(a) = 0.9·(0.6 + 0.4·2/1.5), denom(b) = 0.9·(0.6 + 0.4/1.5).
func TestMultiField(t *testing.T) {
	docs := []corpus.Document{{ID: "a", Title: "Cat", Text: "cat dog"}, {ID: "b", Text: "cat"}}
	r := newRetriever(t, chunksOf(t, true, docs...), Options{Fields: FieldsMulti})
	got := search(t, r, 10, "cat")["q0"]
	want := []eval.Result{
		{DocID: "a", Score: math.Log(4.0/3)/(1+0.9) + math.Log(1.2)/(1+0.9*(0.6+0.4*2/1.5))},
		{DocID: "b", Score: math.Log(1.2) / (1 + 0.9*(0.6+0.4/1.5))},
	}
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	if _, err := New(ctx, nil, Options{}); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty corpus: err = %v", err)
	}
	dup := []corpus.Chunk{{ID: "a", Text: "x"}, {ID: "b", Text: "y"}, {ID: "a", Text: "z"}}
	if _, err := New(ctx, dup, Options{}); err == nil || !strings.Contains(err.Error(), `duplicate chunk id "a" (chunks 0 and 2)`) {
		t.Errorf("duplicate ids: err = %v", err)
	}
	for _, o := range []Options{{K1: -1}, {K1: math.Inf(1)}, {B: math.NaN()}, {B: 1.5}, {Scoring: "tfidf"}, {Fields: "all"}, {Analyzer: "fr"}, {B: 0.3, NoLengthNorm: true}, {K1: 1, BinaryTF: true}} {
		if _, err := New(ctx, dup[:1], o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := New(cancelled, chunksOf(t, false, synthetic(10, 2)...), Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("New with a cancelled context: err = %v", err)
	}
	rc := newRetriever(t, chunksOf(t, false, synthetic(10, 2)...), Options{})
	if _, err := rc.Search(cancelled, []retrievers.Query{{ID: "q", Text: "w1"}}, 5); !errors.Is(err, context.Canceled) {
		t.Errorf("Search with a cancelled context: err = %v", err)
	}

	docs := []corpus.Document{
		{ID: "lease", Title: "Tenancy", Text: "The deposit covers fair wear and tear under s. 38(2)."},
		{ID: "empty", Title: "", Text: ""},
		{ID: "titled", Title: "Wear", Text: ""},
		{ID: "ru", Text: "Привет, мир! Мир большой."},
		{ID: "ja", Text: "日本語のテキスト"},
		{ID: "el", Text: "Καλημέρα κόσμε"},
	}
	for _, scoring := range []string{ScoringLucene, ScoringBleve} {
		r := newRetriever(t, chunksOf(t, true, docs...), Options{Scoring: scoring})
		if _, err := r.Search(ctx, []retrievers.Query{{ID: "q", Text: "x"}}, 0); err == nil {
			t.Errorf("%s: k = 0 accepted", scoring)
		}
		if _, err := r.Search(ctx, []retrievers.Query{{ID: "q", Text: "x"}, {ID: "q", Text: "y"}}, 5); err == nil {
			t.Errorf("%s: duplicate query ids accepted", scoring)
		}
		run := search(t, r, 10,
			"the and of a",                   // stop words only
			"?!... & -- ()",                  // punctuation only
			"",                               // empty
			"s. 38(2) deposit: wear & tear?", // query syntax characters are just text
			"мир",                            // Cyrillic
			"Καλημέρα",                       // Greek
		)
		for _, q := range []string{"q0", "q1", "q2"} {
			if res, ok := run[q]; !ok || res == nil || len(res) != 0 {
				t.Errorf("%s: %s: got %#v, want an empty non-nil list", scoring, q, res)
			}
		}
		if ids := idsOf(run["q3"]); len(ids) != 2 || ids[0] != "lease" || ids[1] != "titled" {
			t.Errorf("%s: legal query: %v, want [lease titled]", scoring, ids)
		}
		if ids := idsOf(run["q4"]); !cmp.Equal(ids, []string{"ru"}) {
			t.Errorf("%s: Cyrillic query: %v", scoring, ids)
		}
		if ids := idsOf(run["q5"]); !cmp.Equal(ids, []string{"el"}) {
			t.Errorf("%s: Greek query: %v", scoring, ids)
		}
	}
}

func idsOf(res []eval.Result) []string {
	var ids []string
	for _, r := range res {
		ids = append(ids, r.DocID)
	}
	return ids
}

// synthetic returns n documents of Zipf-distributed words from a fixed seed.
func synthetic(n int, seed uint64) []corpus.Document {
	rng := rand.New(rand.NewPCG(seed, 1))
	zipf := rand.NewZipf(rng, 1.1, 1, 20000)
	docs := make([]corpus.Document, n)
	var sb strings.Builder
	for i := range docs {
		sb.Reset()
		for w := 0; w < 20+rng.IntN(180); w++ {
			fmt.Fprintf(&sb, "w%d ", zipf.Uint64())
		}
		docs[i] = corpus.Document{ID: fmt.Sprintf("doc%05d", i), Title: fmt.Sprintf("w%d", zipf.Uint64()), Text: sb.String()}
	}
	return docs
}

// TestDeterminism: segment layout (batch size) and worker count never change
// Lucene-scored results, bit for bit.
func TestDeterminism(t *testing.T) {
	docs := synthetic(3000, 7)
	chunksView, err := corpus.Spec{Strategy: corpus.Fixed, Size: 64, Overlap: 16, Title: true}.Chunk(docs)
	if err != nil {
		t.Fatal(err)
	}
	chunks := chunksView.Slice()
	var queries []string
	for i := 0; i < 50; i++ {
		queries = append(queries, fmt.Sprintf("w%d w%d w%d w1", i, i*7+3, i*31+11))
	}
	base := search(t, newRetriever(t, chunks, Options{BatchSize: 5000, Workers: 1}), 100, queries...)
	for _, o := range []Options{{BatchSize: 37, Workers: 4}, {BatchSize: 37, Workers: 1}, {BatchSize: 1, Workers: 3}} {
		if o.BatchSize == 1 {
			chunks := chunks[:len(chunks)/4]
			a := search(t, newRetriever(t, chunks, Options{BatchSize: 5000, Workers: 1}), 100, queries...)
			b := search(t, newRetriever(t, chunks, o), 100, queries...)
			if !cmp.Equal(a, b) {
				t.Errorf("batch size 1: results differ")
			}
			continue
		}
		if got := search(t, newRetriever(t, chunks, o), 100, queries...); !cmp.Equal(base, got) {
			t.Errorf("%+v: results differ from batch 5000, 1 worker", o)
		}
	}
	for q, res := range base {
		for i := 1; i < len(res); i++ {
			a, b := res[i-1], res[i]
			if a.Score < b.Score || (a.Score == b.Score && a.DocID < b.DocID) {
				t.Fatalf("%s: results %d and %d out of order: %v %v", q, i-1, i, a, b)
			}
		}
	}
}

// TestDiskCache: an on-disk index is reused for the same chunks and options
// and rebuilt for others; results equal the in-memory index's.
func TestDiskCache(t *testing.T) {
	dir := t.TempDir()
	docs := synthetic(300, 3)
	chunks := chunksOf(t, true, docs...)
	mem := search(t, newRetriever(t, chunks, Options{}), 20, "w1 w2", "w3 w10 w100")
	r1 := newRetriever(t, chunks, Options{Dir: dir})
	if got := search(t, r1, 20, "w1 w2", "w3 w10 w100"); !cmp.Equal(mem, got) {
		t.Error("disk index results differ from memory")
	}
	if r1.Stats().IndexBytes <= 0 {
		t.Error("disk index size not reported")
	}
	r2 := newRetriever(t, chunks, Options{Dir: dir, K1: 1.2}) // k1 is not part of the index
	_ = r2
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d entries in cache dir after two builds of one index, want 1", len(entries))
	}
	if got := search(t, newRetriever(t, chunks, Options{Dir: dir}), 20, "w1 w2", "w3 w10 w100"); !cmp.Equal(mem, got) {
		t.Error("cached index results differ")
	}
	newRetriever(t, chunksOf(t, false, docs...), Options{Dir: dir}) // no titles: another index
	entries, _ = os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%d entries in cache dir, want 2", len(entries))
	}
	// A corrupt record is an error, not a silent rebuild over it.
	var idxDir string
	for _, e := range entries {
		idxDir = filepath.Join(dir, e.Name())
	}
	// An index of the previous format under this format's name (its key
	// hashes the format, so only by hand) is refused, and the user told
	// what to do.
	data, err := os.ReadFile(filepath.Join(idxDir, metaFile))
	if err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(string(data), fmt.Sprintf(`"format":%d`, formatVersion), fmt.Sprintf(`"format":%d`, formatVersion-1), 1)
	if old == string(data) {
		t.Fatalf("no format in %s", data)
	}
	os.WriteFile(filepath.Join(idxDir, metaFile), []byte(old), 0o644)
	var refused []error
	for _, c := range [][]corpus.Chunk{chunks, chunksOf(t, false, docs...)} {
		if _, err := New(context.Background(), c, Options{Dir: dir}); err != nil {
			refused = append(refused, err)
		}
	}
	if len(refused) != 1 || !strings.Contains(refused[0].Error(), "delete the folder") {
		t.Errorf("previous format: %v, want one index refused with delete the folder", refused)
	}
	os.WriteFile(filepath.Join(idxDir, metaFile), []byte(`{"format":1,"key":"nope"}`), 0o644)
	_, err1 := New(context.Background(), chunks, Options{Dir: dir})
	_, err2 := New(context.Background(), chunksOf(t, false, docs...), Options{Dir: dir})
	if err1 == nil && err2 == nil {
		t.Error("corrupt cache record accepted")
	}
	if err := errors.Join(err1, err2); err == nil || !strings.Contains(err.Error(), "delete the folder") {
		t.Errorf("corrupt record: %v, want delete the folder", err)
	}
}

func TestStats(t *testing.T) {
	r := newRetriever(t, chunksOf(t, false, synthetic(100, 1)...), Options{})
	search(t, r, 5, "w1", "w2", "w3")
	s := r.Stats()
	if s.Queries != 3 || s.Build <= 0 || s.LatencyP50 <= 0 || s.LatencyP95 < s.LatencyP50 || s.IndexBytes <= 0 {
		t.Errorf("Stats = %+v", s)
	}
}

// TestLengths: the document lengths recorded at indexing equal the number of
// tokens the analyzer emits for each field's text (counted here through
// Terms), for both field layouts and analyzers, across several batches.
func TestLengths(t *testing.T) {
	docs := []corpus.Document{
		{ID: "a", Title: "The Cat's Hat", Text: "The cat sat on the mat, and the mat was flat."},
		{ID: "b", Title: "", Text: "of the and a"},
		{ID: "c", Title: "Empty", Text: ""},
		{ID: "d", Title: "Mixed", Text: "Привет мир 日本語 s. 38(2) wear & tear?"},
	}
	docs = append(docs, synthetic(50, 9)...)
	chunks := chunksOf(t, true, docs...)
	for _, o := range []Options{{BatchSize: 3}, {Fields: FieldsMulti, BatchSize: 7}, {Analyzer: AnalyzerLuceneEn, BatchSize: 1000}} {
		r := newRetriever(t, chunks, o)
		byID := map[string]corpus.Chunk{}
		for _, c := range chunks {
			byID[c.ID] = c
		}
		for f, fld := range r.fields {
			for d := range r.Len() { // lengths are in the index's document order
				c := byID[string(r.side.id(d))]
				want := 0
				for _, tc := range r.Terms(fieldTexts(c, r.opts.Fields)[f]) {
					want += tc.Count
				}
				if int(fld.length(d)) != want {
					t.Errorf("%+v: field %s, %s: length %d, analyzer emits %d tokens", o, fld.name, c.ID, fld.length(d), want)
				}
			}
		}
	}
}

// TestValidateNamesField: each Validate error starts with the config name of
// the bad field, so sweep can point at the config line; DefaultOptions is
// what the zero value stands for (Options{}.Name() says the same k1 and b).
func TestValidateNamesField(t *testing.T) {
	for _, tc := range []struct {
		o     Options
		field string
	}{
		{Options{K1: -1}, "k1: "}, {Options{K1: math.Inf(1)}, "k1: "}, {Options{K1: 1, BinaryTF: true}, "k1: "},
		{Options{B: math.NaN()}, "b: "}, {Options{B: 0.3, NoLengthNorm: true}, "b: "},
		{Options{Scoring: "tfidf"}, "scoring: "}, {Options{Fields: "all"}, "fields: "}, {Options{Analyzer: "fr"}, "analyzer: "},
		{Options{BatchSize: -1}, "batch_size: "}, {Options{Workers: -1}, "workers: "},
	} {
		if err := tc.o.Validate(); err == nil || !strings.HasPrefix(err.Error(), tc.field) {
			t.Errorf("Validate(%+v) = %v, want an error starting %q", tc.o, err, tc.field)
		}
	}
	d := DefaultOptions()
	if err := d.Validate(); err != nil {
		t.Errorf("DefaultOptions().Validate() = %v", err)
	}
	// Anserini's defaults (Pyserini's LuceneSearcher.set_bm25(0.9, 0.4)).
	if d.K1 != 0.9 || d.B != 0.4 || d.Name() != (Options{}).Name() {
		t.Errorf("DefaultOptions() = %+v (%s), Options{} is %s", d, d.Name(), (Options{}).Name())
	}
}

// TestTiesStraddlingK: five documents tie; with k = 2 the retriever must
// keep the two that trec_eval ranks first among the tied, doc ids in
// descending byte order (trec_eval 9.0.8 breaks score ties by strcmp of the
// docno, descending): d4, d3 — not d0, d1. With both scorings: ragbench's
// own top-k heap and bleve's sorted search.
func TestTiesStraddlingK(t *testing.T) {
	var docs []corpus.Document
	for i := range 5 {
		docs = append(docs, corpus.Document{ID: fmt.Sprint("d", i), Text: "quartz pebble"})
	}
	docs = append(docs, corpus.Document{ID: "z", Text: "other"})
	for _, scoring := range []string{ScoringLucene, ScoringBleve} {
		r := newRetriever(t, chunksOf(t, false, docs...), Options{Scoring: scoring})
		got := search(t, r, 2, "quartz")["q0"]
		if len(got) != 2 || got[0].DocID != "d4" || got[1].DocID != "d3" || got[0].Score != got[1].Score {
			t.Errorf("%s: top 2 of five tied = %v, want d4, d3", scoring, got)
		}
		all := search(t, r, 10, "quartz")["q0"]
		ranked := slices.Clone(all)
		eval.Sort(ranked, eval.TieDocIDDesc)
		if !slices.Equal(all, ranked) {
			t.Errorf("%s: full list %v is not in eval.Sort order %v", scoring, all, ranked)
		}
	}
}

// exhaustive is the reference scorer MaxScore must reproduce bit for bit:
// every posting of every (field, term) clause summed into a per-document
// accumulator in the exhaustive order (fields, then terms in byte order),
// all matching documents sorted by eval.CompareRank and cut at k.
func exhaustive(t *testing.T, r *Retriever, text string, k int) []eval.Result {
	t.Helper()
	scores := map[uint64]float64{}
	terms := r.Terms(text)
	for _, f := range r.fields {
		if f.docCount == 0 {
			continue
		}
		for _, tc := range terms {
			// df over every segment first, then the postings.
			var pls []segment.PostingsList
			df := uint64(0)
			for _, s := range r.segs {
				dict, err := s.seg.Dictionary(f.name)
				if err != nil {
					t.Fatal(err)
				}
				pl, err := dict.PostingsList([]byte(tc.Term), nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				pls = append(pls, pl)
				df += pl.Count()
			}
			if df == 0 {
				continue
			}
			w := float64(tc.Count) * math.Log(1+(float64(f.docCount)-float64(df)+0.5)/(float64(df)+0.5))
			for si, pl := range pls {
				it := pl.Iterator(true, false, false, nil)
				for p, err := it.Next(); p != nil || err != nil; p, err = it.Next() {
					if err != nil {
						t.Fatal(err)
					}
					tf := float64(p.Frequency())
					o := r.segs[si].base + p.Number()
					scores[o] += w * tf / (tf + f.denom(o))
				}
			}
		}
	}
	out := []eval.Result{}
	for d, s := range scores {
		out = append(out, eval.Result{DocID: string(r.side.id(int(d))), Score: s})
	}
	eval.Sort(out, eval.TieDocIDDesc)
	return out[:min(k, len(out))]
}

// TestMaxScoreExact: Search (MaxScore, pruning with exact per-clause
// bounds) returns exactly — ids, order and float64 scores — what summing
// every posting returns, at k = 1, 10 and 100, for frequent and rare terms,
// repeated query terms, both field layouts, exact and lossy lengths, and
// BinaryTF (k1 = 0: every match of a term scores the same, so ties
// straddle every cut); frequent terms are probed through their tf arrays.
func TestMaxScoreExact(t *testing.T) {
	docs := synthetic(2500, 11)
	// A frequent term with a frequency above 255 in one document is read
	// from its postings rather than a byte array (termStats).
	docs = append(docs, corpus.Document{ID: "many-w2", Text: strings.Repeat("w2 ", 300)})
	chunksView, err := corpus.Spec{Strategy: corpus.Fixed, Size: 400, Overlap: 10, Title: true}.Chunk(docs)
	if err != nil {
		t.Fatal(err)
	}
	chunks := chunksView.Slice()
	rng := rand.New(rand.NewPCG(5, 5))
	zipf := rand.NewZipf(rng, 1.1, 1, 20000)
	var queries []string
	for range 80 {
		var ws []string
		for range 1 + rng.IntN(7) {
			ws = append(ws, fmt.Sprintf("w%d", zipf.Uint64()))
		}
		queries = append(queries, strings.Join(ws, " "))
	}
	queries = append(queries, "w1 w1 w2", "w0 w1 w2 w3 w4 w5 w6 w7", "w19999 w1", "nothing-here")
	for _, o := range []Options{{}, {Fields: FieldsMulti}, {ExactLengths: true}, {BinaryTF: true}, {K1: 2, B: 1}, {Workers: 1}} {
		r := newRetriever(t, chunks, o)
		for _, k := range []int{1, 10, 100} {
			run := search(t, r, k, queries...)
			for i, q := range queries {
				want := exhaustive(t, r, q, k)
				if got := run[fmt.Sprint("q", i)]; !cmp.Equal(want, got) {
					t.Fatalf("%+v k=%d %q:\n%s", o, k, q, cmp.Diff(want, got))
				}
			}
		}
	}
}

// TestSyntheticWordsAnalysedAsIs: the scale benchmark's words
// (internal/synth) are single terms that both analyzers keep unchanged (no
// stop word, no stemming), which is what lets its nDCG be compared with
// Lucene's and BM25S's to the third decimal.
func TestSyntheticWordsAnalysedAsIs(t *testing.T) {
	for _, a := range []string{AnalyzerEn, AnalyzerLuceneEn} {
		r := newRetriever(t, chunksOf(t, false, corpus.Document{ID: "d", Text: "x"}), Options{Analyzer: a})
		for _, rank := range []int{0, 1, 2, 18, 19, 360, 361, 5000, 123456, 499999} {
			w := synth.Word(rank)
			if got := r.Terms(w); !cmp.Equal(got, []TermCount{{w, 1}}) {
				t.Errorf("%s: Terms(%q) = %v", a, w, got)
			}
		}
	}
}

// TestBuildStream: Build over an iterator gives New's results, in memory
// and on disk (where the iterator is ranged twice: the cache key, then the
// build), and stops at the iterator's error.
func TestBuildStream(t *testing.T) {
	ctx := context.Background()
	chunks := chunksOf(t, true, synthetic(500, 21)...)
	want := search(t, newRetriever(t, chunks, Options{}), 20, "w1 w2 w3", "w40 w7")
	for _, o := range []Options{{}, {Dir: t.TempDir()}} {
		ranged := 0
		src := func(yield func(corpus.Chunk, error) bool) {
			ranged++
			for _, c := range chunks {
				if !yield(c, nil) {
					return
				}
			}
		}
		r, err := Build(ctx, src, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		if got := search(t, r, 20, "w1 w2 w3", "w40 w7"); !cmp.Equal(want, got) {
			t.Errorf("Dir %q: Build's results differ from New's", o.Dir)
		}
		if wantRanged := map[bool]int{false: 1, true: 2}[o.Dir != ""]; ranged != wantRanged {
			t.Errorf("Dir %q: iterator ranged %d times, want %d", o.Dir, ranged, wantRanged)
		}
	}
	failing := func(yield func(corpus.Chunk, error) bool) {
		if yield(chunks[0], nil) {
			yield(corpus.Chunk{}, errors.New("corpus.jsonl:2: bad line"))
		}
	}
	for _, o := range []Options{{}, {Dir: t.TempDir()}} {
		if _, err := Build(ctx, failing, o); err == nil || !strings.Contains(err.Error(), "corpus.jsonl:2: bad line") {
			t.Errorf("Dir %q: iterator error: err = %v", o.Dir, err)
		}
	}
}

// TestFreqArraysMapped: the frequent terms' tf arrays lie in the
// retriever's one mapping outside the Go heap (freqArray), where the
// platform has one, and Close unmaps it and forgets the arrays.
func TestFreqArraysMapped(t *testing.T) {
	chunksView, err := corpus.Spec{Strategy: corpus.Whole}.Chunk(synthetic(2000, 3))
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(context.Background(), chunksView.Slice(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	search(t, r, 10, "w0 w1 w2", "w3 w1")
	inside, arrays := 0, 0
	r.stats.Range(func(_, v any) bool {
		if st := v.(termStat); st.tfs != nil {
			arrays++
			mem := uintptr(unsafe.Pointer(unsafe.SliceData(r.freqMem)))
			if p := uintptr(unsafe.Pointer(unsafe.SliceData(st.tfs))); r.freqMem != nil && p >= mem && p < mem+uintptr(len(r.freqMem)) {
				inside++
			}
		}
		return true
	})
	if arrays == 0 {
		t.Fatal("no frequent term got a tf array")
	}
	if mapped.CanRelease && inside != arrays {
		t.Fatalf("%d of %d tf arrays in the mapping", inside, arrays)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	n := 0
	r.stats.Range(func(any, any) bool { n++; return true })
	if r.freqMem != nil || n != 0 {
		t.Fatalf("after Close: mapping %d bytes, %d statistics kept", len(r.freqMem), n)
	}
}

// TestSearchAfterClose: a retriever searched after Close (its segments,
// side file and tf arrays' mapping gone) answers with an error, neither a
// nil dereference nor a read of unmapped memory; a second Close is
// harmless.
func TestSearchAfterClose(t *testing.T) {
	chunksView, err := corpus.Spec{Strategy: corpus.Whole}.Chunk(synthetic(500, 3))
	if err != nil {
		t.Fatal(err)
	}
	for _, scoring := range []string{"", ScoringBleve} {
		r, err := New(context.Background(), chunksView.Slice(), Options{Scoring: scoring})
		if err != nil {
			t.Fatal(err)
		}
		search(t, r, 10, "w0 w1 w2")
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		if err := r.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
		for _, q := range []string{"w0 w1", "w7 w9", ""} {
			run, err := r.Search(context.Background(), []retrievers.Query{{ID: "q", Text: q}}, 5)
			if err == nil || !strings.Contains(err.Error(), "closed") {
				t.Fatalf("scoring %q: Search(%q) after Close: %v, %v; want an error saying it is closed", scoring, q, run, err)
			}
		}
	}
}
