package sweep

// Minimal built-in stand-ins for pieces other ragbench packages provide
// (loaders, chunkers, BM25, fusion, measures, tests). Each is reached only
// through the backend seam in backend.go and is replaced there by the real
// package as soon as it is on main.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/retrievers"
)

// scanLines calls fn for each line of a file (BOM and CR stripped).
func scanLines(path string, fn func(n int, line string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r")
		if n == 1 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		if err := fn(n, line); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// builtinLoadQueries reads a BEIR queries.jsonl: query id → text.
func builtinLoadQueries(path string) (map[string]string, error) {
	out := map[string]string{}
	err := scanLines(path, func(n int, line string) error {
		var q struct {
			ID   string `json:"_id"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			return fmt.Errorf("%s:%d: %v", path, n, err)
		}
		if q.ID == "" {
			return fmt.Errorf("%s:%d: _id: missing", path, n)
		}
		out[q.ID] = q.Text
		return nil
	})
	return out, err
}

// sortResults sorts by score descending, ties by id ascending.
func sortResults(l []eval.Result) {
	sort.Slice(l, func(i, j int) bool {
		if l[i].Score != l[j].Score {
			return l[i].Score > l[j].Score
		}
		return l[i].DocID < l[j].DocID
	})
}

// builtinBM25 is Lucene's BM25 over a lowercase alphanumeric tokenizer with
// English stop words removed (no stemming).
type builtinBM25 struct {
	k1, b   float64
	ids     []string
	lens    []float64
	avgdl   float64
	post    map[string][]posting
	build   time.Duration
	queries int
}

type posting struct {
	doc int
	tf  float64
}

var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields("a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with") {
		stopWords[w] = true
	}
}

func analyze(s string) []string {
	var out []string
	for _, t := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if !stopWords[t] {
			out = append(out, t)
		}
	}
	return out
}

func newBuiltinBM25(chunks []corpus.Chunk, k1, b float64) *builtinBM25 {
	t0 := time.Now()
	r := &builtinBM25{k1: k1, b: b, post: map[string][]posting{}}
	total := 0.0
	for i, c := range chunks {
		toks := analyze(c.IndexText())
		tf := map[string]float64{}
		for _, t := range toks {
			tf[t]++
		}
		for t, n := range tf {
			r.post[t] = append(r.post[t], posting{i, n})
		}
		r.ids = append(r.ids, c.ID)
		r.lens = append(r.lens, float64(len(toks)))
		total += float64(len(toks))
	}
	if len(chunks) > 0 {
		r.avgdl = total / float64(len(chunks))
	}
	r.build = time.Since(t0)
	return r
}

func (r *builtinBM25) Search(ctx context.Context, queries []retrievers.Query, k int) (eval.Run, error) {
	if k <= 0 {
		return nil, fmt.Errorf("bm25: k %d must be ≥ 1", k)
	}
	run := eval.Run{}
	n := float64(len(r.ids))
	for _, q := range queries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		scores := map[int]float64{}
		for _, t := range analyze(q.Text) {
			p := r.post[t]
			idf := math.Log(1 + (n-float64(len(p))+0.5)/(float64(len(p))+0.5))
			for _, x := range p {
				norm := r.k1 * (1 - r.b + r.b*r.lens[x.doc]/r.avgdl)
				scores[x.doc] += idf * x.tf / (x.tf + norm)
			}
		}
		l := make([]eval.Result, 0, len(scores))
		for d, s := range scores {
			l = append(l, eval.Result{DocID: r.ids[d], Score: s})
		}
		sortResults(l)
		if len(l) > k {
			l = l[:k]
		}
		run[q.ID] = l
		r.queries++
	}
	return run, nil
}

func (r *builtinBM25) Stats() retrievers.Stats {
	return retrievers.Stats{Build: r.build, Queries: r.queries}
}
