package sweep

import (
	"math"

	"github.com/ragbench/ragbench/diagnose"
	"github.com/ragbench/ragbench/eval"
)

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

func quantiles(s diagnose.ScoreSummary) ScoreQuantiles {
	f := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	return ScoreQuantiles{Queries: s.Queries, Scored: s.Scored, Min: f(s.Min), Median: f(s.Median), Max: f(s.Max)}
}

func thresholdAnalysis(cfg *Config, ds *dataset, run eval.Run) *Threshold {
	q := diagnose.WithQueries(ds.qrels, ds.unanswer)
	rep, err := diagnose.Threshold(run, q, diagnose.ThresholdOptions{Depth: cfg.PromptK})
	if err != nil {
		return &Threshold{Warnings: []string{err.Error()}}
	}
	t := &Threshold{Answerable: quantiles(rep.Answerable), Unanswerable: quantiles(rep.Unanswerable), Warnings: rep.Warnings}
	if s := rep.Suggested; s != nil {
		t.Suggested = &ThresholdChoice{Threshold: s.Threshold, UnanswerableAbstained: s.UnanswerableAbstained, AnswerableLostGold: s.AnswerableLostGold}
	}
	return t
}
