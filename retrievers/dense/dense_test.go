package dense

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/retrievers"
)

// vecEmbed is a fake EmbedFunc: a text "x y …" is the vector (x, y, …);
// it records each call's batch size and query flag.
type vecEmbed struct {
	calls []string // "p3" = 3 passages, "q2" = 2 queries
	seen  []string
}

func (e *vecEmbed) embed(_ context.Context, texts []string, query bool) ([][]float32, error) {
	kind := "p"
	if query {
		kind = "q"
	}
	e.calls = append(e.calls, kind+strconv.Itoa(len(texts)))
	out := make([][]float32, len(texts))
	for i, t := range texts {
		e.seen = append(e.seen, t)
		f := strings.Fields(t)
		v := make([]float32, 0, len(f))
		for _, s := range f {
			x, err := strconv.ParseFloat(s, 32)
			if err != nil {
				x = 7 // title words in TestIndexTextUsed
			}
			v = append(v, float32(x))
		}
		out[i] = v
	}
	return out, nil
}

func chunks(texts ...string) []corpus.Chunk {
	var cs []corpus.Chunk
	for i, t := range texts {
		id := fmt.Sprintf("c%d", i)
		cs = append(cs, corpus.Chunk{ID: id, DocID: id, Text: t})
	}
	return cs
}

var approx = cmpopts.EquateApprox(0, 1e-6) // float32 similarities

func TestSearchHandComputedCosine(t *testing.T) {
	// c0 = (1,0), c1 = (0,1), c2 = (1,1), c3 = (−1,0); query (1, 0.5), ‖q‖ = √1.25.
	//   cos(q,c2) = 1.5/(√1.25·√2) = 0.9486833
	//   cos(q,c0) = 1/√1.25        = 0.8944272
	//   cos(q,c1) = 0.5/√1.25      = 0.4472136
	//   cos(q,c3) = −1/√1.25       = −0.8944272
	e := &vecEmbed{}
	r, err := New(context.Background(), chunks("1 0", "0 1", "1 1", "-1 0"), e.embed, Options{BatchSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Search(context.Background(), []retrievers.Query{{ID: "q", Text: "1 0.5"}}, 10) // k > N: clamped
	if err != nil {
		t.Fatal(err)
	}
	want := eval.Run{"q": {
		{DocID: "c2", Score: 0.9486833}, {DocID: "c0", Score: 0.8944272},
		{DocID: "c1", Score: 0.4472136}, {DocID: "c3", Score: -0.8944272},
	}}
	if d := cmp.Diff(want, got, approx); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"p3", "p1", "q1"}, e.calls); d != "" {
		t.Errorf("embed calls (-want +got):\n%s", d)
	}
	s := r.Stats()
	if s.Queries != 1 || s.IndexBytes != 4*(2*4+2) || s.Build <= 0 {
		t.Errorf("stats %+v", s)
	}
}

func TestSearchTiesDeterministic(t *testing.T) {
	// 30 identical vectors and 10 worse ones: the top 5 must be the 5 largest
	// ids (byte order) among the tied ones, as trec_eval ranks ties (strcmp of
	// the docno, descending), every time, whatever chromem's heap kept.
	var texts []string
	for i := range 40 {
		if i < 30 {
			texts = append(texts, "1 0")
		} else {
			texts = append(texts, "0 1")
		}
	}
	cs := chunks(texts...)
	// Ids c0..c29 tie; sorted as strings, descending: c9, c8, c7, c6, c5
	// (then c4, c3, c29, ...).
	want := []string{"c9", "c8", "c7", "c6", "c5"}
	e := &vecEmbed{}
	r, err := New(context.Background(), cs, e.embed, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, procs := range []int{1, 2, 4} {
		old := runtime.GOMAXPROCS(procs)
		for range 20 {
			got, err := r.Search(context.Background(), []retrievers.Query{{ID: "q", Text: "2 0"}}, 5)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, x := range got["q"] {
				ids = append(ids, x.DocID)
				if math.Abs(x.Score-1) > 1e-6 {
					t.Fatalf("score %v, want 1", x.Score)
				}
			}
			if d := cmp.Diff(want, ids); d != "" {
				t.Fatalf("GOMAXPROCS=%d (-want +got):\n%s", procs, d)
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

func TestSearchZeroAndBadQueries(t *testing.T) {
	e := &vecEmbed{}
	r, err := New(context.Background(), chunks("1 0", "0 1"), e.embed, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Search(context.Background(), []retrievers.Query{{ID: "zero", Text: "0 0"}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if l, ok := got["zero"]; !ok || l == nil || len(l) != 0 {
		t.Errorf("zero query: %#v, want an empty non-nil list", got["zero"])
	}
	for _, tc := range []struct{ text, want string }{
		{"NaN 1", `query "bad": embedding component 0 is NaN`},
		{"1 2 3", `query "bad": embedding has dimension 3, want 2`},
	} {
		if _, err := r.Search(context.Background(), []retrievers.Query{{ID: "bad", Text: tc.text}}, 1); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.text, err, tc.want)
		}
	}
	if _, err := r.Search(context.Background(), nil, 0); err == nil {
		t.Error("k = 0: want an error")
	}
}

func TestNewErrors(t *testing.T) {
	ctx := context.Background()
	e := (&vecEmbed{}).embed
	dup := chunks("1 0", "0 1", "1 1")
	dup[2].ID = "c0"
	for _, tc := range []struct {
		name   string
		chunks []corpus.Chunk
		embed  EmbedFunc
		want   string
	}{
		{"empty", nil, e, "empty corpus"},
		{"duplicate", dup, e, `chunks 0 and 2: duplicate id "c0"`},
		{"dimension", chunks("1 0", "1 0 0"), e, `chunk "c1": embedding has dimension 3, want 2`},
		{"zero", chunks("1 0", "0 0"), e, `chunk "c1": embedding is the zero vector`},
		{"inf", chunks("Inf 0"), e, `chunk "c0": embedding component 0 is +Inf`},
		{"count", chunks("1 0"), func(context.Context, []string, bool) ([][]float32, error) { return nil, nil }, "got 0 vectors for 1 texts"},
		{"nil embed", chunks("1 0"), nil, "embed function is nil"},
	} {
		if _, err := New(ctx, tc.chunks, tc.embed, Options{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := New(ctx, chunks("1 0"), e, Options{BatchSize: -1}); err == nil {
		t.Error("negative batch size: want an error")
	}
}

func TestIndexTextUsed(t *testing.T) {
	e := &vecEmbed{}
	cs := []corpus.Chunk{
		{ID: "a", DocID: "a", Title: "T", Text: "1", TitlePrepended: true},
		{ID: "b", DocID: "b", Title: "T", Text: "1 2", TitlePrepended: false},
	}
	if _, err := New(context.Background(), cs, e.embed, Options{}); err == nil {
		// "T 1" embeds to (7, 1), "1 2" to (1, 2): same dimension, no error.
		if d := cmp.Diff([]string{"T 1", "1 2"}, e.seen); d != "" {
			t.Errorf("embedded texts (-want +got):\n%s", d)
		}
	} else {
		t.Fatal(err)
	}
}

func TestSaveLoad(t *testing.T) {
	ctx := context.Background()
	e := &vecEmbed{}
	r, err := New(ctx, chunks("1 0", "0 1", "1 1", "-1 0", "3 -1"), e.embed, Options{Model: "fake-2d"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "index.dense")
	if err := r.Save(path); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("save left %d files, want 1", len(entries))
	}
	l, err := Load(ctx, path, e.embed, Options{})
	if err != nil {
		t.Fatal(err)
	}
	qs := []retrievers.Query{{ID: "q1", Text: "1 0.5"}, {ID: "q2", Text: "-1 -1"}}
	want, err := r.Search(ctx, qs, 3)
	if err != nil {
		t.Fatal(err)
	}
	got, err := l.Search(ctx, qs, 3)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("loaded index differs (-built +loaded):\n%s", d)
	}
	if l.Len() != 5 || l.Dim() != 2 || l.Stats().IndexBytes != r.Stats().IndexBytes {
		t.Errorf("loaded: len %d dim %d bytes %d", l.Len(), l.Dim(), l.Stats().IndexBytes)
	}
	if _, err := Load(ctx, path, e.embed, Options{Model: "other"}); err == nil || !strings.Contains(err.Error(), `built with model "fake-2d"`) {
		t.Errorf("model mismatch: error %v", err)
	}
	junk := filepath.Join(dir, "junk")
	os.WriteFile(junk, []byte("hello\n"), 0o644)
	if _, err := Load(ctx, junk, e.embed, Options{}); err == nil || !strings.Contains(err.Error(), "junk:1: not a ragbench dense index") {
		t.Errorf("junk file: error %v", err)
	}
	if _, err := Load(ctx, filepath.Join(dir, "missing"), e.embed, Options{}); err == nil {
		t.Error("missing file: want an error")
	}
}

func TestEmptyTextChunksAndQueries(t *testing.T) {
	ctx := context.Background()
	e := &vecEmbed{}
	cs := chunks("1 0", "", "0 1", "  \t")
	r, err := New(ctx, cs, e.embed, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"c1", "c3"}, r.Skipped()); d != "" {
		t.Errorf("skipped (-want +got):\n%s", d)
	}
	if w := r.Warnings(); len(w) != 1 || !strings.Contains(w[0], "2 chunks with empty text not indexed") {
		t.Errorf("warnings %q", w)
	}
	if r.Len() != 2 {
		t.Errorf("indexed %d chunks, want 2", r.Len())
	}
	e.calls = nil
	got, err := r.Search(ctx, []retrievers.Query{{ID: "blank", Text: " "}, {ID: "ok", Text: "1 0"}}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if l := got["blank"]; l == nil || len(l) != 0 {
		t.Errorf("blank query: %#v, want an empty non-nil list", l)
	}
	if len(got["ok"]) != 2 || got["ok"][0].DocID != "c0" {
		t.Errorf("ok query: %v", got["ok"])
	}
	if d := cmp.Diff([]string{"q1"}, e.calls); d != "" {
		t.Errorf("blank query must not reach the embedder (-want +got):\n%s", d)
	}
	if _, err := New(ctx, chunks("", " "), e.embed, Options{}); err == nil || !strings.Contains(err.Error(), "all 2 chunks have empty text") {
		t.Errorf("all empty: error %v", err)
	}
}

func TestValidateNamesField(t *testing.T) {
	for _, tc := range []struct {
		o     Options
		field string
	}{{Options{BatchSize: -1}, "batch_size: "}, {Options{Concurrency: -3}, "concurrency: "}} {
		if err := tc.o.Validate(); err == nil || !strings.HasPrefix(err.Error(), tc.field) {
			t.Errorf("Validate(%+v) = %v, want an error starting %q", tc.o, err, tc.field)
		}
	}
	if err := DefaultOptions().Validate(); err != nil {
		t.Errorf("DefaultOptions().Validate() = %v", err)
	}
}
