package results

// Significance holds the paired tests between cells (package compare):
// every pair of cells on every tested metric at prompt_k, over all
// answerable queries, with one correction over all comparisons.
type Significance struct {
	Test        string     `json:"test"`
	Correction  string     `json:"correction"`
	Alpha       float64    `json:"alpha"`
	Metrics     []string   `json:"metrics"`
	Queries     int        `json:"queries"`
	Comparisons int        `json:"comparisons"`
	Pairs       []PairTest `json:"pairs"`
	// Beats maps metric → cell → indexes (in Results.Cells) of the cells it
	// beats significantly after correction.
	Beats map[string]map[string][]int `json:"beats"`
	// Notes are compare's explanatory sentences (test, correction, minimum
	// detectable differences, warnings).
	Notes []string `json:"notes"`
}

// PairTest is one comparison of cell A against cell B on one metric.
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
	// CILow and CIHigh bound the confidence interval of MeanDiff; both
	// null when it is undefined (fewer than 2 queries: stats.Effect's
	// CIDefined), never a made-up [0, 0].
	CILow  *float64 `json:"ci_low"`
	CIHigh *float64 `json:"ci_high"`
	Wins   int      `json:"wins"`
	Ties   int      `json:"ties"`
	Losses int      `json:"losses"`
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
