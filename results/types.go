package results

// Significance holds the comparisons between cells (package compare) on
// each tested metric at prompt_k, over all answerable queries: the
// comparisons of the plan (each cell against a baseline cell, against the
// best cell, or all pairs), one correction over all counted comparisons,
// each with its difference, paired confidence interval, corrected p and
// verdict, and what the set can show under the plan.
type Significance struct {
	Test       string   `json:"test"`
	Correction string   `json:"correction"`
	Alpha      float64  `json:"alpha"`
	Metrics    []string `json:"metrics"`
	Queries    int      `json:"queries"`
	// Plan is the comparison plan (compare.PlanKind): "baseline", "best"
	// or "all-pairs"; empty in a results.json written before plans (all
	// pairs).
	Plan string `json:"plan,omitempty"`
	// Baseline is the baseline plan's reference cell, and BaselineRule how
	// it was chosen ("named in the config", "the best BM25 cell on
	// ndcg@10", …); empty for the other plans.
	Baseline     string `json:"baseline,omitempty"`
	BaselineRule string `json:"baseline_rule,omitempty"`
	// Reference maps metric → the cell the others are compared with (the
	// baseline, or the best cell of that metric); empty for all pairs.
	Reference map[string]string `json:"reference,omitempty"`
	// Interval is the confidence interval method of every comparison
	// (stats.IntervalMethod: "bca", "percentile" or "t"), Resamples its
	// bootstrap resamples.
	Interval  string `json:"interval,omitempty"`
	Resamples int    `json:"resamples,omitempty"`
	// Equivalence is the equivalence margin δ (0: none); Detect the
	// difference whose required number of queries Power gives (0: none).
	Equivalence float64 `json:"equivalence_margin"`
	Detect      float64 `json:"detect"`
	// Comparisons is the number of comparisons the correction covers (the
	// plan's, identical ones aside); Identical the number reported as
	// "unchanged (identical)" and not counted.
	Comparisons int        `json:"comparisons"`
	Identical   int        `json:"identical"`
	Pairs       []PairTest `json:"pairs"`
	// Beats maps metric → cell → indexes (in Results.Cells) of the cells it
	// beats significantly after correction.
	Beats map[string]map[string][]int `json:"beats"`
	// Ties maps metric → the cells tied at the highest mean, when two or
	// more are (absent otherwise).
	Ties map[string][]string `json:"ties_for_best,omitempty"`
	// Power is, per tested metric, what the set can show under the plan.
	Power []Power `json:"power,omitempty"`
	// Notes are compare's sentences printed with every table (plan and
	// number of comparisons, test, correction, intervals, equivalence,
	// labels, ties, what the set can show); Warnings its caveats (small
	// samples, identical comparisons, a Monte Carlo floor).
	Notes    []string `json:"notes"`
	Warnings []string `json:"warnings,omitempty"`
	// AllPairs is the all-pairs family of the first tested metric, for
	// report.html's matrix (significance.matrix); nil otherwise.
	AllPairs *AllPairs `json:"all_pairs,omitempty"`
}

// AllPairs is the all-pairs family shown as report.html's matrix on
// request: a family of its own (its correction covers its m(m − 1)/2
// comparisons, apart from the plan's), with Student-t intervals.
type AllPairs struct {
	Metric      string     `json:"metric"`
	Comparisons int        `json:"comparisons"`
	Identical   int        `json:"identical"`
	Pairs       []PairTest `json:"pairs"`
}

// Power is what one metric's queries can show under the plan
// (compare.PowerSummary): the minimum detectable difference at 80 % power
// at the plan's per-comparison level Alpha (median, min and max over the
// counted comparisons with per-query variance; null when none), and the
// queries needed to detect Detect with the median standard deviation SD of
// per-query differences (null when not computed or beyond a million).
type Power struct {
	Metric  string   `json:"metric"`
	Queries int      `json:"queries"`
	Counted int      `json:"counted"`
	Flat    int      `json:"no_variance"`
	Alpha   float64  `json:"alpha"`
	MDD     *float64 `json:"mdd"`
	MDDMin  *float64 `json:"mdd_min"`
	MDDMax  *float64 `json:"mdd_max"`
	SD      *float64 `json:"sd"`
	Detect  float64  `json:"detect"`
	Needed  *int     `json:"queries_needed"`
}

// PairTest is one comparison of cell A against cell B on one metric
// (compare.Pair): A − B with its paired confidence interval, the raw and
// corrected p and the verdict.
type PairTest struct {
	A           string  `json:"a"`
	B           string  `json:"b"`
	Metric      string  `json:"metric"`
	MeanA       float64 `json:"mean_a"`
	MeanB       float64 `json:"mean_b"`
	P           float64 `json:"p"`
	PAdjusted   float64 `json:"p_adjusted"`
	Significant bool    `json:"significant"`
	MeanDiff    float64 `json:"mean_diff"`
	// CILow and CIHigh bound the 95 % interval of A − B (method CIMethod:
	// "bca", "percentile" or "t"); null when it is undefined (fewer than 2
	// queries): never a made-up [0, 0].
	CILow    *float64 `json:"ci_low"`
	CIHigh   *float64 `json:"ci_high"`
	CIMethod string   `json:"ci_method,omitempty"`
	Wins     int      `json:"wins"`
	Ties     int      `json:"ties"`
	Losses   int      `json:"losses"`
	// N is the number of queries compared.
	N int `json:"n,omitempty"`
	// Verdict is compare's verdict in words: "better", "worse",
	// "equivalent within ±δ", "no evidence either way" or "unchanged
	// (identical)"; Identical says A and B score the same on every query
	// (then not Counted in the correction).
	Verdict   string `json:"verdict,omitempty"`
	Identical bool   `json:"identical,omitempty"`
	Counted   bool   `json:"counted,omitempty"`
	// PEquivalence and PEquivalenceAdjusted are the TOST's p (raw and
	// corrected), with an equivalence margin only.
	PEquivalence         *float64 `json:"p_equivalence,omitempty"`
	PEquivalenceAdjusted *float64 `json:"p_equivalence_adjusted,omitempty"`
	// MDD is the minimum detectable difference at 80 % power at the plan's
	// level; QueriesNeeded the queries needed to detect the config's
	// detect; both absent when undefined.
	MDD           *float64 `json:"mdd,omitempty"`
	QueriesNeeded *int     `json:"queries_needed,omitempty"`
	// Warnings are the comparison's caveats (fewer than 20 queries, …).
	Warnings []string `json:"warnings,omitempty"`
}

// Tuning is a tuned cell's grid search (results.json "tuning"): every
// setting's mean of Metric on the tuning and the held-out queries, the
// setting chosen on the tuning queries alone (its run is the cell's), and
// the paired test of the chosen setting against the untuned default on the
// held-out queries.
type Tuning struct {
	// Metric is the primary metric at prompt_k, which picks the setting.
	Metric         string `json:"metric"`
	TuningQueries  int    `json:"tuning_queries"`
	HeldOutQueries int    `json:"heldout_queries"`
	// Chosen is the setting with the highest tuning mean (ties: the
	// earlier in grid order); Default the untuned default
	// (hybrid.DefaultOptions, or rerank's default alpha), evaluated
	// whether or not the grid holds it.
	Chosen  TuningSetting `json:"chosen"`
	Default TuningSetting `json:"default"`
	// Test is Chosen (A) against Default (B) on Metric over the held-out
	// queries with the config's significance test (one comparison per
	// tuned cell, so the correction leaves p unchanged); nil when the
	// default is chosen or there is no held-out query.
	Test *PairTest `json:"test,omitempty"`
	// Settings is the whole grid, in grid order.
	Settings []TuningSetting `json:"settings"`
}

// TuningSetting is one setting's name and means.
type TuningSetting struct {
	Name    string  `json:"name"`
	Tuning  float64 `json:"tuning"`
	HeldOut float64 `json:"heldout"`
}

// Threshold is a cell's abstention analysis (diagnose.Threshold at
// prompt_k): top-1 score quantiles of answerable and unanswerable queries
// and the suggested threshold with its trade-off. Quantiles are null when a
// group has no scored query.
type Threshold struct {
	Answerable   ScoreQuantiles `json:"answerable"`
	Unanswerable ScoreQuantiles `json:"unanswerable"`
	// Suggested is the threshold maximising Youden's J (null when there is
	// no trade-off to make).
	Suggested *ThresholdChoice `json:"suggested"`
	Warnings  []string         `json:"warnings,omitempty"`
}

// ScoreQuantiles summarises top-1 scores of a group of queries.
type ScoreQuantiles struct {
	Queries int      `json:"queries"`
	Scored  int      `json:"scored"`
	Min     *float64 `json:"min"`
	Median  *float64 `json:"median"`
	Max     *float64 `json:"max"`
}

// ThresholdChoice is one abstention threshold and its effect: shares in
// [0, 1] of unanswerable queries that would correctly return nothing and of
// answerable queries that would lose a gold doc from the top prompt_k.
type ThresholdChoice struct {
	Threshold             float64 `json:"threshold"`
	UnanswerableAbstained float64 `json:"unanswerable_abstained"`
	AnswerableLostGold    float64 `json:"answerable_lost_gold"`
}
