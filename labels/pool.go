package labels

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ragbench/ragbench/anchor"
	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/results"
	"github.com/ragbench/ragbench/spans"
)

// This file holds pooling (bench labels pool, issue 20 item 6; TREC's
// pooling): the passages the retrievers of the last run returned in the
// top depth of some cell that no label of the query judges yet, gathered
// for a person to review.

// DefaultPoolDepth is bench labels pool's depth: each cell's top 10, the
// k most prompts take, as TREC pools the top 100 of each run for systems
// that are read that deep.
const DefaultPoolDepth = 10

// PoolRun is one cell's run of the last sweep, for Pool: its name
// ("<chunking>/<retriever>"), the places of its chunking's chunks, and
// its chunk-level run (runs/<cell>.trec).
type PoolRun struct {
	Cell     string
	Chunking *spans.Chunking
	Run      eval.Run
}

// PoolItem is one line of a review file: an unjudged passage — a chunk's
// text span, Doc [Start, End) in code points, its Text and ContextLen code
// points of context — with the queries that returned it, and how often
// (Returned: the (query, cell) pairs whose top depth holds it).
type PoolItem struct {
	Doc      string      `json:"doc"`
	Start    int         `json:"start"`
	End      int         `json:"end"`
	Returned int         `json:"returned"`
	Text     string      `json:"text"`
	Prefix   string      `json:"prefix"`
	Suffix   string      `json:"suffix"`
	Queries  []PoolQuery `json:"queries"`
}

// PoolQuery is a query that returned a pooled passage: its id and
// question, each cell and rank (from 1, in trec_eval's order) it came back
// at, and Grade, the reviewer's decision: null (not reviewed), ≥ 1 (a gold
// passage of that grade) or 0 (looked at, not relevant).
type PoolQuery struct {
	ID       string    `json:"id"`
	Question string    `json:"question"`
	Hits     []PoolHit `json:"hits"`
	Grade    *int      `json:"grade"`
}

// PoolHit is one cell's return of a pooled passage for a query: the cell,
// the chunk id and its rank.
type PoolHit struct {
	Cell  string `json:"cell"`
	Chunk string `json:"chunk"`
	Rank  int    `json:"rank"`
}

// Pool gathers the unjudged passages of runs (in cell order): for each run
// and each query of queries it holds, the chunks of the query's top depth
// (ranked in trec_eval's order: eval.Sort with eval.TieDocIDDesc, as the
// sweep cuts at k) that the query does not judge — that overlap no passage
// it judges, gold or grade 0, alternatives included, by a code point or
// more: spans.JudgedChunks, judged@k's rule — and are not empty. Chunks of different cells with the
// same span are one item. Items are ordered most returned first (Returned
// descending), then by their best rank, then by doc, start and end; an
// item's queries by hits (descending), best rank, then query id; a
// query's hits by cell order, then rank. Queries of a run that are not in
// queries are left out. Errors: a depth < 1, a run naming a chunk its
// chunking does not have, a chunk of a document docs lacks.
func Pool(queries []spans.Query, docs []corpus.Document, runs []PoolRun, depth int) ([]PoolItem, error) {
	if depth < 1 {
		return nil, fmt.Errorf("pool depth %d: want ≥ 1", depth)
	}
	byID := make(map[string]*spans.Query, len(queries))
	for i := range queries {
		byID[queries[i].ID] = &queries[i]
	}
	ix := anchor.NewIndex(docs)
	type key struct {
		doc        string
		start, end int
	}
	items := map[key]*PoolItem{}
	qhits := map[key]map[string]*PoolQuery{}
	judgedOf := map[*spans.Chunking]eval.Qrels{} // per chunking: the chunks each query judges
	for _, pr := range runs {
		judged := judgedOf[pr.Chunking]
		if judged == nil {
			judged = spans.JudgedChunks(queries, pr.Chunking)
			judgedOf[pr.Chunking] = judged
		}
		for _, qid := range slices.Sorted(maps.Keys(pr.Run)) {
			q, ok := byID[qid]
			if !ok {
				continue
			}
			ranked := slices.Clone(pr.Run[qid])
			eval.Sort(ranked, eval.TieDocIDDesc)
			for rank, res := range ranked[:min(depth, len(ranked))] {
				iv, ok := pr.Chunking.Intervals[res.DocID]
				if !ok {
					return nil, fmt.Errorf("cell %s: query %q: %q is not a chunk of its chunking (the corpus changed since the run?)", pr.Cell, qid, res.DocID)
				}
				if _, seen := judged[qid][res.DocID]; seen || iv.Len() == 0 {
					continue
				}
				k := key{iv.Doc, iv.Start, iv.End}
				it := items[k]
				if it == nil {
					d, ok := ix.Doc(iv.Doc)
					if !ok {
						return nil, fmt.Errorf("cell %s: chunk %q: no document %q in the corpus", pr.Cell, res.DocID, iv.Doc)
					}
					r, err := d.ByCodePoints(iv.Start, iv.End)
					if err != nil {
						return nil, fmt.Errorf("cell %s: chunk %q: %v", pr.Cell, res.DocID, err)
					}
					prefix, suffix := d.Context(r, ContextLen)
					it = &PoolItem{Doc: iv.Doc, Start: iv.Start, End: iv.End, Text: d.Slice(r), Prefix: prefix, Suffix: suffix}
					items[k] = it
					qhits[k] = map[string]*PoolQuery{}
				}
				pq := qhits[k][qid]
				if pq == nil {
					pq = &PoolQuery{ID: qid, Question: q.Text}
					qhits[k][qid] = pq
				}
				pq.Hits = append(pq.Hits, PoolHit{Cell: pr.Cell, Chunk: res.DocID, Rank: rank + 1})
				it.Returned++
			}
		}
	}
	out := make([]PoolItem, 0, len(items))
	for k, it := range items {
		for _, pq := range qhits[k] {
			it.Queries = append(it.Queries, *pq)
		}
		slices.SortFunc(it.Queries, func(a, b PoolQuery) int {
			return cmp.Or(cmp.Compare(len(b.Hits), len(a.Hits)), cmp.Compare(bestRank(a.Hits), bestRank(b.Hits)), strings.Compare(a.ID, b.ID))
		})
		out = append(out, *it)
	}
	slices.SortFunc(out, func(a, b PoolItem) int {
		return cmp.Or(cmp.Compare(b.Returned, a.Returned), cmp.Compare(itemBest(a), itemBest(b)),
			strings.Compare(a.Doc, b.Doc), cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End))
	})
	return out, nil
}

func bestRank(hs []PoolHit) int {
	best := 0
	for i, h := range hs {
		if i == 0 || h.Rank < best {
			best = h.Rank
		}
	}
	return best
}

func itemBest(it PoolItem) int {
	best := 0
	for i, q := range it.Queries {
		if r := bestRank(q.Hits); i == 0 || r < best {
			best = r
		}
	}
	return best
}

// ReadPoolRuns reads the last run of a sweep from its output folder: each
// cell of results.json (results.ReadResults) in order, with its run
// (runs/<cell>.trec, the cell's name with "/" as "__", as bench run writes
// it) and its chunking's chunks of docs (each chunking cut once). Errors
// name the file: no results.json (run bench run first), a run missing or
// unreadable.
func ReadPoolRuns(dir string, docs []corpus.Document) ([]PoolRun, error) {
	res, err := results.ReadResults(filepath.Join(dir, "results.json"))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: no results.json: pooling reads the last run of the config (run 'bench run CONFIG' first)", dir)
		}
		return nil, err
	}
	chunkings := map[string]*spans.Chunking{}
	var out []PoolRun
	for _, c := range res.Cells {
		ch := chunkings[c.Chunking.Name]
		if ch == nil {
			chunks, err := c.Chunking.Spec().Chunk(docs)
			if err != nil {
				return nil, fmt.Errorf("cell %s: %w", c.Name, err)
			}
			if ch, err = spans.NewChunking(docs, chunks); err != nil {
				return nil, fmt.Errorf("cell %s: %w", c.Name, err)
			}
			chunkings[c.Chunking.Name] = ch
		}
		run, err := eval.ReadRun(filepath.Join(dir, "runs", strings.ReplaceAll(c.Name, "/", "__")+".trec"))
		if err != nil {
			return nil, fmt.Errorf("cell %s: %w", c.Name, err)
		}
		out = append(out, PoolRun{Cell: c.Name, Chunking: ch, Run: run})
	}
	return out, nil
}

// WritePool writes items as a review file: JSONL, one PoolItem per line
// in order, HTML characters as they are (docs/labelling.md describes it).
func WritePool(w io.Writer, items []PoolItem) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, it := range items {
		if it.Queries == nil {
			it.Queries = []PoolQuery{}
		}
		if err := enc.Encode(it); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadPool reads a review file (WritePool's format, with the reviewer's
// grades). Every line is a JSON object with exactly WritePool's keys
// (an unknown key is an error: a misspelt "grade" would otherwise be a
// decision silently lost); errors name the file, line and field, all of
// them in one pass.
func ReadPool(path string) ([]PoolItem, []int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var items []PoolItem
	var lines []int
	var errs []error
	for i, line := range bytes.Split(data, []byte("\n")) {
		if i == 0 {
			line = bytes.TrimPrefix(line, []byte("\ufeff"))
		}
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var it PoolItem
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&it); err != nil {
			errs = append(errs, &eval.SyntaxError{File: path, Line: i + 1, Field: "json", Msg: "not a review item: " + err.Error()})
			continue
		}
		for j, q := range it.Queries {
			if q.Grade != nil && *q.Grade < 0 {
				errs = append(errs, &eval.SyntaxError{File: path, Line: i + 1, Field: fmt.Sprintf("queries[%d].grade", j),
					Msg: fmt.Sprintf("query %q: grade %d: want null (not reviewed), 0 (not relevant) or ≥ 1 (relevant)", q.ID, *q.Grade)})
			}
		}
		items = append(items, it)
		lines = append(lines, i+1)
	}
	return items, lines, errors.Join(errs...)
}
