package results

// JudgedCoverage is a cell's judged coverage (results.json "judged";
// docs/labelling.md): how much of what the cell returned the labels judge,
// and the holes in them. An unjudged result counts as not relevant in
// every measure, so a cell whose results are less judged than another's
// can look worse than it is.
type JudgedCoverage struct {
	// Judged maps group (as CellResult.Means) → "judged@k" → the mean over
	// the group's answerable queries of the share of the top k results
	// that the labels judge, over min(k, results) (ir_measures'
	// Judged@k, eval.JudgedShare): for span labels a chunk overlapping a
	// labelled passage, relevant or grade 0 (spans.JudgedChunks); for id
	// labels a judged id (any grade ≥ 0). In [0, 1].
	Judged map[string]map[string]float64 `json:"judged"`
	// Holes maps group → "holes@k" → the number of holes in the top k of
	// the group's answerable queries: unjudged results whose text nearly
	// equals a gold passage's (spans.FindHoles).
	Holes map[string]map[string]int `json:"holes"`
	// JudgedOnly maps group → metric → mean, every metric scored on judged
	// results only (trec_eval -J: unjudged results removed, the ones
	// below moving up; eval.Condense), when dataset.judged_only is set;
	// nil otherwise. For comparison: the cell's numbers are Means.
	JudgedOnly map[string]map[string]float64 `json:"judged_only,omitempty"`
	// HoleList lists the holes in the top max(k) results, most similar
	// first (then by query and rank), at most MaxHoles of them.
	HoleList []Hole `json:"hole_list"`
}

// MaxHoles is how many holes JudgedCoverage.HoleList keeps per cell.
const MaxHoles = 50

// Hole is an unjudged result that nearly equals a gold passage of its
// query: duplicate content, most likely relevant, counted as not.
type Hole struct {
	QueryID string `json:"query_id"`
	Rank    int    `json:"rank"` // from 1
	ID      string `json:"id"`   // the chunk or document returned
	// Gold is the gold passage it repeats: `doc [start, end)` (code
	// points) for span labels, the gold id for id labels.
	Gold string `json:"gold"`
	// Similarity is anchor's (1 − edits/length of the gold passage), in
	// [spans.HoleThreshold, 1].
	Similarity float64 `json:"similarity"`
	Snippet    string  `json:"snippet"`
}
