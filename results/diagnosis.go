package results

// The causes of a miss (docs/misses.md): every missed gold passage (span
// labels) or gold id (id labels) gets exactly one, the first that applies
// in Causes' order, so the causes of a cell sum to its misses.
const (
	// CauseDuplicate: a result of the top k is a hole for the passage
	// (judged coverage's rule, spans.FindHoles: no label judges it, and
	// its text holds a near-copy of the passage, at least
	// spans.HoleThreshold similar): probably a label gap, not a
	// retrieval miss.
	CauseDuplicate = "duplicate elsewhere"
	// CauseBoundarySplit: no chunk of the chunking holds the cover share
	// of the passage, and chunk boundaries cut it: the two adjacent chunks
	// holding most of it are shown (span labels only).
	CauseBoundarySplit = "boundary split"
	// CauseVocabulary: the query and the passage share no analysed term
	// (the BM25 analyzer's terms: lower-cased, stop words removed,
	// stemmed).
	CauseVocabulary = "vocabulary mismatch"
	// CauseDiluted: the chunk covering the passage is at least
	// DilutionRatio times longer than the passage, and is not in the top
	// k (span labels only).
	CauseDiluted = "diluted"
	// CauseRankedBelowK: a chunk covering the passage (the gold id, for
	// id labels) is in the run, below k.
	CauseRankedBelowK = "ranked below k"
	// CauseNotRetrieved: nothing covering the passage is in the run, to
	// its depth.
	CauseNotRetrieved = "not retrieved"
)

// Causes are the causes in precedence order: a miss takes the first that
// applies. The labelling question comes first (a duplicate may mean no
// miss at all); then the chunking's, which no retriever can overcome (no
// chunk holds the passage); then the wording's, a property of the question
// and passage alone, the same in every chunking; then the chunk's length;
// then where the passage ranked.
var Causes = []string{CauseDuplicate, CauseBoundarySplit, CauseVocabulary, CauseDiluted, CauseRankedBelowK, CauseNotRetrieved}

// DilutionRatio is how many times longer than the passage its covering
// chunk must be for the passage to count as diluted in it
// (CauseDiluted).
const DilutionRatio = 4.0

// Diagnosis is why a gold passage (or gold id) was missed from the top k:
// misses.jsonl's "diagnosis" member of a span row and of each missing gold
// id. Ranks are from 1 in the cell's final run (0: not in it, to the
// run's depth).
type Diagnosis struct {
	// Cause is one of Causes.
	Cause string `json:"cause"`
	// BestRank is the rank of the first chunk covering the passage (the
	// gold id's own rank, for id labels): 0 when none is in the run.
	BestRank int `json:"best_rank"`
	// Depth is the retrieval depth (config depth): how far BestRank was
	// looked for.
	Depth int `json:"depth"`
	// Cover is the chunk of the chunking holding the largest share of the
	// passage (span labels; the first in corpus order on a tie).
	Cover *ChunkShare `json:"cover,omitempty"`
	// Split are the two adjacent chunks holding most of the passage
	// together (CauseBoundarySplit), in corpus order.
	Split []ChunkShare `json:"split,omitempty"`
	// SplitShare is the share of the passage the two Split chunks hold
	// together.
	SplitShare float64 `json:"split_share,omitempty"`
	// Dilution is Cover's length over the passage's (code points), when
	// Cover covers the passage.
	Dilution float64 `json:"dilution,omitempty"`
	// QueryTerms are the query's analysed terms, sorted; SharedTerms those
	// the passage has too; PassageTerms, when they share none, the
	// passage's (at most MaxTerms, sorted); PassageTermCount the number of
	// the passage's distinct terms.
	QueryTerms       []string `json:"query_terms"`
	SharedTerms      []string `json:"shared_terms"`
	PassageTerms     []string `json:"passage_terms,omitempty"`
	PassageTermCount int      `json:"passage_term_count"`
	// Duplicate is the first returned result that is a hole for the
	// passage: set for CauseDuplicate only.
	Duplicate *Duplicate `json:"duplicate,omitempty"`
}

// MaxTerms is the most passage terms a Diagnosis lists.
const MaxTerms = 40

// ChunkShare is a chunk and the share of a gold passage it holds.
type ChunkShare struct {
	ID string `json:"id"`
	// Rank in the cell's run (0: not in it).
	Rank int `json:"rank"`
	// Share of the passage's code points the chunk holds, in [0, 1].
	Share float64 `json:"share"`
	// Length is the chunk's length in code points.
	Length int `json:"length"`
}

// Duplicate is a returned chunk (or document) holding a near-copy of the
// gold passage (a hole, spans.Hole): its id, rank in the top k and the
// similarity in [0, 1].
type Duplicate struct {
	ID         string  `json:"id"`
	Rank       int     `json:"rank"`
	Similarity float64 `json:"similarity"`
}

// Mark is a highlighted part of a snippet, in code points of the snippet
// text, [Start, End): Kind MarkGold for text of the missed gold passage,
// MarkTerm for a word carrying one of the query's analysed terms.
type Mark struct {
	Start int    `json:"start"`
	End   int    `json:"end"`
	Kind  string `json:"kind"`
}

// The kinds of Mark.
const (
	MarkGold = "gold"
	MarkTerm = "term"
)

// MissCauses counts a cell's misses by cause (results.json "miss_causes"):
// each cause of Causes (those applying to the labels) → misses, over all
// answerable queries and per slice. The counts of All sum to Missed.
type MissCauses struct {
	// Unit is "gold passage" (span labels) or "gold id".
	Unit string `json:"unit"`
	// Missed is the number of misses diagnosed (rows of misses.jsonl for
	// span labels; missing gold ids for id labels).
	Missed int `json:"missed"`
	// All maps cause → count; every cause of the labels is present.
	All map[string]int `json:"all"`
	// Slices maps slice label → cause → count (NoSlice for unlabelled
	// queries when others are labelled); empty without slices.
	Slices map[string]map[string]int `json:"slices,omitempty"`
}
