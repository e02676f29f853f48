package hybrid

import (
	"fmt"
	"slices"
)

// Notes counts what a fusion did that its scores do not show, for the
// caller to report (FuseWithNotes, Ranked.FuseWithNotes, Retriever.Notes):
// the lists a normalisation found flat. A list is flat when it is not empty
// and its scores are all equal (a single result included): min-max, z-score
// and sum then give each of its documents 0 and DBSF 0.5, as ranx does
// (min-max divides by max(max − min, 1e-9), z-score by max(σ, 1e-9)) — the
// input then tells none of its documents apart, and under harmonic or
// geometric (which skip scores ≤ 0) adds nothing at all. rrf, max, rank,
// borda and none never make a list flat.
type Notes struct {
	// Method and Norm are the fusion's (Norm "" for RRF and DBSF).
	Method Method
	Norm   Normalization
	// Queries is the number of queries fused.
	Queries int
	// Flat[i] is the number of queries whose list from input i (in the
	// order given) was flat; one entry per input, 0 for an input of
	// weight 0 (its lists are not read).
	Flat []int
	// FlatQuery[i] is the least query id (byte order) of those, "" when
	// Flat[i] is 0: an example to look at.
	FlatQuery []string
}

func newNotes(o Options, inputs int) Notes {
	return Notes{Method: o.Method, Norm: o.Norm, Flat: make([]int, inputs), FlatQuery: make([]string, inputs)}
}

// add counts one query's fusion; flat[i] says input i's list was flat.
func (n *Notes) add(qid string, flat []bool) {
	n.Queries++
	for i, f := range flat {
		if f {
			n.Flat[i]++
			if n.FlatQuery[i] == "" || qid < n.FlatQuery[i] {
				n.FlatQuery[i] = qid
			}
		}
	}
}

// merge adds m's counts (same inputs) to n's.
func (n *Notes) merge(m Notes) {
	n.Queries += m.Queries
	for i := range n.Flat {
		n.Flat[i] += m.Flat[i]
		if q := m.FlatQuery[i]; q != "" && (n.FlatQuery[i] == "" || q < n.FlatQuery[i]) {
			n.FlatQuery[i] = q
		}
	}
}

func (n Notes) clone() Notes {
	n.Flat, n.FlatQuery = slices.Clone(n.Flat), slices.Clone(n.FlatQuery)
	return n
}

// Lines words the notes, one line per input with flat lists, naming input
// i by names[i] (its file or retriever; "input i" when names is short):
//
//	bm25.trec: 3 of 30 queries' lists are flat (a single result, or equal
//	scores): minmax gives each of their documents 0, as ranx does (e.g. query q7)
//
// (one line; DBSF's: "dbsf gives each of their documents 0.5, as Qdrant
// does"). nil when no list was flat.
func (n Notes) Lines(names []string) []string {
	var out []string
	for i, c := range n.Flat {
		if c == 0 {
			continue
		}
		name := fmt.Sprintf("input %d", i)
		if i < len(names) {
			name = names[i]
		}
		how, value, as := string(n.Norm), "0", "ranx"
		if n.Method == DBSF {
			how, value, as = "dbsf", "0.5", "Qdrant"
		}
		out = append(out, fmt.Sprintf("%s: %d of %d queries' lists are flat (a single result, or equal scores): %s gives each of their documents %s, as %s does (e.g. query %s)",
			name, c, n.Queries, how, value, as, n.FlatQuery[i]))
	}
	return out
}
