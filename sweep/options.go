package sweep

import (
	"slices"
	"strings"

	"github.com/ragbench/ragbench/encoder"
	"github.com/ragbench/ragbench/rerank"
	"github.com/ragbench/ragbench/retrievers/bm25"
	"github.com/ragbench/ragbench/retrievers/hybrid"
)

// This file is the one place a retriever's config becomes its package's
// Options: Config.check validates them with the package's own Validate, and
// the backend builds the retriever from the same value, so what is checked
// is what runs.

// bm25Options is r's bm25.Options (r's defaults filled by check). k1 = 0
// and b = 0 are meaningful values, spelled with bm25's explicit flags:
// bm25 reads a zero K1 or B as "use the default".
func (r RetrieverConfig) bm25Options(dir string) bm25.Options {
	return bm25.Options{K1: *r.K1, B: *r.B, BinaryTF: *r.K1 == 0, NoLengthNorm: *r.B == 0, Scoring: r.Scoring,
		Fields: r.Fields, Analyzer: r.Analyzer, ExactLengths: r.ExactLengths, Dir: dir}
}

// rerankOptions is r's rerank.Options (r's defaults filled by check).
// Alpha is 0 in mode ce, where rerank ignores it.
func (r RetrieverConfig) rerankOptions() rerank.Options {
	o := rerank.Options{Depth: r.Depth, BatchSize: r.BatchSize, Mode: rerank.Mode(r.Mode)}
	if r.Alpha != nil {
		o.Alpha = *r.Alpha
	}
	return o
}

// hybridOptions is r's hybrid.Options (r's defaults filled by check).
// hybrid takes every number literally (K = 0 is RRF without a constant),
// so check fills rrf_k and depth from hybrid's defaults first.
func (r RetrieverConfig) hybridOptions() hybrid.Options {
	o := hybrid.Options{Method: hybrid.Method(r.Fusion), Depth: r.Depth, Weights: r.Weights}
	if r.RRFK != nil {
		o.K = *r.RRFK
	}
	if r.Normalization != "" {
		o.Norm = hybrid.Normalization(r.Normalization)
	}
	o.Missing = hybrid.Missing(r.Missing)
	return o
}

// hybridConfigNames maps hybrid.Options.Validate's field names to the
// config's.
var hybridConfigNames = map[string]string{"method": "fusion", "k": "rrf_k", "norm": "normalization"}

// hybridField is optionField for hybrid's errors ("hybrid: k: ...",
// "hybrid: weights[1]: ..."), with the config's names for its fields.
func hybridField(prefix string, err error) (field, msg string) {
	text := strings.TrimPrefix(err.Error(), "hybrid: ")
	name, rest, ok := strings.Cut(text, ": ")
	if !ok || strings.ContainsAny(name, " \"") {
		return prefix, text
	}
	if base, idx, isList := strings.Cut(strings.TrimSuffix(name, "]"), "["); isList {
		name = base + "." + idx
	}
	if n, ok := hybridConfigNames[name]; ok {
		name = n
	}
	return prefix + "." + name, rest
}

// defaultInferenceBatch is encoder's default batch size (texts or pairs per
// ONNX Runtime call) for a model of kind (encoder.KindEmbedder for dense,
// encoder.KindCrossEncoder for rerank), the default of their batch_size.
func defaultInferenceBatch(kind string) int {
	var o encoder.Options
	o.SetDefaults(kind)
	return o.BatchSize
}

// optionField splits a package Validate error ("k1: -1, want ...", see
// bm25.Options.Validate) into the config field under prefix and the
// message; an error without a field prefix stays on prefix itself.
func optionField(prefix string, err error) (field, msg string) {
	name, rest, ok := strings.Cut(err.Error(), ": ")
	if !ok || strings.ContainsAny(name, " \"") {
		return prefix, err.Error()
	}
	return prefix + "." + name, rest
}

// zeroWeightFused tells whether r is a hybrid with an input of weight 0,
// as its weights or in its weights grid: its fused runs changed when a
// weight-0 input stopped taking part (hybrid.Options.Weights), so such
// cells get a run-cache key of their own; every other key is unchanged.
func zeroWeightFused(r RetrieverConfig) bool {
	if r.Type != "hybrid" {
		return false
	}
	grids := [][]float64{r.Weights}
	if r.Tune != nil {
		grids = append(grids, r.Tune.Weights...)
	}
	for _, ws := range grids {
		if slices.Contains(ws, 0) {
			return true
		}
	}
	return false
}

// zeroRunAsDefault tells whether r has a zero that ragbench before the
// explicit-zero fix ran as the package default (bm25 k1: 0 as 0.9, rerank
// alpha: 0 as 0.4). Such cells get a run-cache key of their own so that no
// run cached by an older binary is read back; every other key is unchanged.
func zeroRunAsDefault(r RetrieverConfig) bool {
	switch r.Type {
	case "bm25":
		return r.K1 != nil && *r.K1 == 0
	case "rerank":
		return r.Mode == string(rerank.ModeInterpolate) && r.Alpha != nil && *r.Alpha == 0
	}
	return false
}
