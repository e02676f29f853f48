package corpus

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/testenv"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if strings.HasSuffix(name, ".gz") {
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		zw := gzip.NewWriter(f)
		zw.Write([]byte(content))
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		return p
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadFormats(t *testing.T) {
	want := []Document{
		{ID: "d1", Title: "T one", Text: "first text"},
		{ID: "d2", Title: "", Text: ""},
		{ID: "7", Title: "Seven", Text: "ünïcödé 日本語"},
	}
	beir := `{"_id": "d1", "title": "T one", "text": "first text", "metadata": {}}
{"_id": "d2", "title": "", "text": ""}

{"_id": 7, "title": "Seven", "text": "ünïcödé 日本語"}
`
	plain := `{"id": "d1", "title": "T one", "text": "first text"}
{"id": "d2", "text": ""}
{"id": "7", "title": "Seven", "text": "ünïcödé 日本語"}`
	tsv := "id\ttitle\ttext\nd1\tT one\tfirst text\r\nd2\t\t\n7\tSeven\tünïcödé 日本語\n"
	for _, tc := range []struct{ name, content string }{
		{"corpus.jsonl", beir},
		{"corpus.jsonl.gz", beir},
		{"plain.jsonl", plain},
		{"docs.tsv", tsv},
		{"docs.tsv.gz", tsv},
		// A UTF-8 byte order mark and CRLF line ends (Windows editors,
		// Excel exports) read as the plain file, as qrels and runs do.
		{"bom.jsonl", "\ufeff" + strings.ReplaceAll(beir, "\n", "\r\n")},
		{"bom.jsonl.gz", "\ufeff" + strings.ReplaceAll(beir, "\n", "\r\n")},
		{"bom-plain.jsonl", "\ufeff" + strings.ReplaceAll(plain, "\n", "\r\n")},
		{"bom.tsv", "\ufeff" + strings.ReplaceAll(tsv, "\n", "\r\n")},
		// Without a header the BOM must not become part of the first id.
		{"bom-noheader.tsv", "\ufeff" + strings.ReplaceAll(strings.TrimPrefix(tsv, "id\ttitle\ttext\n"), "\n", "\r\n")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Load(writeFile(t, tc.name, tc.content))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Load mismatch (-want +got):\n%s", diff)
			}
			s := Summarize(got)
			if s.Docs != 3 || !cmp.Equal(s.EmptyText, []string{"d2"}) || s.EmptyTitle != 1 || s.Words != 4 {
				t.Errorf("Summarize = %+v, want 3 docs, empty text [d2], 1 empty title, 4 words", s)
			}
		})
	}
}

// TestLoadTwoColumnTSV: MS MARCO's collection.tsv layout, id<TAB>text.
func TestLoadTwoColumnTSV(t *testing.T) {
	for _, content := range []string{"m1\tfirst passage\nm2\t\n", "id\ttext\nm1\tfirst passage\nm2\t\n"} {
		got, err := Load(writeFile(t, "collection.tsv", content))
		if err != nil {
			t.Fatal(err)
		}
		want := []Document{{ID: "m1", Text: "first passage"}, {ID: "m2"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		want          string // substring of the error
	}{
		{"empty.jsonl", "\n\n", "empty corpus"},
		{"dup.jsonl", `{"_id":"a","text":"x"}` + "\n" + `{"_id":"b","text":"y"}` + "\n" + `{"_id":"a","text":"z"}` + "\n",
			`dup.jsonl:3: id: duplicate doc id "a" (first at line 1, again at line 3)`},
		{"dup.tsv", "a\t\tx\nb\t\ty\n\nb\t\tz\n", `dup.tsv:4: id: duplicate doc id "b" (first at line 2, again at line 4)`},
		{"noid.jsonl", `{"title":"t","text":"x"}`, `noid.jsonl:1: _id: missing`},
		{"emptyid.jsonl", `{"_id":" ","text":"x"}`, `emptyid.jsonl:1: _id: empty doc id`},
		{"notext.jsonl", `{"_id":"a","text":"x"}` + "\n" + `{"_id":"b","title":"t"}`, `notext.jsonl:2: text: missing`},
		{"badjson.jsonl", `{"_id":"a","text":"x"}` + "\n" + `{"_id":"b",`, `badjson.jsonl:2: invalid JSON`},
		{"badtype.jsonl", `{"_id":"a","text":5}`, `badtype.jsonl:1: text: want a string`},
		{"cols.tsv", "a\tb\tc\td\n", `cols.tsv:1: want 3 tab-separated columns (id, title, text), got 4`},
		{"mixed.tsv", "a\tb\tc\nb\tx\n", `mixed.tsv:2: want 3 tab-separated columns (id, title, text), as on the first line, got 2`},
		{"mixed2.tsv", "id\ttext\na\tb\nb\tx\ty\n", `mixed2.tsv:3: want 2 tab-separated columns (id, text), as on the first line, got 3`},
		{"both.jsonl", `{"_id":"a","id":"b","text":""}`, `both.jsonl:1: _id: both _id "a" and id "b" given`},
		{"x.csv", "a,b,c\n", `unknown corpus format ".csv"`},
		// A doc id with white space cannot be written to a TREC run or
		// qrels line: refused when loading, not after hours of indexing.
		{"spaceid.jsonl", `{"_id":"a b","text":"x"}`, `spaceid.jsonl:1: _id: doc id "a b" contains white space (TREC run and qrels files cannot hold it)`},
		{"spaceid.tsv", "a\tb\nc d\te\n", `spaceid.tsv:2: id: doc id "c d" contains white space`},
		// encoding/json would read U+FFFD for these bytes: the doc id would
		// no longer match the same id in TREC qrels (bytes kept exact).
		{"utf8id.jsonl", `{"_id":"a","text":"x"}` + "\n" + "{\"_id\":\"d\xff\",\"text\":\"y\"}", `utf8id.jsonl:2: _id: invalid UTF-8 or a lone \u surrogate`},
		// bleve's stored ids and the run files would hold "caf\ufffd" (a
		// qrels line naming the file's id silently missed).
		{"utf8id.tsv", "a\tb\ncaf\xe9\tx\n", `utf8id.tsv:2: id: doc id "caf\xe9" is not valid UTF-8 (byte 0xe9): indexes and runs would store it altered`},
		{"surrogateid.jsonl", `{"id":"d\udc00","text":"y"}`, `surrogateid.jsonl:1: id: invalid UTF-8`},
		// encoding/json keeps the last of two equal keys.
		{"twice.jsonl", `{"_id":"a","text":"x","text":"y"}`, `twice.jsonl:1: text: key given twice in one object`},
		// Only a BOM at the start of the file is dropped; one on a later
		// line is bad JSON there, with the line number.
		{"bom2.jsonl", `{"_id":"a","text":"x"}` + "\r\n\ufeff" + `{"_id":"b","text":"y"}`, `bom2.jsonl:2: invalid JSON`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(writeFile(t, tc.name, tc.content))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Load error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
	trunc := filepath.Join(t.TempDir(), "trunc.jsonl.gz")
	os.WriteFile(trunc, truncatedGzip(), 0o644)
	if _, err := Load(trunc); err == nil || !strings.Contains(err.Error(), trunc+": corrupt gzip") {
		t.Errorf("truncated gzip: err = %v, want %q", err, trunc+": corrupt gzip")
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v, want ErrNotExist", err)
	}
}

// TestLoadShared checks document counts against the dataset README: SciFact
// 5,183 docs; Cranfield 1,400 docs of which two have empty text.
func TestLoadShared(t *testing.T) {
	sci, err := Load(filepath.Join(testenv.Shared(t, "datasets/scifact"), "corpus.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sci) != 5183 {
		t.Errorf("scifact: %d docs, want 5183", len(sci))
	}
	cran, err := Load(filepath.Join(testenv.Shared(t, "datasets/cranfield"), "corpus.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s := Summarize(cran)
	if s.Docs != 1400 || len(s.EmptyText) != 2 {
		t.Errorf("cranfield: %d docs, %d empty texts (%v); want 1400 and 2", s.Docs, len(s.EmptyText), s.EmptyText)
	}
	if w := s.Warnings(); len(w) != 1 || !strings.HasPrefix(w[0], "2 documents with empty text") {
		t.Errorf("cranfield warnings = %q", w)
	}
	// Every Cranfield doc, the empty ones included, gets a chunk.
	chunks, err := chunkSlice(Spec{Strategy: Fixed, Size: 64, Overlap: 16, Title: true}.Chunk(cran))
	if err != nil {
		t.Fatal(err)
	}
	perDoc := map[string]int{}
	for _, c := range chunks {
		perDoc[c.DocID]++
		if got := cran[0].Text; c.DocID == cran[0].ID && c.Text != got[c.Start:c.End] {
			t.Fatalf("chunk %s text does not match its offsets", c.ID)
		}
	}
	if len(perDoc) != 1400 {
		t.Errorf("cranfield fixed-64o16: chunks cover %d docs, want 1400", len(perDoc))
	}
}

func TestHash(t *testing.T) {
	a := []Document{{ID: "a", Title: "b", Text: "c"}}
	b := []Document{{ID: "a", Title: "", Text: "bc"}}
	if Hash(a) == Hash(b) {
		t.Error("Hash does not separate fields")
	}
	if Hash(a) != Hash([]Document{{ID: "a", Title: "b", Text: "c"}}) {
		t.Error("Hash not deterministic")
	}
}

func TestSpecNames(t *testing.T) {
	for _, tc := range []struct {
		spec Spec
		name string
		key  string
	}{
		{Spec{Strategy: Whole}, "doc", "doc"},
		{Spec{Strategy: Whole, Title: true}, "doc", "doc+title"},
		{Spec{Strategy: Fixed, Size: 128, Overlap: 32}, "fixed-128o32", "fixed-128o32"},
		{Spec{Strategy: Fixed, Size: 128}, "fixed-128", "fixed-128"},
		{Spec{Strategy: Sentence, Size: 256, Title: true}, "sent-256", "sent-256+title"},
	} {
		if err := tc.spec.Validate(); err != nil {
			t.Errorf("%+v: %v", tc.spec, err)
		}
		if got := tc.spec.Name(); got != tc.name {
			t.Errorf("%+v.Name() = %q, want %q", tc.spec, got, tc.name)
		}
		if got := tc.spec.Key(); got != tc.key {
			t.Errorf("%+v.Key() = %q, want %q", tc.spec, got, tc.key)
		}
		back, err := ParseSpec(tc.key)
		if err != nil || back != tc.spec {
			t.Errorf("ParseSpec(%q) = %+v, %v; want %+v", tc.key, back, err, tc.spec)
		}
	}
	for _, bad := range []Spec{
		{Strategy: "words"},
		{Strategy: Whole, Size: 5},
		{Strategy: Fixed},
		{Strategy: Fixed, Size: 4, Overlap: 4},
		{Strategy: Fixed, Size: 4, Overlap: -1},
		{Strategy: Sentence, Size: 0},
		{Strategy: Sentence, Size: 10, Overlap: 2},
	} {
		if bad.Validate() == nil {
			t.Errorf("%+v: Validate accepted it", bad)
		}
		if _, err := bad.Chunk([]Document{{ID: "a", Text: "x"}}); err == nil {
			t.Errorf("%+v: Chunk accepted it", bad)
		}
	}
	for _, bad := range []string{"", "fixed-", "fixed-10o10", "sent-x", "paragraph"} {
		if _, err := ParseSpec(bad); err == nil {
			t.Errorf("ParseSpec(%q) accepted it", bad)
		}
	}
}

// TestChunkOffsets checks hand-computed byte offsets. The text
//
//	"aa bb  cc dd ee"
//	 0123456789012345
//
// has the words aa [0,2) bb [3,5) cc [7,9) dd [10,12) ee [13,15).
func TestChunkOffsets(t *testing.T) {
	doc := Document{ID: "d", Title: "Title", Text: "aa bb  cc dd ee"}
	type off struct {
		id         string
		start, end int
		text       string
	}
	for _, tc := range []struct {
		spec Spec
		want []off
	}{
		{Spec{Strategy: Whole}, []off{{"d", 0, 15, "aa bb  cc dd ee"}}},
		// windows of 2 every 1 word: aa-bb, bb-cc, cc-dd, dd-ee (stops at the last word).
		{Spec{Strategy: Fixed, Size: 2, Overlap: 1}, []off{
			{"d#0", 0, 5, "aa bb"}, {"d#1", 3, 9, "bb  cc"}, {"d#2", 7, 12, "cc dd"}, {"d#3", 10, 15, "dd ee"}}},
		// windows of 3 every 3 words: aa-cc, dd-ee.
		{Spec{Strategy: Fixed, Size: 3}, []off{{"d#0", 0, 9, "aa bb  cc"}, {"d#1", 10, 15, "dd ee"}}},
		// windows of 3 every 2 words: aa-cc, cc-ee (ends at the last word, no third window).
		{Spec{Strategy: Fixed, Size: 3, Overlap: 1}, []off{{"d#0", 0, 9, "aa bb  cc"}, {"d#1", 7, 15, "cc dd ee"}}},
		{Spec{Strategy: Fixed, Size: 10, Overlap: 3}, []off{{"d#0", 0, 15, "aa bb  cc dd ee"}}},
	} {
		chunks, err := chunkSlice(tc.spec.Chunk([]Document{doc}))
		if err != nil {
			t.Fatal(err)
		}
		var got []off
		for i, c := range chunks {
			got = append(got, off{c.ID, c.Start, c.End, c.Text})
			if c.DocID != "d" || c.Title != "Title" || c.TitlePrepended {
				t.Errorf("%s: chunk %d: doc %q title %q prepended %v", tc.spec.Name(), i, c.DocID, c.Title, c.TitlePrepended)
			}
			if tc.spec.Strategy != Whole && c.Index != i {
				t.Errorf("%s: chunk %d has Index %d", tc.spec.Name(), i, c.Index)
			}
		}
		if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(off{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.spec.Name(), diff)
		}
	}
}

// TestChunkSentences checks sentence packing by hand. The text
//
//	"One two. Three four five. Six."
//
// has three sentences: "One two." [0,8) (2 words), "Three four five."
// [9,25) (3 words), "Six." [26,30) (1 word).
func TestChunkSentences(t *testing.T) {
	text := "One two. Three four five. Six."
	if got, want := Sentences(text), [][2]int{{0, 8}, {9, 25}, {26, 30}}; !cmp.Equal(got, want) {
		t.Errorf("Sentences = %v, want %v", got, want)
	}
	// Not sentence ends: a lower-case next word, a decimal, no space.
	if got := Sentences("e.g. this one. p = 0.05 here"); len(got) != 1 {
		t.Errorf("Sentences split %v, want one sentence", got)
	}
	for _, tc := range []struct {
		size int
		want [][2]int
	}{
		// size 4: 2 words, +3 = 5 > 4 → flush; 3 words + 1 = 4 ≤ 4.
		{4, [][2]int{{0, 8}, {9, 30}}},
		// size 5: 2 + 3 = 5 fits; +1 = 6 → flush.
		{5, [][2]int{{0, 25}, {26, 30}}},
		{6, [][2]int{{0, 30}}},
		// size 2: "Three four five." is longer than 2 words → windows "Three four" [9,19), "five." [20,25).
		{2, [][2]int{{0, 8}, {9, 19}, {20, 25}, {26, 30}}},
	} {
		chunks, err := chunkSlice(Spec{Strategy: Sentence, Size: tc.size, Title: true}.Chunk([]Document{{ID: "s", Text: text}}))
		if err != nil {
			t.Fatal(err)
		}
		var got [][2]int
		for _, c := range chunks {
			got = append(got, [2]int{c.Start, c.End})
			if c.Text != text[c.Start:c.End] || !c.TitlePrepended {
				t.Errorf("sent-%d: chunk %s text %q, prepended %v", tc.size, c.ID, c.Text, c.TitlePrepended)
			}
		}
		if !cmp.Equal(got, tc.want) {
			t.Errorf("sent-%d: offsets %v, want %v", tc.size, got, tc.want)
		}
	}
}

func TestChunkUnicodeAndEmpty(t *testing.T) {
	// "é" is 2 bytes, "日本" 6 bytes; U+3000 (ideographic space, 3 bytes) separates words.
	docs := []Document{
		{ID: "u", Text: "é 日本\u3000x"},
		{ID: "e", Title: "Only a title", Text: "  "},
	}
	chunks, err := chunkSlice(Spec{Strategy: Fixed, Size: 2, Title: true}.Chunk(docs))
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		ID         string
		Start, End int
		Index      string
	}
	var g []got
	for _, c := range chunks {
		g = append(g, got{c.ID, c.Start, c.End, c.IndexText()})
	}
	want := []got{
		{"u#0", 0, 9, "é 日本"},
		{"u#1", 12, 13, "x"},
		{"e#0", 0, 0, "Only a title"},
	}
	if diff := cmp.Diff(want, g); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := (Spec{Strategy: Whole}).Chunk([]Document{{ID: "a"}, {ID: "a"}}); err == nil {
		t.Error("duplicate doc ids accepted by Chunk")
	}
}

// TestMaxP: chunk scores d1#0 3, d2#0 5, d1#1 7, d3#0 5, d2#1 1 → documents
// d1 7 (max of 3, 7), then d3 5 and d2 5 (max of 5, 1): the tie is broken by
// doc id descending, as trec_eval ranks it (strcmp of the docno), so a cut at
// 2 keeps d3 as the evaluation does (it kept d2 when ties went by id
// ascending).
func TestMaxP(t *testing.T) {
	chunks := []Chunk{{ID: "d1#0", DocID: "d1"}, {ID: "d1#1", DocID: "d1"}, {ID: "d2#0", DocID: "d2"},
		{ID: "d2#1", DocID: "d2"}, {ID: "d3#0", DocID: "d3"}}
	run := eval.Run{
		"q1": {res("d1#0", 3), res("d2#0", 5), res("d1#1", 7), res("d3#0", 5), res("d2#1", 1)},
		"q2": {},
		"q3": {res("plain", 2)},
	}
	got := MaxP(run, DocOf(ChunkList(chunks)))
	want := eval.Run{
		"q1": {res("d1", 7), res("d3", 5), res("d2", 5)},
		"q2": {},
		"q3": {res("plain", 2)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("MaxP (-want +got):\n%s", diff)
	}
	if len(run["q1"]) != 5 || run["q1"][0].DocID != "d1#0" {
		t.Error("MaxP modified its input")
	}
}

func res(id string, score float64) eval.Result { return eval.Result{DocID: id, Score: score} }

func TestCheckLabels(t *testing.T) {
	docs := []Document{{ID: "a", Text: "w1 w2 w3 w4"}, {ID: "b", Text: "w1 w2"}}
	spec := Spec{Strategy: Fixed, Size: 2}
	chunks, err := spec.Chunk(docs) // a#0 a#1 b#0
	if err != nil {
		t.Fatal(err)
	}
	lvl, err := CheckLabels(eval.Qrels{"q": {"a": 1, "zz": 1}}, docs, spec, chunks)
	if err != nil || lvl != DocLevel {
		t.Errorf("doc qrels: %v, %v; want document, nil", lvl, err)
	}
	lvl, err = CheckLabels(eval.Qrels{"q": {"a#1": 1, "b#0": 0}}, docs, spec, chunks)
	if err != nil || lvl != ChunkLevel {
		t.Errorf("chunk qrels: %v, %v; want chunk, nil", lvl, err)
	}
	// Labels made with fixed-1: a#3 and b#1 do not exist under fixed-2.
	_, err = CheckLabels(eval.Qrels{"q": {"a#3": 1, "a#0": 1}, "r": {"b#1": 2}}, docs, spec, chunks)
	var stale *StaleLabelsError
	if !errors.As(err, &stale) || !cmp.Equal(stale.Missing, []string{"a#3", "b#1"}) || stale.Total != 3 {
		t.Fatalf("stale qrels: err = %v, want StaleLabelsError missing [a#3 b#1] of 3", err)
	}
	if !strings.Contains(err.Error(), "stale") || !strings.Contains(err.Error(), "fixed-2") {
		t.Errorf("error %q should say stale and name the chunking", err)
	}
}

// TestLabelInfo: chunk ids like "a#0" exist under fixed-2 and fixed-3 alike,
// so only the recorded chunking shows that fixed-2 labels are stale for
// fixed-3.
func TestLabelInfo(t *testing.T) {
	docs := []Document{{ID: "a", Text: "w1 w2 w3 w4"}, {ID: "b", Text: "w1 w2"}}
	made := Spec{Strategy: Fixed, Size: 2}
	qrelsPath := filepath.Join(t.TempDir(), "chunk-qrels.tsv")
	qrels := eval.Qrels{"q": {"a#0": 1, "b#0": 1}}
	if err := WriteLabelInfo(qrelsPath, NewLabelInfo(made, docs)); err != nil {
		t.Fatal(err)
	}
	info, err := ReadLabelInfo(qrelsPath)
	if err != nil || info.Chunking != "fixed-2" || info.Corpus != Hash(docs) {
		t.Fatalf("ReadLabelInfo = %+v, %v", info, err)
	}
	chunks2, _ := made.Chunk(docs)
	if lvl, err := CheckLabelsFile(qrelsPath, qrels, docs, made, chunks2); err != nil || lvl != ChunkLevel {
		t.Errorf("same chunking: %v, %v", lvl, err)
	}
	other := Spec{Strategy: Fixed, Size: 3, Title: true}
	chunks3, _ := other.Chunk(docs)
	if _, err := CheckLabels(qrels, docs, other, chunks3); err != nil {
		t.Fatalf("ids alone: %v (a#0 and b#0 exist under fixed-3 too)", err)
	}
	_, err = CheckLabelsFile(qrelsPath, qrels, docs, other, chunks3)
	var stale *StaleLabelsError
	if !errors.As(err, &stale) || !strings.Contains(err.Error(), "made with chunking fixed-2, not fixed-3+title") {
		t.Errorf("other chunking: err = %v", err)
	}
	edited := []Document{{ID: "a", Text: "w1 w2 w3 w5"}, {ID: "b", Text: "w1 w2"}}
	_, err = CheckLabelsFile(qrelsPath, qrels, edited, made, chunks2)
	if !errors.As(err, &stale) || !stale.CorpusChanged {
		t.Errorf("edited corpus: err = %v", err)
	}
	// No record: ids only.
	if _, err := CheckLabelsFile(filepath.Join(t.TempDir(), "none.tsv"), qrels, docs, other, chunks3); err != nil {
		t.Errorf("no record: %v", err)
	}
	os.WriteFile(LabelInfoPath(qrelsPath), []byte(`{"chunking": "paragraph"}`), 0o644)
	if _, err := ReadLabelInfo(qrelsPath); err == nil || !strings.Contains(err.Error(), "chunking") {
		t.Errorf("bad record: err = %v", err)
	}
}

// truncatedGzip is a gzip stream of a one-document corpus cut before its
// 8-byte trailer: every line decompresses, only gzip can tell it is short.
func truncatedGzip() []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(`{"_id":"a","text":"x"}` + "\n"))
	zw.Close()
	return b.Bytes()[:b.Len()-8]
}
