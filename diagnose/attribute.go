package diagnose

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/jsonnum"
	"github.com/ragbench/ragbench/internal/plural"
)

// Table is the 2×2 table of retrieval × answer for a set of answerable
// queries with a verdict. "Retrieved" means a gold doc id (grade > 0) is in
// the query's top Depth results; "missed" means none is (a query absent from
// the run is missed).
//
//	             correct            wrong
//	retrieved    RetrievedCorrect   RetrievedWrong   ← prompt/model misuse
//	missed       MissedCorrect      MissedWrong      ← retrieval miss
type Table struct {
	RetrievedCorrect int
	RetrievedWrong   int
	MissedCorrect    int
	MissedWrong      int
}

// N is the number of queries in the table.
func (t Table) N() int {
	return t.RetrievedCorrect + t.RetrievedWrong + t.MissedCorrect + t.MissedWrong
}

// Retrieved is the number of queries with a gold doc in the top Depth.
func (t Table) Retrieved() int { return t.RetrievedCorrect + t.RetrievedWrong }

// Missed is the number of queries without a gold doc in the top Depth.
func (t Table) Missed() int { return t.MissedCorrect + t.MissedWrong }

// Correct is the number of correct answers.
func (t Table) Correct() int { return t.RetrievedCorrect + t.MissedCorrect }

// Wrong is the number of wrong answers.
func (t Table) Wrong() int { return t.RetrievedWrong + t.MissedWrong }

// HitRate is hit rate@Depth (trec_eval success.Depth, ranx hit_rate@Depth)
// over the table's queries: Retrieved/N in [0, 1]; NaN when N is 0.
func (t Table) HitRate() float64 { return ratio(t.Retrieved(), t.N()) }

// Accuracy is answer accuracy: Correct/N in [0, 1]; NaN when N is 0.
func (t Table) Accuracy() float64 { return ratio(t.Correct(), t.N()) }

// PCorrectGivenRetrieved is P(correct | retrieved) =
// RetrievedCorrect/Retrieved; NaN when no query was retrieved.
func (t Table) PCorrectGivenRetrieved() float64 { return ratio(t.RetrievedCorrect, t.Retrieved()) }

// PCorrectGivenMissed is P(correct | missed) = MissedCorrect/Missed; NaN
// when no query was missed. A high value means the model answers without
// the gold passage (parametric knowledge, other passages, or leniency of the
// grader).
func (t Table) PCorrectGivenMissed() float64 { return ratio(t.MissedCorrect, t.Missed()) }

// Failure names the dominant failure cell of a Table.
type Failure int

const (
	// NoFailure: no wrong answer.
	NoFailure Failure = iota
	// RetrievalMiss: most wrong answers had no gold doc in the top Depth.
	RetrievalMiss
	// PromptMisuse: most wrong answers had a gold doc in the top Depth, so
	// the prompt or the model failed to use it.
	PromptMisuse
	// EvenSplit: as many wrong answers with as without a gold doc.
	EvenSplit
)

// String returns the failure's short name as used in JSON output.
func (f Failure) String() string {
	switch f {
	case NoFailure:
		return "none"
	case RetrievalMiss:
		return "retrieval_miss"
	case PromptMisuse:
		return "prompt_misuse"
	case EvenSplit:
		return "even"
	}
	return fmt.Sprintf("Failure(%d)", int(f))
}

// Dominant returns the larger failure cell: MissedWrong (retrieval miss) vs
// RetrievedWrong (prompt/model misuse).
func (t Table) Dominant() Failure {
	switch {
	case t.Wrong() == 0:
		return NoFailure
	case t.MissedWrong > t.RetrievedWrong:
		return RetrievalMiss
	case t.RetrievedWrong > t.MissedWrong:
		return PromptMisuse
	}
	return EvenSplit
}

// Advice is one sentence naming the dominant failure cell with its count
// and share of the wrong answers, and what to work on; depth is the Depth
// the table was built with.
func (t Table) Advice(depth int) string {
	w := t.Wrong()
	switch t.Dominant() {
	case NoFailure:
		if t.N() == 0 {
			return "No query with a verdict: nothing to attribute."
		}
		return fmt.Sprintf("No wrong answer among %d queries: nothing to attribute.", t.N())
	case RetrievalMiss:
		return fmt.Sprintf("Retrieval misses dominate: %d of %d wrong answers (%s) had no gold passage in the top %d. Work on retrieval first (recall@%d, chunking, the retriever).",
			t.MissedWrong, w, pct(t.MissedWrong, w), depth, depth)
	case PromptMisuse:
		return fmt.Sprintf("Prompt/model misuse dominates: %d of %d wrong answers (%s) had a gold passage in the top %d and were still wrong. Work on the prompt or the model first (instructions, passage order, context length).",
			t.RetrievedWrong, w, pct(t.RetrievedWrong, w), depth)
	}
	return fmt.Sprintf("Wrong answers split evenly: %d had a gold passage in the top %d, %d had none. Work on retrieval and on the prompt.",
		t.RetrievedWrong, depth, t.MissedWrong)
}

// MarshalJSON writes the four cells and the derived rates (hit_rate,
// accuracy, p_correct_given_retrieved, p_correct_given_missed; null when
// undefined) and the dominant failure.
func (t Table) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		N                int      `json:"n"`
		RetrievedCorrect int      `json:"retrieved_correct"`
		RetrievedWrong   int      `json:"retrieved_wrong"`
		MissedCorrect    int      `json:"missed_correct"`
		MissedWrong      int      `json:"missed_wrong"`
		HitRate          *float64 `json:"hit_rate"`
		Accuracy         *float64 `json:"accuracy"`
		PCorrRetrieved   *float64 `json:"p_correct_given_retrieved"`
		PCorrMissed      *float64 `json:"p_correct_given_missed"`
		Dominant         string   `json:"dominant_failure"`
	}{t.N(), t.RetrievedCorrect, t.RetrievedWrong, t.MissedCorrect, t.MissedWrong,
		jsonnum.Finite(t.HitRate()), jsonnum.Finite(t.Accuracy()), jsonnum.Finite(t.PCorrectGivenRetrieved()), jsonnum.Finite(t.PCorrectGivenMissed()),
		t.Dominant().String()})
}

// Abstention counts verdicts on unanswerable queries (no gold in the
// qrels). They are not part of the 2×2 table, where "retrieved" has no
// meaning; Correct means the grader accepted the answer (e.g. the system
// said it could not answer).
type Abstention struct {
	Correct int `json:"correct"`
	Wrong   int `json:"wrong"`
}

// SliceAttribution is the attribution restricted to one slice of queries.
type SliceAttribution struct {
	Slice        string     `json:"slice"`
	Table        Table      `json:"table"`
	Unanswerable Abstention `json:"unanswerable"`
}

// AttributeOptions configures Attribute. The zero value is valid.
type AttributeOptions struct {
	// Depth is how many top results are searched for a gold doc id (≥ 1;
	// 0 means DefaultDepth).
	Depth int
}

// AttributeInput is what Attribute joins.
type AttributeInput struct {
	Run   eval.Run
	Qrels eval.Qrels // add query ids without judgement lines with WithQueries
	// Slices maps query id → slice label (optional; e.g. eval.QueryMeta.Slice
	// or ReadSlices). Queries without a label go to slice NoSlice when any
	// query has one.
	Slices map[string]string
	// Verdicts are the answers' verdicts (see ReadVerdicts); VerdictsFile
	// names their file in errors.
	Verdicts     []Verdict
	VerdictsFile string
}

// NoSlice is the slice label given to queries without one.
const NoSlice = "(no slice)"

// Attribution is the result of Attribute.
type Attribution struct {
	Depth int `json:"depth"`
	// Overall is the 2×2 table over every answerable query with a verdict.
	Overall Table `json:"overall"`
	// Unanswerable counts the verdicts on unanswerable queries.
	Unanswerable Abstention `json:"unanswerable"`
	// Slices holds one entry per slice label, sorted by label; nil when no
	// query has a slice.
	Slices []SliceAttribution `json:"slices"`
	// NotInRun lists answerable queries with a verdict that the run lacks;
	// they are in the table as missed (an absent query retrieved nothing).
	NotInRun []string `json:"not_in_run"`
	// NotInQrels lists verdicts for queries the run has but the qrels do
	// not: with no judgement there is no retrieval outcome, so they are
	// left out of the table.
	NotInQrels []string `json:"not_in_qrels"`
	// NoVerdict lists qrels queries (answerable or not) without a verdict.
	NoVerdict []string `json:"no_verdict"`
	// Warnings describe the three lists above, one sentence each.
	Warnings []string `json:"warnings"`
	// Advice names the dominant failure cell of Overall (see Table.Advice).
	Advice string `json:"advice"`
}

// Attribute joins retrieval outcomes with answer verdicts.
//
// Each verdict's query is classified as: answerable (in the qrels with a
// grade > 0) → counted in the 2×2 table as retrieved when a gold doc id is
// among the top Depth results of the run in trec_eval order, else missed
// (also when the run lacks the query; listed in NotInRun); unanswerable (in
// the qrels with no grade > 0) → counted in Unanswerable; in the run but
// not the qrels → listed in NotInQrels and left out. Qrels queries without
// a verdict are listed in NoVerdict. Each non-empty list adds a warning.
//
// Slices only label queries: whether a query is answerable is decided by
// Qrels alone.
//
// Errors: Depth < 0; a verdict whose query id is in neither the qrels nor
// the run (an unknown query id: a typo or a verdict file for another query
// set) as a *VerdictError naming VerdictsFile and its line; a
// duplicate query id among Verdicts; a NaN or infinite score in the run; a
// non-empty run sharing no query id with the qrels (wrong qrels: every
// verdict would count as a retrieval miss).
func Attribute(in AttributeInput, opt AttributeOptions) (*Attribution, error) {
	depth := opt.Depth
	if depth < 0 {
		return nil, fmt.Errorf("diagnose: depth %d < 0", depth)
	}
	if depth == 0 {
		depth = DefaultDepth
	}
	if err := checkCommonQuery(in.Run, in.Qrels); err != nil {
		return nil, err
	}
	at := &attributor{in: in, depth: depth, file: in.VerdictsFile, bySlice: map[string]*SliceAttribution{}, seen: map[string]int{},
		a: &Attribution{Depth: depth, NotInRun: []string{}, NotInQrels: []string{}, NoVerdict: []string{}, Warnings: []string{}}}
	if at.file == "" {
		at.file = "verdicts"
	}
	for _, s := range in.Slices {
		at.useSlices = at.useSlices || s != ""
	}
	for _, v := range in.Verdicts {
		if err := at.add(v); err != nil {
			return nil, err
		}
	}
	return at.finish(), nil
}

// attributor is the state of one Attribute call.
type attributor struct {
	in        AttributeInput
	a         *Attribution
	depth     int
	file      string // the verdicts file named in errors
	useSlices bool
	bySlice   map[string]*SliceAttribution
	seen      map[string]int // query id → its verdict's line
	// Facts for the id-mismatch warning: top-depth results that are judged
	// (any grade); any top-depth result; any id like "doc#3".
	judgedInTop             int
	retrievedAny, chunkLike bool
}

// slice returns the per-slice tally of query q (a discarded one when no
// query has a slice).
func (at *attributor) slice(q string) *SliceAttribution {
	if !at.useSlices {
		return &SliceAttribution{} // discarded
	}
	name := at.in.Slices[q]
	if name == "" {
		name = NoSlice
	}
	s := at.bySlice[name]
	if s == nil {
		s = &SliceAttribution{Slice: name}
		at.bySlice[name] = s
	}
	return s
}

// add counts one verdict in its cell of the 2×2 (or as unanswerable, or
// left out when not in the qrels). Errors: a duplicate or unknown query id,
// a NaN or infinite score.
func (at *attributor) add(v Verdict) error {
	a := at.a
	if prev, dup := at.seen[v.QueryID]; dup {
		return &VerdictError{File: at.file, Line: v.Line, Field: "qid", Msg: fmt.Sprintf("duplicate verdict for query %q (first on line %d)", v.QueryID, prev)}
	}
	at.seen[v.QueryID] = v.Line
	judged, inQrels := at.in.Qrels[v.QueryID]
	results, inRun := at.in.Run[v.QueryID]
	if !inQrels && !inRun {
		return &VerdictError{File: at.file, Line: v.Line, Field: "qid", Msg: fmt.Sprintf("unknown query id %q: not in the qrels nor in the run", v.QueryID)}
	}
	if !inQrels {
		a.NotInQrels = append(a.NotInQrels, v.QueryID)
		return nil
	}
	if err := checkScores(v.QueryID, results); err != nil {
		return fmt.Errorf("diagnose: %w", err)
	}
	s := at.slice(v.QueryID)
	if !hasGold(judged) {
		if v.Correct {
			a.Unanswerable.Correct++
			s.Unanswerable.Correct++
		} else {
			a.Unanswerable.Wrong++
			s.Unanswerable.Wrong++
		}
		return nil
	}
	if !inRun {
		a.NotInRun = append(a.NotInRun, v.QueryID)
	}
	list := top(results, at.depth)
	hit := goldInTop(list, judged, at.depth)
	for _, r := range list {
		if _, ok := judged[r.DocID]; ok {
			at.judgedInTop++
		}
		if strings.Contains(r.DocID, "#") {
			at.chunkLike = true
		}
		at.retrievedAny = true
	}
	for _, t := range []*Table{&a.Overall, &s.Table} {
		switch {
		case hit && v.Correct:
			t.RetrievedCorrect++
		case hit:
			t.RetrievedWrong++
		case v.Correct:
			t.MissedCorrect++
		default:
			t.MissedWrong++
		}
	}
	return nil
}

// finish lists the qrels queries without a verdict, sorts the lists, adds
// the slices, the warnings and the advice.
func (at *attributor) finish() *Attribution {
	a, depth := at.a, at.depth
	for _, q := range slices.Sorted(maps.Keys(at.in.Qrels)) {
		if _, ok := at.seen[q]; !ok {
			a.NoVerdict = append(a.NoVerdict, q)
		}
	}
	sort.Strings(a.NotInRun)
	sort.Strings(a.NotInQrels)
	for _, name := range slices.Sorted(maps.Keys(at.bySlice)) {
		a.Slices = append(a.Slices, *at.bySlice[name])
	}
	if at.retrievedAny && at.judgedInTop == 0 {
		msg := fmt.Sprintf("none of the run's top-%d doc ids is judged in the qrels: do the run and the qrels use the same ids?", depth)
		if at.chunkLike {
			msg += ` The run's ids look like chunk ids ("docid#i"): map them to documents first (bench attribute --maxp).`
		}
		a.Warnings = append(a.Warnings, msg)
	}
	if n := len(a.NotInRun); n > 0 {
		a.Warnings = append(a.Warnings, fmt.Sprintf("%d answerable %s with a verdict %s absent from the run and counted as retrieval misses: %s",
			n, plural.Word(n, "query", "queries"), plural.Word(n, "is", "are"), list(a.NotInRun)))
	}
	if n := len(a.NotInQrels); n > 0 {
		a.Warnings = append(a.Warnings, fmt.Sprintf("%d %s with a verdict %s not in the qrels and left out of the table: %s",
			n, plural.Word(n, "query", "queries"), plural.Word(n, "is", "are"), list(a.NotInQrels)))
	}
	if n := len(a.NoVerdict); n > 0 {
		a.Warnings = append(a.Warnings, fmt.Sprintf("%d qrels %s no verdict and %s not in the table: %s",
			n, plural.Word(n, "query has", "queries have"), plural.Word(n, "is", "are"), list(a.NoVerdict)))
	}
	a.Advice = a.Overall.Advice(depth)
	return a
}

// list shows up to 10 ids, then how many more.
func list(ids []string) string {
	if len(ids) <= 10 {
		return strings.Join(ids, ", ")
	}
	return strings.Join(ids[:10], ", ") + fmt.Sprintf(" and %d more", len(ids)-10)
}

// pct formats num/den as a percentage with one decimal, "n/a" when den is 0.
func pct(num, den int) string {
	if den == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(num)/float64(den))
}

// checkCommonQuery refuses a non-empty run that shares no query id with
// the qrels, with the message of eval.Evaluate's same check.
func checkCommonQuery(run eval.Run, qrels eval.Qrels) error {
	if len(run) == 0 || len(qrels) == 0 {
		return nil
	}
	for q := range run {
		if _, ok := qrels[q]; ok {
			return nil
		}
	}
	rq, qq := slices.Sorted(maps.Keys(run)), slices.Sorted(maps.Keys(qrels))
	return fmt.Errorf("diagnose: no run query is in the qrels: the run's %s (e.g. %q) and the qrels' %d (e.g. %q) share no id; wrong qrels for this run?",
		plural.Count(len(rq), "query", "queries"), rq[0], len(qq), qq[0])
}
