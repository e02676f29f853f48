package config

import (
	"strconv"
	"strings"

	"github.com/ragbench/ragbench/compare"
	"github.com/ragbench/ragbench/spans"
	"github.com/ragbench/ragbench/stats"
)

// DefaultK is the default cutoff grid.
var DefaultK = []int{1, 3, 5, 10, 20, 100}

// MetricFamilies are the metric families a sweep evaluates at each k, in
// report order: hit_rate (trec_eval success.k), recall (recall.k),
// precision (P.k), mrr (recip_rank cut at k), map (map_cut.k), ndcg
// (ndcg_cut.k).
var MetricFamilies = []string{"hit_rate", "recall", "precision", "mrr", "map", "ndcg"}

// SpanMetricFamilies are the metric families of span labels, evaluated at
// every k (package spans): token_recall, token_precision, token_iou
// (Chroma's token-level measures, fractions in [0, 1]), span_recall,
// span_hit_rate, span_mrr (passage-level: a chunk finds a gold span when it
// covers dataset.span_cover_share of it).
var SpanMetricFamilies = spans.AtK

// DefaultMetrics is the metrics default (docs/config.md): MetricFamilies,
// and with span labels also SpanMetricFamilies, in that order. A new slice.
func DefaultMetrics(spanLabels bool) []string {
	ms := append([]string(nil), MetricFamilies...)
	if spanLabels {
		ms = append(ms, SpanMetricFamilies...)
	}
	return ms
}

// MetricName is the report's name of a metric family at cutoff k, e.g.
// "ndcg@10": the one spelling of results.json's metric names.
func MetricName(family string, k int) string { return family + "@" + strconv.Itoa(k) }

// MetricNames are "family@k" for every family (config order) and k.
func (c *Config) MetricNames() []string {
	var out []string
	for _, f := range c.Metrics {
		for _, k := range c.K {
			out = append(out, MetricName(f, k))
		}
	}
	return out
}

// GateMetric is the name ("ndcg@10") of the metric bench run gates and
// leads with: the primary metric family at prompt_k.
func (c *Config) GateMetric() string { return MetricName(c.PrimaryMetric, c.PromptK) }

// MetricAt resolves a metric as a user names it: "recall@100" as is, a
// family alone ("recall") at prompt_k.
func (c *Config) MetricAt(name string) string {
	if strings.Contains(name, "@") {
		return name
	}
	return MetricName(name, c.PromptK)
}

// CompareOptions are compare's options for the significance settings
// (test, correction, alpha, permutations as both permutations and
// bootstrap resamples — at least stats.MinResamples of these —, seed, interval, equivalence margin, difference to
// detect): the one translation, used by the cell comparisons, the tuning
// test and the gate. The plan is left to the caller (Plan gives the
// configured one: its baseline may need the cells' means). Seed and Detect
// must be set (Load's defaults set them). Errors: a test, correction or
// interval stats does not know.
func (s SignificanceConfig) CompareOptions() (compare.Options, error) {
	test, err := stats.ParseTest(s.Test)
	if err != nil {
		return compare.Options{}, err
	}
	corr, err := stats.ParseCorrection(s.Correction)
	if err != nil {
		return compare.Options{}, err
	}
	iv := stats.BCa
	if s.Interval != "" {
		if iv, err = stats.ParseIntervalMethod(s.Interval); err != nil {
			return compare.Options{}, err
		}
	}
	o := compare.Options{Test: test, Correction: corr, Alpha: s.Alpha,
		// The bootstrap draws as many resamples as permutations, at
		// least stats.MinResamples (stats.CheckResamples' reason; the
		// report's interval line says how many).
		Permutations: s.Permutations, Resamples: max(s.Permutations, stats.MinResamples), Seed: uint64(*s.Seed),
		Interval: iv, Equivalence: s.Equivalence}
	if s.Detect != nil {
		o.Detect = *s.Detect
	}
	return o, nil
}

// PlanKind is the configured comparison plan (compare.VsBaseline when
// unset, as in a results.json written before plans).
func (s SignificanceConfig) PlanKind() compare.PlanKind {
	if s.Plan == "" {
		return compare.VsBaseline
	}
	k, err := compare.ParsePlanKind(s.Plan)
	if err != nil {
		return compare.VsBaseline // Load refuses unknown plans
	}
	return k
}
