package sweep

import (
	"cmp"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/hashkey"
	"github.com/ragbench/ragbench/results"
	"github.com/ragbench/ragbench/spans"
)

// This file holds judged coverage (issue 20 item 4, docs/labelling.md):
// per cell and group, judged@k (eval.JudgedShare, the one rule) over the
// judgements of the labels, the holes (spans.FindHoles) and, with
// dataset.judged_only, every metric on judged results only (eval.Condense,
// trec_eval -J's rule).

// judgedSet is, per query, the ids a cell's results are judged by: with
// span labels the chunks (or a pipeline's passages) overlapping a judged
// passage (spans.JudgedChunks, computed once per chunking), else the
// labels' own judgements (ids of any grade ≥ 0, at the level the run is
// scored at).
func (ds *dataset) judgedSet(sc *spanCells) eval.Qrels {
	if sc == nil {
		return ds.qrels
	}
	if sc.judged == nil {
		sc.judged = spans.JudgedChunks(ds.spanQueries, sc.ch)
	}
	return sc.judged
}

// fullText is the text an item of a run holds: a chunk's own text when id
// is a chunk id of chunks, else the document's. Read back by offset
// (corpus.Texts.Detach), as every random lookup of scoring is, so that the
// lookups do not fault the spilled corpus back into the RSS.
func (ds *dataset) fullText(id string, chunkByID *corpus.IDIndex, chunks corpus.Chunks) string {
	if i, ok := chunkByID.Get(id); ok && chunks.ID(i) != chunks.At(i).DocID {
		return ds.texts.Detach(chunks.At(i).Text)
	}
	if i, ok := ds.docByID.Get(id); ok {
		return ds.texts.Detach(ds.docs[i].Text)
	}
	return ""
}

// holeFinder is the spans.HoleFinder of the cell's chunks, one per
// chunking (its cells return many of the same chunks: each chunk is
// compared with each gold passage once) or per cell of a pipeline's own
// passages. Cells are scored one after another, so only the current
// chunks' finder is kept; they are known by their first chunk's address.
func (ds *dataset) holeFinder(in cellInputs) *spans.HoleFinder {
	if ds.holes == nil || !ds.holesOf.Same(in.chunks) {
		ds.holesOf = in.chunks
		ds.holes = spans.NewHoleFinder(func(c string) string { return ds.fullText(c, in.chunkByID, in.chunks) })
	}
	return ds.holes
}

// goldTexts are query id's gold passages as texts: its gold spans, or its
// relevant ids' texts (grade ≥ 1, in id order).
func (ds *dataset) goldTexts(id string, in cellInputs) []spans.GoldText {
	if in.spans != nil {
		if ds.spanByID == nil {
			ds.spanByID = make(map[string]spans.Query, len(ds.spanQueries))
			for _, q := range ds.spanQueries {
				ds.spanByID[q.ID] = q
			}
		}
		return spans.SpanGold(ds.spanByID[id])
	}
	var out []spans.GoldText
	for _, g := range slices.Sorted(maps.Keys(ds.qrels[id])) {
		if ds.qrels[id][g] >= 1 {
			out = append(out, spans.GoldText{Label: g, Text: ds.fullText(g, in.chunkByID, in.chunks)})
		}
	}
	return out
}

// cellJudged is the judged coverage of a cell's final run over the
// answerable queries: judged@k and holes@k per group at every k of the
// config, the holes in the top max(k) (the most similar first, at most
// results.MaxHoles), and with dataset.judged_only every metric of the
// config on the run condensed to its judged results. Cancelling ctx stops
// it with ctx's error.
func cellJudged(ctx context.Context, cfg *Config, ds *dataset, in cellInputs) (*results.JudgedCoverage, error) {
	judged := ds.judgedSet(in.spans)
	maxK := slices.Max(cfg.K)
	share := map[string]map[string]float64{} // query → judged@k
	finder := ds.holeFinder(in)
	var hq []spans.HoleQuery
	for _, id := range ds.answerable {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		res := slices.Clone(in.run[id])
		eval.Sort(res, eval.TieDocIDDesc)
		isJudged := func(r eval.Result) bool { g, ok := judged[id][r.DocID]; return ok && g >= 0 }
		share[id] = map[string]float64{}
		for _, k := range cfg.K {
			share[id][config.MetricName("judged", k)] = eval.JudgedShare(res[:min(k, len(res))], isJudged)
		}
		ids := make([]string, len(res))
		for j, r := range res {
			ids[j] = r.DocID
		}
		hq = append(hq, spans.HoleQuery{Query: id, IDs: ids, Judged: judged[id], Gold: ds.goldTexts(id, in)})
	}
	// The edit distances are most of scoring's time (a hundred unjudged
	// results × each gold passage, per query): read back from the cache
	// when the same comparisons were made before, else on every core,
	// stopped by ctx between two of them.
	holesPath := holesCachePath(cfg.CacheDir, hq, maxK, func(id string) string { return ds.fullText(id, in.chunkByID, in.chunks) })
	holes, ok := readHoles(holesPath)
	if !ok {
		var err error
		if holes, err = finder.FindAll(ctx, hq, maxK, runtime.GOMAXPROCS(0)); err != nil {
			return nil, err
		}
		if holesPath != "" {
			if err := writeCacheJSON(holesPath, holes); err != nil {
				return nil, err
			}
		}
	}
	jc := &results.JudgedCoverage{Judged: map[string]map[string]float64{}, Holes: map[string]map[string]int{}, HoleList: []results.Hole{}}
	holesOf := map[string][]spans.Hole{}
	for _, h := range holes {
		holesOf[h.Query] = append(holesOf[h.Query], h)
	}
	for g, ids := range ds.answerableGroups() {
		jc.Judged[g], jc.Holes[g] = map[string]float64{}, map[string]int{}
		for _, k := range cfg.K {
			name := config.MetricName("judged", k)
			sum, n := 0.0, 0
			for _, id := range ids {
				sum += share[id][name]
				for _, h := range holesOf[id] {
					if h.Rank <= k {
						n++
					}
				}
			}
			jc.Judged[g][name] = sum / float64(len(ids))
			jc.Holes[g][config.MetricName("holes", k)] = n
		}
	}
	// The most similar first (a hole's similarity is ≥ spans.HoleThreshold,
	// never NaN), then by query and rank.
	slices.SortStableFunc(holes, func(a, b spans.Hole) int {
		return cmp.Or(cmp.Compare(b.Similarity, a.Similarity), strings.Compare(a.Query, b.Query), a.Rank-b.Rank)
	})
	for _, h := range holes[:min(len(holes), results.MaxHoles)] {
		jc.HoleList = append(jc.HoleList, results.Hole{QueryID: h.Query, Rank: h.Rank, ID: h.ID, Gold: h.Gold, Similarity: h.Similarity,
			Snippet: ds.snippet(h.ID, cfg.Snippet, in.chunkByID, in.chunks)})
	}
	if cfg.Dataset.JudgedOnly {
		scores, err := cellScores(ctx, cfg, ds, in.spans, eval.Condense(judged, in.run))
		if err != nil {
			return nil, err
		}
		var cr results.CellResult
		cr.Means, cr.Counts, cr.PerQuery = map[string]map[string]float64{}, map[string]int{}, map[string]map[string]float64{}
		if err := cellMeans(ctx, cfg, ds, scores, &cr); err != nil {
			return nil, err
		}
		jc.JudgedOnly = cr.Means
	}
	return jc, nil
}

// holesCacheVersion is part of every holes-cache key; it goes up whenever
// the rule that finds holes (spans.FindHoles, anchor's similarity) changes
// its answer for the same inputs.
const holesCacheVersion = 1

// holesCachePath is the file under cacheDir ("": none) that holds the
// holes of the queries hq at depth n: cacheDir/holes/<key[:2]>/<key>.json,
// the key a hash of everything the holes depend on — the rule's version
// and threshold, n, every query's ranking, judgements and gold passages,
// and the id and text (text(id)) of every unjudged result in a top n, the
// only texts compared. A cached rerun of a sweep so reads its holes back
// instead of computing tens of thousands of edit distances again.
func holesCachePath(cacheDir string, hq []spans.HoleQuery, n int, text func(id string) string) string {
	if cacheDir == "" {
		return ""
	}
	f := hashkey.NewFields()
	seen := map[string]bool{}
	for _, q := range hq {
		for _, id := range q.IDs[:min(n, len(q.IDs))] {
			if g, ok := q.Judged[id]; (ok && g >= 0) || seen[id] {
				continue
			}
			seen[id] = true
			f.Put(id)
			f.Put(text(id))
		}
	}
	key := hashkey.Of(map[string]any{"v": holesCacheVersion, "threshold": spans.HoleThreshold, "n": n, "queries": hq, "texts": f.Hex()})
	return filepath.Join(cacheDir, "holes", key[:2], key+".json")
}

// readHoles reads the holes cached at path; ok is false when there are
// none or they cannot be read (they are then found again and rewritten).
func readHoles(path string) (holes []spans.Hole, ok bool) {
	if path == "" {
		return nil, false
	}
	b, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(b, &holes) != nil {
		return nil, false
	}
	return holes, true
}
