//go:build e2e

package bm25

import "testing"

// TestE2ESciFactVariants: the other SciFact configurations. Pyserini's BEIR
// multifield index (title and text as two fields, Lucene English analysis)
// reports nDCG@10 = 0.6647 (../shared/datasets/README.md); the rest are
// logged for docs/benchmarks/bm25.md — bleve's native scoring is reported,
// not asserted, as the issue asks.
func TestE2ESciFactVariants(t *testing.T) {
	runSciFact(t, []sciCase{
		{name: "multi lucene-en", opts: Options{Analyzer: AnalyzerLuceneEn, Fields: FieldsMulti}, wantNDCG: 0.6647},
		{name: "flat lucene-en exact-dl", opts: Options{Analyzer: AnalyzerLuceneEn, ExactLengths: true}},
		{name: "multi en", opts: Options{Fields: FieldsMulti}},
		{name: "bleve-native flat en", opts: Options{Scoring: ScoringBleve}},
		{name: "bleve-native flat lucene-en", opts: Options{Scoring: ScoringBleve, Analyzer: AnalyzerLuceneEn}},
		{name: "bleve-native multi en", opts: Options{Scoring: ScoringBleve, Fields: FieldsMulti}},
	})
}
