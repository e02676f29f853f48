// Package bm25 is ragbench's lexical retriever: Okapi BM25 over a bleve v2
// index, scored by ragbench itself with Lucene's formula so that the numbers
// match Lucene/Anserini/Pyserini and do not depend on how bleve happened to
// lay out its segments.
//
// # Why not bleve's own BM25
//
// bleve (v2.6.3) indexes and analyses; its "bm25" scoring model is not
// textbook BM25 (idf applied twice, √tf, avgdl from per-segment counts, k1
// and b process-wide globals), and bleve.NewMemOnly ignores the scoring
// model. So Search reads postings from bleve's term field readers (term
// frequency per document) and scores
//
//	score(d, q) = Σ_{t ∈ q} qtf(t) · idf(t) · tf / (tf + k1 · (1 − b + b · dl/avgdl))
//	idf(t)      = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5))
//
// as Lucene ≥ 8's BM25Similarity does (no (k1+1) factor in the numerator:
// it does not change rankings). N is the number of indexed items with at
// least one token in the field, n(t) the number of them containing t, dl the
// item's length in tokens after analysis (recorded by ragbench at indexing),
// avgdl the mean of dl over the N items, qtf(t) how often t occurs in the
// analysed query (Anserini boosts repeated query terms this way). Like
// Lucene, dl is by default stored lossily in one byte (SmallFloat.intToByte4:
// exact below 24 tokens, 4 significant bits above), which is part of why
// Pyserini reports SciFact nDCG@10 = 0.6789; Options.ExactLengths uses exact
// lengths instead. With Fields "multi" the score is the sum of the per-field
// scores (title and body, each with its own N, n(t) and avgdl), like a
// Lucene BooleanQuery over both fields.
//
// Options.Scoring "bleve" instead runs a bleve match query with bleve's
// native bm25 model (bleve's global k1 = 1.2, b = 0.75 — Options.K1 and B are
// not applied), for comparison only.
//
// Query text is analysed with the index's analyzer and never parsed as query
// syntax: "s. 38(2) deposit: wear & tear?" is just words. A query whose
// tokens are all stop words or punctuation gets an empty result.
package bm25

import (
	"fmt"
	"math"
	"runtime"
	"strings"
)

// Scoring models for Options.Scoring.
const (
	ScoringLucene = "lucene" // ragbench's exact Lucene BM25 (default)
	ScoringBleve  = "bleve"  // bleve's native bm25 model, for comparison
)

// Field layouts for Options.Fields.
const (
	FieldsFlat  = "flat"  // one field: Chunk.IndexText() (title + " " + text) (default)
	FieldsMulti = "multi" // two fields, "title" (when prepended) and "body", scores summed
)

// Analyzers for Options.Analyzer.
const (
	// AnalyzerEn is bleve's English analyzer "en": Unicode word
	// segmentation, English possessive removal, lower-casing, bleve's
	// English stop list (Snowball's, 174 words) and the Porter stemmer.
	AnalyzerEn = "en"
	// AnalyzerLuceneEn is "en" with Lucene's 33-word English stop set
	// (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET) instead of Snowball's — the
	// analysis Anserini/Pyserini use for BEIR.
	AnalyzerLuceneEn = "lucene-en"
)

// Options configure a BM25 retriever. The zero value of every field selects
// its default (DefaultOptions), so Options{} is Anserini's BM25 (k1 = 0.9,
// b = 0.4) over a flat in-memory index with the "en" analyzer. The two
// parameters for which 0 is a meaningful value are explicit flags:
// BinaryTF (k1 = 0) and NoLengthNorm (b = 0).
type Options struct {
	// K1 is BM25's term-frequency saturation, > 0; 0 selects 0.9
	// (Anserini/Pyserini's default). Use BinaryTF for k1 = 0.
	K1 float64
	// B is BM25's length normalisation in [0, 1]; 0 selects 0.4
	// (Anserini/Pyserini's default). Use NoLengthNorm for b = 0.
	B float64
	// NoLengthNorm sets b = 0 (B must then be 0).
	NoLengthNorm bool
	// BinaryTF sets k1 = 0 (K1 must then be 0): a matching term adds
	// qtf·idf whatever its frequency in the item.
	BinaryTF bool
	// Scoring is ScoringLucene (default) or ScoringBleve.
	Scoring string
	// Fields is FieldsFlat (default) or FieldsMulti.
	Fields string
	// Analyzer is AnalyzerEn (default) or AnalyzerLuceneEn.
	Analyzer string
	// ExactLengths scores with exact document lengths instead of Lucene's
	// one-byte SmallFloat lengths.
	ExactLengths bool
	// Dir, when not empty, keeps the index on disk under Dir, in a folder
	// named by a hash of (chunk ids and texts — so corpus and chunking —,
	// analyzer, field layout); New reuses it when it exists. "" builds the
	// index in a temporary folder (os.TempDir) that Close removes.
	Dir string
	// BatchSize is documents per segment: per zap segment ragbench writes
	// (ScoringLucene; never merged), or per batch of scorch's offline
	// builder (ScoringBleve; merged into one segment at the end). 0 selects
	// 10,000 and 1,000 respectively (chosen by measurement:
	// docs/benchmarks/bm25.md). It never changes ragbench's scores.
	BatchSize int
	// Workers bounds concurrent query evaluation and the goroutines that
	// analyse and write segments; 0 selects runtime.GOMAXPROCS(0). Results
	// do not depend on it.
	Workers int
}

// scorchBatchSize is the default BatchSize of ScoringBleve's indexes:
// scorch's builder merges its batches' segments, and larger batches cost
// more CPU and memory there (docs/benchmarks/bm25.md).
const scorchBatchSize = 1000

// DefaultOptions returns, as data, the values that the zero value of each
// Options field stands for: k1 = 0.9 and b = 0.4 (Anserini/Pyserini's
// BM25 defaults), ScoringLucene, FieldsFlat, AnalyzerEn, 10,000 documents
// per segment (ScoringBleve's scorch batches: scorchBatchSize). Workers stays 0 (runtime.GOMAXPROCS(0) at New: a property of the
// machine, not of the scores). Callers that record or display parameters
// (sweep's config) fill them from here rather than repeating the numbers.
func DefaultOptions() Options {
	return Options{K1: 0.9, B: 0.4, Scoring: ScoringLucene, Fields: FieldsFlat, Analyzer: AnalyzerEn, BatchSize: 10000}
}

// Validate reports the first invalid field of o, or nil. Each error starts
// with the field's snake_case name as configs spell it ("k1: ...", "b: ...",
// "scoring: ...", "fields: ...", "analyzer: ...", "batch_size: ...",
// "workers: ..."), so a caller can point at its own source of the value.
// Ranges: K1 finite and > 0 (0 only with BinaryTF), B in [0, 1] (0 only with
// NoLengthNorm), BatchSize and Workers ≥ 0 (0 selects the default).
func (o Options) Validate() error {
	_, err := o.withDefaults()
	return err
}

// withDefaults returns o with defaults (DefaultOptions) filled in, or an
// error naming the bad field.
func (o Options) withDefaults() (Options, error) {
	d := DefaultOptions()
	if o.BinaryTF {
		if o.K1 != 0 {
			return o, fmt.Errorf("k1: %g with BinaryTF (which sets k1 = 0)", o.K1)
		}
	} else if o.K1 == 0 {
		o.K1 = d.K1
	}
	if o.NoLengthNorm {
		if o.B != 0 {
			return o, fmt.Errorf("b: %g with NoLengthNorm (which sets b = 0)", o.B)
		}
	} else if o.B == 0 {
		o.B = d.B
	}
	if o.K1 < 0 || math.IsNaN(o.K1) || math.IsInf(o.K1, 0) {
		return o, fmt.Errorf("k1: %g, want finite and > 0 (BinaryTF for 0)", o.K1)
	}
	if o.B < 0 || o.B > 1 || math.IsNaN(o.B) {
		return o, fmt.Errorf("b: %g, want in [0, 1]", o.B)
	}
	for _, c := range []struct {
		name     string
		v        *string
		def      string
		one, two string
	}{
		{"scoring", &o.Scoring, d.Scoring, ScoringLucene, ScoringBleve},
		{"fields", &o.Fields, d.Fields, FieldsFlat, FieldsMulti},
		{"analyzer", &o.Analyzer, d.Analyzer, AnalyzerEn, AnalyzerLuceneEn},
	} {
		switch *c.v {
		case "":
			*c.v = c.def
		case c.one, c.two:
		default:
			return o, fmt.Errorf("%s: %q, want %q or %q", c.name, *c.v, c.one, c.two)
		}
	}
	if o.BatchSize == 0 {
		o.BatchSize = d.BatchSize
		if layoutFor(o) == layoutScorch {
			o.BatchSize = scorchBatchSize
		}
	}
	if o.BatchSize < 0 {
		return o, fmt.Errorf("batch_size: %d, want > 0", o.BatchSize)
	}
	if o.Workers == 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Workers < 0 {
		return o, fmt.Errorf("workers: %d, want > 0", o.Workers)
	}
	return o, nil
}

// Name is a short label for reports, e.g. "bm25(k1=0.9,b=0.4)",
// "bm25(k1=0.9,b=0.4,multi,lucene-en)", "bm25-bleve", "bm25-bleve(multi)".
func (o Options) Name() string {
	d, err := o.withDefaults()
	if err != nil {
		return "bm25(invalid)"
	}
	if d.Scoring == ScoringBleve {
		var extra []string
		if d.Fields == FieldsMulti {
			extra = append(extra, "multi")
		}
		if d.Analyzer != AnalyzerEn {
			extra = append(extra, d.Analyzer)
		}
		if len(extra) == 0 {
			return "bm25-bleve"
		}
		return "bm25-bleve(" + strings.Join(extra, ",") + ")"
	}
	s := fmt.Sprintf("bm25(k1=%g,b=%g", d.K1, d.B)
	if d.Fields == FieldsMulti {
		s += ",multi"
	}
	if d.Analyzer != AnalyzerEn {
		s += "," + d.Analyzer
	}
	if d.ExactLengths {
		s += ",exact-dl"
	}
	return s + ")"
}
