package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/ragbench/ragbench/eval"
)

// Miss is one misses.jsonl row: an answerable query whose gold ids are not
// all in a cell's top prompt_k, with what came back instead.
type Miss struct {
	MissQuery
	Missing  []Gold   `json:"missing"`
	Returned []Hit    `json:"returned"`
	Found    []string `json:"found,omitempty"` // gold ids that were in the top k
}

// MissQuery is the head of every misses.jsonl row, document (Miss) or
// span (SpanMiss): the cell, the query with its text, slice and split, and
// the k the miss is at (prompt_k).
type MissQuery struct {
	Cell    string `json:"cell"`
	QueryID string `json:"query_id"`
	Query   string `json:"query"`
	Slice   string `json:"slice,omitempty"`
	HeldOut bool   `json:"held_out"`
	K       int    `json:"k"`
}

// missQuery is the row head of query id's miss in cell.
func missQuery(cfg *Config, ds *dataset, cell, id string) MissQuery {
	return MissQuery{Cell: cell, QueryID: id, Query: ds.text[id], Slice: ds.slice[id], HeldOut: ds.heldout[id], K: cfg.PromptK}
}

// Gold is a relevant id missing from the top k, with its rank further down
// (0 when not retrieved at all within the run's depth).
type Gold struct {
	ID      string `json:"id"`
	Grade   int    `json:"grade"`
	Rank    int    `json:"rank"`
	Snippet string `json:"snippet"`
}

func missesJSONL(cfg *Config, ds *dataset, res *Results) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, c := range res.Cells {
		if c.spans != nil {
			if err := spanMisses(cfg, ds, &c, enc); err != nil {
				panic(fmt.Sprintf("sweep: misses.jsonl: %v", err)) // the run was scored on the same chunking
			}
			continue
		}
		for _, id := range ds.answerable {
			l := append([]eval.Result(nil), c.run[id]...)
			sortResults(l)
			rank := map[string]int{}
			for i, r := range l {
				rank[r.DocID] = i + 1
			}
			m := Miss{MissQuery: missQuery(cfg, ds, c.Name, id), Returned: []Hit{}}
			golds := sortedKeys(ds.qrels[id])
			for _, g := range golds {
				grade := ds.qrels[id][g]
				if grade < 1 {
					continue
				}
				if r := rank[g]; r >= 1 && r <= cfg.PromptK {
					m.Found = append(m.Found, g)
					continue
				}
				m.Missing = append(m.Missing, Gold{ID: g, Grade: grade, Rank: rank[g], Snippet: ds.snippet(g, cfg.Snippet, nil, nil)})
			}
			if len(m.Missing) == 0 {
				continue
			}
			for i, r := range l {
				if i == cfg.PromptK {
					break
				}
				m.Returned = append(m.Returned, Hit{Rank: i + 1, ID: r.DocID, Score: r.Score, Relevant: ds.qrels[id][r.DocID] >= 1, Snippet: ds.snippet(r.DocID, cfg.Snippet, nil, nil)})
			}
			enc.Encode(m)
		}
	}
	return buf.Bytes()
}
