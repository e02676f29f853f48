package sweep

import (
	"github.com/ragbench/ragbench/diagnose"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/jsonnum"
	"github.com/ragbench/ragbench/results"
)

// quantiles is results.json's form of a score summary: an undefined
// quantile (a group with no scored query) is null (jsonnum.Finite, the one
// NaN → null rule).
func quantiles(s diagnose.ScoreSummary) results.ScoreQuantiles {
	f := jsonnum.Finite
	return results.ScoreQuantiles{Queries: s.Queries, Scored: s.Scored, Min: f(s.Min), Median: f(s.Median), Max: f(s.Max)}
}

func thresholdAnalysis(cfg *Config, ds *dataset, qrels eval.Qrels, run eval.Run) *results.Threshold {
	q := diagnose.WithQueries(qrels, ds.unanswer)
	rep, err := diagnose.Threshold(run, q, diagnose.ThresholdOptions{Depth: cfg.PromptK})
	if err != nil {
		return &results.Threshold{Warnings: []string{err.Error()}}
	}
	t := &results.Threshold{Answerable: quantiles(rep.Answerable), Unanswerable: quantiles(rep.Unanswerable), Warnings: rep.Warnings}
	if s := rep.Suggested; s != nil {
		t.Suggested = &results.ThresholdChoice{Threshold: s.Threshold, UnanswerableAbstained: s.UnanswerableAbstained, AnswerableLostGold: s.AnswerableLostGold}
	}
	return t
}
