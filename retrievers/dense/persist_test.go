package dense

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/fileutil"
	"github.com/ragbench/ragbench/retrievers"
)

// TestScanMatchesChromem: the contiguous scan returns exactly what chromem's
// own QueryEmbedding over every document returns once sorted by eval.Sort
// (score descending, id descending) and cut at k — the same float32
// similarities bit for bit, ties included (a quarter of the rows are
// copies of others) — on one goroutine and on several.
func TestScanMatchesChromem(t *testing.T) {
	const n, dim = 3*minRowsPerWorker + 100, 16
	rng := rand.New(rand.NewPCG(3, 9))
	vecs, _ := randomVectors(rng, n, dim)
	for i := 0; i < n; i += 4 {
		vecs[i] = vecs[rng.IntN(n)]
	}
	cs, embed := lookupCorpus(vecs)
	r, err := New(context.Background(), cs, embed, Options{BatchSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	for _, procs := range []int{1, 3} {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		for q := range 10 {
			qv := vecs[rng.IntN(n)]
			all, err := r.coll.QueryEmbedding(context.Background(), normalized(qv), n, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]eval.Result, len(all))
			for i, x := range all {
				want[i] = eval.Result{DocID: x.ID, Score: float64(x.Similarity)}
			}
			eval.Sort(want, eval.TieDocIDDesc)
			for _, k := range []int{1, 10, 100} {
				got, err := r.searchVector(context.Background(), qv, k)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(want[:k], got); d != "" {
					t.Fatalf("GOMAXPROCS %d, query %d, k %d (-chromem +scan):\n%s", procs, q, k, d)
				}
			}
		}
	}
}

// TestLoadV1: an index file of format v1 (chromem's gob Export after the
// header line, what Save wrote before v2) still loads, with the same
// results as the index it was saved from.
func TestLoadV1(t *testing.T) {
	ctx := context.Background()
	e := &vecEmbed{}
	r, err := New(ctx, chunks("1 0", "0 1", "1 1", "-1 0", "3 -1"), e.embed, Options{Model: "fake-2d"})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "v1.dense")
	err = fileutil.WriteStream(path, func(w io.Writer) error {
		fmt.Fprintf(w, "%s{\"model\":\"fake-2d\",\"dim\":2,\"count\":5}\n", fileMagicV1)
		return r.db.ExportToWriter(w, true, "", collectionName)
	})
	if err != nil {
		t.Fatal(err)
	}
	l, err := Load(ctx, path, e.embed, Options{Model: "fake-2d"})
	if err != nil {
		t.Fatal(err)
	}
	qs := queries("1 0.5", "-1 -1")
	want, _ := r.Search(ctx, qs, 5)
	got, err := l.Search(ctx, qs, 5)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("v1 file (-built +loaded):\n%s", d)
	}
}

// TestLoadDamaged: a v2 file cut short, with a flipped byte, with data
// after its documents or with a header announcing more documents than it
// holds is an error naming the file, never a panic or a silently different
// index.
func TestLoadDamaged(t *testing.T) {
	ctx := context.Background()
	e := &vecEmbed{}
	r, err := New(ctx, chunks("1 0", "0 1", "1 1", "-1 0", "3 -1"), e.embed, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "ok.dense")
	if err := r.Save(path); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	nl := strings.IndexByte(string(good), '\n') + 1
	flipped := slices.Clone(good)
	flipped[nl+5] ^= 0x40
	for name, data := range map[string][]byte{
		"truncated":  good[:len(good)-7],
		"no-trailer": good[:len(good)-4],
		"flipped":    flipped,
		"extra":      append(slices.Clone(good), 'x'),
		"count":      []byte(strings.Replace(string(good), `"count":5`, `"count":6`, 1)),
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, data, 0o644)
		if _, err := Load(ctx, p, e.embed, Options{}); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: err = %v, want an error naming %s", name, err, p)
		}
	}
}

func queries(texts ...string) []retrievers.Query {
	var qs []retrievers.Query
	for i, t := range texts {
		qs = append(qs, retrievers.Query{ID: fmt.Sprint("q", i), Text: t})
	}
	return qs
}

// TestBuildStream: Build over an iterator gives New's index (same search
// results, same skipped chunks), reports a duplicate id with both
// positions, and stops at the iterator's error.
func TestBuildStream(t *testing.T) {
	ctx := context.Background()
	e := &vecEmbed{}
	cs := chunks("1 0", "", "0 1", "1 1", "-1 0")
	want, err := New(ctx, cs, e.embed, Options{BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Build(ctx, Chunks(cs), e.embed, Options{BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	qs := queries("1 0.5", "-1 -1")
	a, _ := want.Search(ctx, qs, 5)
	b, _ := got.Search(ctx, qs, 5)
	if d := cmp.Diff(a, b); d != "" || !slices.Equal(want.Skipped(), got.Skipped()) {
		t.Errorf("Build differs from New (skipped %v vs %v):\n%s", want.Skipped(), got.Skipped(), d)
	}
	dup := append(chunks("1 0", "0 1"), cs[0])
	if _, err := Build(ctx, Chunks(dup), e.embed, Options{}); err == nil || !strings.Contains(err.Error(), `chunks 0 and 2: duplicate id "c0"`) {
		t.Errorf("duplicate: err = %v", err)
	}
	failing := func(yield func(corpus.Chunk, error) bool) {
		if yield(cs[0], nil) {
			yield(corpus.Chunk{}, errors.New("corpus.jsonl:2: bad line"))
		}
	}
	if _, err := Build(ctx, failing, e.embed, Options{}); err == nil || !strings.Contains(err.Error(), "corpus.jsonl:2: bad line") {
		t.Errorf("iterator error: err = %v", err)
	}
}
