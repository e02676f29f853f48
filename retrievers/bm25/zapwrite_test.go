package bm25

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/document"
	index "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"
	"github.com/blevesearch/vellum"
	"github.com/google/go-cmp/cmp"

	"github.com/ragbench/ragbench/corpus"
)

// segContent is everything zap's reader shows of a segment.
type segContent struct {
	Count  uint64
	Fields []string
	Dicts  map[string][]termPostings
	Stored [][]string // per document: field, type, value, array positions
	DocIDs []string
}

type termPostings struct {
	Term     string
	Postings []string // "doc freq normbits"
}

func readSegment(t *testing.T, seg segment.Segment) segContent {
	t.Helper()
	c := segContent{Count: seg.Count(), Fields: slices.Sorted(slices.Values(seg.Fields())), Dicts: map[string][]termPostings{}}
	for _, f := range c.Fields {
		dict, err := seg.Dictionary(f)
		if err != nil {
			t.Fatal(err)
		}
		it := dict.AutomatonIterator(&vellum.AlwaysMatch{}, nil, nil)
		for e, err := it.Next(); e != nil || err != nil; e, err = it.Next() {
			if err != nil {
				t.Fatal(err)
			}
			pl, err := dict.PostingsList([]byte(e.Term), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			tp := termPostings{Term: e.Term}
			pit := pl.Iterator(true, true, true, nil)
			for p, err := pit.Next(); p != nil || err != nil; p, err = pit.Next() {
				if err != nil {
					t.Fatal(err)
				}
				tp.Postings = append(tp.Postings, fmt.Sprint(p.Number(), p.Frequency(), math.Float64bits(p.Norm()), len(p.Locations())))
			}
			if uint64(len(tp.Postings)) != pl.Count() {
				t.Errorf("%s %q: %d postings iterated, Count %d", f, e.Term, len(tp.Postings), pl.Count())
			}
			c.Dicts[f] = append(c.Dicts[f], tp)
		}
		if len(c.Dicts[f]) != dict.Cardinality() {
			t.Errorf("%s: %d terms iterated, Cardinality %d", f, len(c.Dicts[f]), dict.Cardinality())
		}
	}
	for d := range seg.Count() {
		var fs []string
		err := seg.VisitStoredFields(d, func(field string, typ byte, value []byte, pos []uint64) bool {
			fs = append(fs, fmt.Sprintf("%s %c %q %v", field, typ, value, pos))
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		c.Stored = append(c.Stored, fs)
		id, err := seg.DocID(d)
		if err != nil {
			t.Fatal(err)
		}
		c.DocIDs = append(c.DocIDs, string(id))
	}
	return c
}

// zapBuilt is the reference: the chunks as bleve documents, mapped and
// analysed by bleve (as scorch's builder does: fields, then AddIDField),
// made into a segment by zap's own builder.
func zapBuilt(t *testing.T, chunks []corpus.Chunk, o Options, path string) segment.Segment {
	t.Helper()
	m, err := newMapping(o)
	if err != nil {
		t.Fatal(err)
	}
	names := fieldNames(o.Fields)
	var docs []index.Document
	for _, c := range chunks {
		data := map[string]any{}
		for f, text := range fieldTexts(c, o.Fields) {
			data[names[f]] = text
		}
		doc := document.NewDocument(c.ID)
		if err := m.MapDocument(doc, data); err != nil {
			t.Fatal(err)
		}
		doc.AddIDField()
		for _, f := range doc.Fields {
			if f.Options().IsIndexed() {
				f.Analyze()
			}
		}
		docs = append(docs, doc)
	}
	seg, _, err := zapPlugin.New(docs)
	if err != nil {
		t.Fatal(err)
	}
	if err := seg.(segment.UnpersistedSegment).Persist(path); err != nil {
		t.Fatal(err)
	}
	seg.Close()
	out, err := zapPlugin.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// ourSegment analyses chunks as one batch and writes the segment as a
// build does.
func ourSegment(t *testing.T, chunks []corpus.Chunk, o Options, path string) segment.Segment {
	t.Helper()
	m, err := newMapping(o)
	if err != nil {
		t.Fatal(err)
	}
	names := fieldNames(o.Fields)
	kinds, err := textFieldKinds(m, names)
	if err != nil {
		t.Fatal(err)
	}
	w := newSegWorker(newTextAnalyzer(m.AnalyzerNamed(o.Analyzer)), names, kinds)
	b := &segBatch{}
	for _, c := range chunks {
		b.ids = append(b.ids, c.ID)
		b.texts = append(b.texts, fieldTexts(c, o.Fields)...)
	}
	if res := w.build(t.Context(), filepath.Dir(path), b); res.err != nil {
		t.Fatal(res.err)
	} else if err := os.Rename(filepath.Join(filepath.Dir(path), res.file), path); err != nil {
		t.Fatal(err)
	}
	seg, err := zapPlugin.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return seg
}

// TestSegmentMatchesZap: a segment ragbench writes (its analysis, its
// inversion, its zap writer) shows through zap's reader exactly what zap's
// own builder makes of the same chunks analysed by bleve — fields, every
// term of every field in order, every posting's document, frequency and
// norm, the stored _id and DocID of every document — on synthetic chunks,
// edge cases (empty texts and titles, stop words only, a frequency above
// 255, non-Latin text and ids, punctuation), and SciFact documents, in both
// field layouts and with both analyzers (the edge cases only under -race).
func TestSegmentMatchesZap(t *testing.T) {
	edge := []corpus.Document{
		{ID: "e-empty", Title: "", Text: ""},
		{ID: "e-title-only", Title: "Only A Title", Text: ""},
		{ID: "e-stop", Title: "the", Text: "of the and a to"},
		{ID: "e-many", Title: "x", Text: strings.Repeat("quartz ", 300) + "pebble"},
		{ID: "e-ünï-日本", Title: "Привет", Text: "Привет мир 日本語 s. 38(2) wear & tear? don't U.S.A. 3.14 1,000 e.g. a:b x_y"},
		{ID: "e-punct", Title: "(Cats')", Text: "cat's CAT’S \"quoted\" end. 'single' -- ... ;;; ::: ___"},
	}
	type corpusCase struct {
		name   string
		chunks []corpus.Chunk
	}
	cases := []corpusCase{{"edge", append(chunksOf(t, true, edge...), chunksOf(t, false, synthetic(20, 6)...)...)}}
	if !raceDetector {
		sci, _, _ := scifact(t)
		cases = append(cases, corpusCase{"scifact", sci[:1200]},
			corpusCase{"synthetic", chunksOfSpec(t, corpus.Spec{Strategy: corpus.Fixed, Size: 50, Overlap: 10, Title: true}, synthetic(300, 5))})
	}
	for _, tc := range cases {
		for _, o := range []Options{{}, {Fields: FieldsMulti}, {Analyzer: AnalyzerLuceneEn}} {
			o, err := o.withDefaults()
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			want := readSegment(t, zapBuilt(t, tc.chunks, o, filepath.Join(dir, "zap.zap")))
			got := readSegment(t, ourSegment(t, tc.chunks, o, filepath.Join(dir, "ours.zap")))
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%s %+v: segment differs from zap's (-zap +ours):\n%.3000s", tc.name, o, d)
			}
		}
	}
}

func chunksOfSpec(t *testing.T, spec corpus.Spec, docs []corpus.Document) []corpus.Chunk {
	t.Helper()
	csView, err := spec.Chunk(docs)
	if err != nil {
		t.Fatal(err)
	}
	cs := csView.Slice()
	return cs
}
