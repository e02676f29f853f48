package sweep

import (
	"maps"
	"slices"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/kinds"
	"github.com/ragbench/ragbench/results"
)

// missQuery is the row head of query id's miss in cell.
func missQuery(cfg *Config, ds *dataset, cell, id string) results.MissQuery {
	return results.MissQuery{Cell: cell, QueryID: id, Query: ds.text[id], Slice: ds.slice[id], HeldOut: ds.heldout[id], K: cfg.PromptK}
}

// docMisses are the misses.jsonl rows of cell name's final run (id
// labels): per answerable query, the gold ids (grade ≥ 1) missing from the
// top prompt_k with their rank further down, the gold ids found, and what
// came back instead; none for a query that found every gold id.
func docMisses(cfg *Config, ds *dataset, name string, run eval.Run) []results.Miss {
	var out []results.Miss
	for _, id := range ds.answerable {
		l := append([]eval.Result(nil), run[id]...)
		kinds.SortResults(l)
		rank := map[string]int{}
		for i, r := range l {
			rank[r.DocID] = i + 1
		}
		m := results.Miss{MissQuery: missQuery(cfg, ds, name, id), Returned: []results.Hit{}}
		for _, g := range slices.Sorted(maps.Keys(ds.qrels[id])) {
			grade := ds.qrels[id][g]
			if grade < 1 {
				continue
			}
			if r := rank[g]; r >= 1 && r <= cfg.PromptK {
				m.Found = append(m.Found, g)
				continue
			}
			m.Missing = append(m.Missing, results.Gold{ID: g, Grade: grade, Rank: rank[g], Snippet: ds.snippet(g, cfg.Snippet, nil, corpus.Chunks{})})
		}
		if len(m.Missing) == 0 {
			continue
		}
		for i, r := range l {
			if i == cfg.PromptK {
				break
			}
			m.Returned = append(m.Returned, results.Hit{Rank: i + 1, ID: r.DocID, Score: r.Score, Relevant: ds.qrels[id][r.DocID] >= 1, Snippet: ds.snippet(r.DocID, cfg.Snippet, nil, corpus.Chunks{})})
		}
		out = append(out, m)
	}
	return out
}
