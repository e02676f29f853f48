package sweep

import (
	"context"
	"strconv"

	"github.com/ragbench/ragbench/compare"
	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/eval"
)

// trecMeasure is the trec_eval measure behind each metric family (see
// eval.ParseMeasures): hit_rate = success.k, recall = recall.k, precision =
// P.k, mrr = recip_rank_cut.k (reciprocal rank of the first relevant result
// within the top k, 0 if none), map = map_cut.k, ndcg = ndcg_cut.k.
var trecMeasure = map[string]string{
	"hit_rate":  "success",
	"recall":    "recall",
	"precision": "P",
	"mrr":       "recip_rank_cut",
	"map":       "map_cut",
	"ndcg":      "ndcg_cut",
}

// measures returns the eval measures of the config's metrics at every k,
// with the report name of each.
func measures(c *Config) ([]eval.Measure, []string, error) {
	var ms []eval.Measure
	var names []string
	for _, f := range c.Metrics {
		if trecMeasure[f] == "" {
			continue // a span family (cellScores)
		}
		for _, k := range c.K {
			m, err := eval.ParseMeasures([]string{trecMeasure[f] + "." + strconv.Itoa(k)})
			if err != nil {
				return nil, nil, err
			}
			ms = append(ms, m...)
			names = append(names, config.MetricName(f, k))
		}
	}
	return ms, names, nil
}

// evaluateRunContext scores every answerable query of qrels in run with
// trec_eval's semantics (eval.Evaluate: ties by doc id descending, a query
// missing from the run scores 0, unanswerable queries left out) and returns
// them in compare's form (compare.FromEvaluation): report metric name →
// query id → value. A cancelled ctx (eval.Options.Context) ends it within
// a query, with ctx's error.
func evaluateRunContext(ctx context.Context, cfg *Config, qrels eval.Qrels, run eval.Run) (map[string]map[string]float64, error) {
	ms, names, err := measures(cfg)
	if err != nil {
		return nil, err
	}
	opts := eval.DefaultOptions()
	opts.CompleteQueries = true
	opts.AverageUnanswerable = false
	opts.Context = ctx
	e, err := eval.Evaluate(qrels, run, ms, opts)
	if err != nil {
		return nil, err
	}
	return compare.FromEvaluation(e, names)
}
