package sweep

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ragbench/ragbench/encoder"
	"github.com/ragbench/ragbench/internal/srcpos"
	"github.com/ragbench/ragbench/rerank"
	"github.com/ragbench/ragbench/retrievers/bm25"
	"github.com/ragbench/ragbench/retrievers/hybrid"
)

// configCheck is one run of Config.check: the config being filled in, its
// YAML document (for lines, explicit nulls and numbers as written) and the
// errors found so far, one per field.
type configCheck struct {
	c        *Config
	root     *yaml.Node
	ln       lines
	errs     []error
	reported map[string]bool // fields with an error: the first found is kept
}

// check fills defaults and validates values (not files), one section of
// the config at a time, in docs/config.md's order. Errors come back in file
// order (errors without a line first), each "file:line: field: message".
func (c *Config) check(root *yaml.Node) error {
	ln := lines{}
	collectLines(root, "", ln)
	c.lines = ln
	ck := &configCheck{c: c, root: root, ln: ln, reported: map[string]bool{}}
	ck.emptyValues()
	ck.dataset()
	ck.chunking()
	ck.retrievers()
	ck.grid()
	ck.significance()
	ck.heldOut()
	return ck.err()
}

// bad records an error on field (a dotted path, "retrievers.2.alpha"),
// unless field already has one.
func (ck *configCheck) bad(field, format string, a ...any) {
	if !ck.reported[field] {
		ck.reported[field] = true
		ck.errs = append(ck.errs, ck.ln.errf(ck.c.path, field, format, a...))
	}
}

// has reports whether field is written in the file.
func (ck *configCheck) has(field string) bool { _, ok := ck.ln[field]; return ok }

// explicit reports format on field when the file gives field a zero value
// (0, "", []) that the decoded config cannot tell from an absent field.
func (ck *configCheck) explicit(field string, zero bool, format string, a ...any) {
	if zero && ck.has(field) && !isNull(ck.root, field) && !ck.gridded(field) {
		ck.bad(field, format, a...)
	}
}

// err is the errors found, in file order.
func (ck *configCheck) err() error {
	// In file order (errors without a line first), whatever order the
	// checks ran in.
	lineOf := func(e error) int {
		var ce *srcpos.Error
		if errors.As(e, &ce) {
			return ce.Line
		}
		return 0
	}
	sort.SliceStable(ck.errs, func(i, j int) bool { return lineOf(ck.errs[i]) < lineOf(ck.errs[j]) })
	return errors.Join(ck.errs...)
}

// emptyValues reports the values that would otherwise silently become
// defaults or other numbers: explicit nulls, zero values written out, and
// numbers yaml.v3 would change (checkNumbers).
func (ck *configCheck) emptyValues() {
	c := ck.c
	nullFields(ck.root, "", func(field string) {
		ck.bad(field, "empty value (null): give a value, or remove the line to use the default")
	})
	checkNumbers(ck.root, reflect.TypeFor[Config](), "", ck.bad)
	const noDefault = "; remove the line to use the default"
	ck.explicit("name", c.Name == "", "empty name"+noDefault+" (the config file's base name)")
	ck.explicit("k", len(c.K) == 0, "empty k grid: list the cutoffs, e.g. k: [1, 5, 10]"+noDefault+" %v", DefaultK)
	ck.explicit("metrics", len(c.Metrics) == 0, "empty metrics list: name at least one of %s"+noDefault+" (all six)", strings.Join(MetricFamilies, ", "))
	ck.explicit("chunking", len(c.Chunking) == 0, "empty chunking list: give at least one entry, e.g. - strategy: doc"+noDefault+" (one whole-document chunking)")
	ck.explicit("prompt_k", c.PromptK == 0, "prompt_k 0: must be one of k"+noDefault+" (10, else the largest k)")
	ck.explicit("depth", c.Depth == 0, "depth 0: must be ≥ the largest k"+noDefault+" (the largest k)")
	ck.explicit("snippet", c.Snippet == 0, "snippet 0: must be ≥ 1 character"+noDefault+" (160)")
	ck.explicit("primary_metric", c.PrimaryMetric == "", "empty: one of the evaluated metrics"+noDefault+" (ndcg)")
	ck.explicit("output", c.Output == "", "empty path"+noDefault+" (results/<name> beside the config)")
	ck.explicit("cache_dir", c.CacheDir == "", "empty path"+noDefault+" ($RAGBENCH_CACHE_DIR, else .ragbench-cache beside the config)")
	ck.explicit("history", c.History == "", "empty path"+noDefault+" (bench-history.csv beside the config)")
	ck.explicit("dataset.name", c.Dataset.Name == "", "empty name"+noDefault+" (the dataset folder's name)")
	ck.explicit("dataset.split", c.Dataset.Split == "", "empty split"+noDefault+" (test)")
	ck.explicit("dataset.slice_field", c.Dataset.SliceField == "", "empty field name"+noDefault+" (kind, else slice)")
	ck.explicit("dataset.unknown_gold", c.Dataset.UnknownGold == "", "empty: error or ignore"+noDefault+" (error)")
	for i, ch := range c.Chunking {
		f := fmt.Sprintf("chunking.%d", i)
		if ch.Strategy != "doc" {
			ck.explicit(f+".overlaps", len(ch.Overlaps) == 0, "empty overlaps list: give at least one overlap, e.g. [0]"+noDefault+" ([0])")
		}
	}
	for i, r := range c.Retrievers {
		f := fmt.Sprintf("retrievers.%d", i)
		ck.explicit(f+".scoring", r.Scoring == "", "empty: lucene or bleve"+noDefault+" (lucene)")
		ck.explicit(f+".fields", r.Fields == "", "empty: flat or multi"+noDefault+" (flat)")
		ck.explicit(f+".analyzer", r.Analyzer == "", "empty: en or lucene-en"+noDefault+" (en)")
		ck.explicit(f+".fusion", r.Fusion == "", "empty: rrf, combsum, combmnz, dbsf, harmonic or geometric"+noDefault+" (rrf)")
		ck.explicit(f+".normalization", r.Normalization == "", "empty: minmax, zscore, max, sum, rank, borda or none"+noDefault+" (minmax)")
		ck.explicit(f+".missing", r.Missing == "", "empty: zero, min, rank or borda"+noDefault+" (zero; borda under normalization borda)")
		ck.explicit(f+".mode", r.Mode == "", "empty: ce or interpolate"+noDefault+" (ce)")
		ck.explicit(f+".batch_size", r.BatchSize == 0, "batch_size 0: must be ≥ 1"+noDefault+" (32)")
		ck.explicit(f+".depth", r.Depth == 0, "depth 0: must be ≥ 1"+noDefault+" (100)")
		ck.explicit(f+".weights", len(r.Weights) == 0, "empty weights list: one weight per input"+noDefault+" (all 1)")
	}
	sg := &c.Significance
	ck.explicit("significance.test", sg.Test == "", "empty: randomization, t, bootstrap, wilcoxon or sign"+noDefault+" (randomization)")
	ck.explicit("significance.correction", sg.Correction == "", "empty: holm, bonferroni, bh or none"+noDefault+" (holm)")
	ck.explicit("significance.metrics", len(sg.Metrics) == 0, "empty metrics list: name at least one evaluated metric"+noDefault+" ([primary_metric])")
	if sg.Test == "" || sg.Test == "randomization" || sg.Test == "bootstrap" {
		ck.explicit("significance.permutations", sg.Permutations == 0, "0 permutations: the %s test needs ≥ 1 (e.g. 10000)"+noDefault+" (10000)", firstNonEmpty(sg.Test, "randomization"))
	}
}

// dataset fills the dataset section's defaults and checks its shape.
func (ck *configCheck) dataset() {
	c := ck.c
	if c.Name == "" {
		c.Name = strings.TrimSuffix(filepath.Base(c.path), filepath.Ext(c.path))
	}
	d := &c.Dataset
	switch {
	case d.BEIR != "" && (d.Corpus != "" || d.Queries != ""):
		ck.bad("dataset", "give either beir (a BEIR folder) or corpus + queries, not both")
	case d.BEIR == "" && (d.Corpus == "" || (d.Queries == "" && d.Qrels == "")):
		ck.bad("dataset", "missing: set dataset.beir to a BEIR folder, or dataset.corpus and dataset.queries (labelled-query JSONL)")
	case d.Corpus != "" && d.Qrels != "" && d.Queries == "":
		ck.bad("dataset.queries", "missing: qrels need a queries file (BEIR queries.jsonl) for the query texts")
	}
	if d.BEIR != "" && d.Split == "" {
		d.Split = "test"
	}
	if d.BEIR == "" && ck.has("dataset.split") {
		ck.bad("dataset.split", "only applies to a BEIR folder (dataset.beir)")
	}
	if d.Title == nil {
		t := true
		d.Title = &t
	}
	if d.UnknownGold == "" {
		d.UnknownGold = "error"
	}
	ck.spanCoverShare()
	if d.UnknownGold != "error" && d.UnknownGold != "ignore" {
		ck.bad("dataset.unknown_gold", "unknown policy %q: error (stop the run) or ignore (drop unknown gold ids, counted in the report)", d.UnknownGold)
	}
}

// chunking fills and checks the chunking list.
func (ck *configCheck) chunking() {
	c := ck.c
	if len(c.Chunking) == 0 {
		c.Chunking = []ChunkingConfig{{Strategy: "doc"}}
	}
	for i := range c.Chunking {
		ch := &c.Chunking[i]
		f := fmt.Sprintf("chunking.%d", i)
		switch ch.Strategy {
		case "doc":
			if ck.has(f+".sizes") || ck.has(f+".overlaps") {
				ck.bad(f+".sizes", "strategy doc takes no sizes or overlaps")
			}
		case "fixed", "sentence":
			if len(ch.Sizes) == 0 {
				ck.bad(f+".sizes", "strategy %s needs sizes (words per chunk), e.g. sizes: [128, 256]", ch.Strategy)
			}
			if len(ch.Overlaps) == 0 {
				ch.Overlaps = []int{0}
			}
			for j, s := range ch.Sizes {
				if s < 1 {
					ck.bad(fmt.Sprintf("%s.sizes.%d", f, j), "size %d must be ≥ 1", s)
				}
				for k, o := range ch.Overlaps {
					if o < 0 || (s >= 1 && o >= s) {
						ck.bad(fmt.Sprintf("%s.overlaps.%d", f, k), "overlap %d must be in [0, size %d)", o, s)
					} else if ch.Strategy == "sentence" && o != 0 {
						ck.bad(fmt.Sprintf("%s.overlaps.%d", f, k), "strategy sentence packs whole sentences: overlap must be 0")
					}
				}
			}
		case "tokens", "recursive":
			ck.textChunking(f, ch)
		case "":
			ck.bad(f+".strategy", "missing: one of %s", chunkingStrategies)
		default:
			ck.bad(f+".strategy", "unknown strategy %q: one of %s", ch.Strategy, chunkingStrategies)
		}
		if ch.Tokenizer != "" && ch.Strategy != "tokens" && ch.Strategy != "recursive" {
			ck.bad(f+".tokenizer", "strategy %s counts words: tokenizer is only for tokens and recursive", ch.Strategy)
		}
	}
}

// retrievers checks names and each retriever by type, then references.
func (ck *configCheck) retrievers() {
	c := ck.c
	if len(c.Retrievers) == 0 {
		ck.bad("retrievers", "missing: give at least one retriever (e.g. - {name: bm25, type: bm25})")
	}
	names := map[string]int{}
	for i := range c.Retrievers {
		r := &c.Retrievers[i]
		f := fmt.Sprintf("retrievers.%d", i)
		if !nameRe.MatchString(r.Name) {
			ck.bad(f+".name", "name %q: use letters, digits, '.', '-', '_'", r.Name)
		} else if j, dup := names[r.Name]; dup {
			ck.bad(f+".name", "duplicate name %q (also retrievers[%d])", r.Name, j)
		}
		names[r.Name] = i
		ck.tuneKeys(f, r)
		switch r.Type {
		case "bm25":
			ck.bm25(f, r)
		case "dense":
			ck.dense(f, r)
		case "hybrid":
			ck.hybrid(f, r)
		case "rerank":
			ck.rerank(f, r)
		case "elasticsearch", "opensearch":
			ck.engine(f, r)
		case "":
			ck.bad(f+".type", "missing: one of bm25, dense, hybrid, rerank, elasticsearch, opensearch")
		default:
			ck.bad(f+".type", "unknown type %q: one of bm25, dense, hybrid, rerank, elasticsearch, opensearch", r.Type)
		}
	}
	ck.references(names)
}

// only reports the fields of r (at f) that do not apply to its type.
func (ck *configCheck) only(f string, r *RetrieverConfig, allowed ...string) {
	for _, k := range append([]string{"k1", "b", "scoring", "fields", "analyzer", "exact_lengths", "model", "fallback_models", "batch_size", "inputs", "fusion", "rrf_k", "normalization", "weights", "input", "mode", "alpha", "depth"}, engineFields...) {
		if ck.has(f+"."+k) && !contains(allowed, k) {
			ck.bad(f+"."+k, "does not apply to type %s", r.Type)
		}
	}
}

// bm25 fills a bm25 retriever from bm25.DefaultOptions and validates it with bm25.Options.Validate.
func (ck *configCheck) bm25(f string, r *RetrieverConfig) {
	ck.only(f, r, "k1", "b", "scoring", "fields", "analyzer", "exact_lengths")
	d := bm25.DefaultOptions()
	if r.K1 == nil {
		r.K1 = ptr(d.K1)
	}
	if r.B == nil {
		r.B = ptr(d.B)
	}
	r.Scoring = firstNonEmpty(r.Scoring, d.Scoring)
	r.Fields = firstNonEmpty(r.Fields, d.Fields)
	r.Analyzer = firstNonEmpty(r.Analyzer, d.Analyzer)
	if err := r.bm25Options("").Validate(); err != nil {
		field, msg := optionField(f, err)
		ck.bad(field, "%s", msg)
	}
}

// dense checks a dense retriever.
func (ck *configCheck) dense(f string, r *RetrieverConfig) {
	ck.only(f, r, "model", "fallback_models", "batch_size")
	if r.Model == "" {
		ck.bad(f+".model", "missing: a model folder (relative to the models root)")
	}
	if r.BatchSize == 0 {
		r.BatchSize = defaultInferenceBatch(encoder.KindEmbedder)
	}
	if r.BatchSize < 1 {
		ck.bad(f+".batch_size", "batch_size %d must be ≥ 1", r.BatchSize)
	}
}

// hybrid fills a hybrid retriever from hybrid.DefaultOptions and validates
// it with hybrid.Options.Validate (one owner of fusion's rules); a tuned
// hybrid (grids) is expanded by hybridGrid instead.
func (ck *configCheck) hybrid(f string, r *RetrieverConfig) {
	ck.only(f, r, "inputs", "fusion", "rrf_k", "normalization", "missing", "weights", "depth")
	if len(r.Inputs) < 2 {
		ck.bad(f+".inputs", "a hybrid fuses at least two retrievers, e.g. inputs: [bm25, dense]")
	}
	if r.Tune != nil {
		ck.hybridGrid(f, r)
		return
	}
	d := hybrid.DefaultOptions()
	if r.Fusion == "" {
		r.Fusion = string(d.Method)
	}
	m := hybrid.Method(r.Fusion)
	if m == hybrid.RRF {
		if r.RRFK == nil {
			r.RRFK = ptr(d.K)
		}
	} else if ck.has(f + ".rrf_k") {
		ck.bad(f+".rrf_k", "applies to fusion rrf only")
	}
	if r.Normalization == "" && m != hybrid.RRF && m != hybrid.DBSF && slices.Contains(hybrid.Methods, m) {
		r.Normalization = string(hybrid.MinMax)
	}
	if r.Depth == 0 {
		r.Depth = d.Depth
	}
	o, n := r.hybridOptions(), len(r.Inputs)
	if n < 2 {
		o.Weights, n = nil, 2 // the inputs error is reported; check the rest
	}
	if err := o.Validate(n); err != nil {
		field, msg := hybridField(f, err)
		ck.bad(field, "%s", msg)
	}
}

// rerank fills a rerank retriever from rerank.DefaultOptions and validates it with rerank.Options.Validate.
func (ck *configCheck) rerank(f string, r *RetrieverConfig) {
	ck.only(f, r, "input", "model", "fallback_models", "batch_size", "mode", "alpha", "depth")
	if r.Input == "" {
		ck.bad(f+".input", "missing: the retriever whose results are reranked")
	}
	if r.Model == "" {
		ck.bad(f+".model", "missing: a cross-encoder model folder (relative to the models root)")
	}
	d := rerank.DefaultOptions()
	if r.BatchSize == 0 {
		r.BatchSize = defaultInferenceBatch(encoder.KindCrossEncoder)
	}
	if r.Depth == 0 {
		r.Depth = d.Depth
	}
	r.Mode = firstNonEmpty(r.Mode, string(d.Mode))
	switch rerank.Mode(r.Mode) {
	case rerank.ModeCE:
		if r.Alpha != nil {
			ck.bad(f+".alpha", "applies to mode interpolate only")
		}
	case rerank.ModeInterpolate:
		if r.Alpha == nil && r.Tune == nil {
			ck.bad(f+".alpha", "missing: mode interpolate needs alpha (the cross-encoder's weight, e.g. %g)", d.Alpha)
		}
	}
	if err := r.rerankOptions().Validate(); err != nil {
		field, msg := optionField(f, err)
		ck.bad(field, "%s", msg)
	}
	if r.Tune != nil {
		ck.rerankGrid(f, r)
	}
}

// references checks inputs: defined, not itself, not twice, and defined
// earlier (so the config order is an evaluation order and has no cycle).
func (ck *configCheck) references(names map[string]int) {
	c := ck.c
	for i, r := range c.Retrievers {
		f := fmt.Sprintf("retrievers.%d", i)
		refs := r.Inputs
		field := ".inputs"
		if r.Type == "rerank" && r.Input != "" {
			refs, field = []string{r.Input}, ".input"
		}
		seen := map[string]bool{}
		for _, in := range refs {
			j, ok := names[in]
			switch {
			case !ok:
				ck.bad(f+field, "unknown retriever %q (defined: %s)", in, strings.Join(sortedKeys(names), ", "))
			case in == r.Name:
				ck.bad(f+field, "retriever %q cannot take itself as input", in)
			case seen[in]:
				ck.bad(f+field, "retriever %q listed twice", in)
			case j > i:
				ck.bad(f+field, "retriever %q must be defined before %q", in, r.Name)
			}
			seen[in] = true
		}
	}
}

// grid fills and checks the k grid, metrics, prompt_k, depth and snippet.
func (ck *configCheck) grid() {
	c := ck.c
	if len(c.K) == 0 {
		c.K = append([]int(nil), DefaultK...)
	}
	seenK := map[int]bool{}
	for i, k := range c.K {
		if k < 1 {
			ck.bad(fmt.Sprintf("k.%d", i), "k %d must be ≥ 1", k)
		}
		if seenK[k] {
			ck.bad(fmt.Sprintf("k.%d", i), "k %d listed twice", k)
		}
		seenK[k] = true
	}
	sort.Ints(c.K)
	if len(c.Metrics) == 0 {
		c.Metrics = DefaultMetrics(c.spanLabels)
	}
	for i, m := range c.Metrics {
		if !contains(MetricFamilies, m) && !contains(SpanMetricFamilies, m) {
			ck.bad(fmt.Sprintf("metrics.%d", i), "unknown metric %q: one of %s, or with span labels %s", m, strings.Join(MetricFamilies, ", "), strings.Join(SpanMetricFamilies, ", "))
		}
	}
	if c.PromptK == 0 {
		c.PromptK = 10
		if !seenK[10] && len(c.K) > 0 {
			c.PromptK = c.K[len(c.K)-1]
		}
	}
	if !seenK[c.PromptK] {
		ck.bad("prompt_k", "prompt_k %d must be one of k %v", c.PromptK, c.K)
	}
	maxK := 0
	if len(c.K) > 0 {
		maxK = c.K[len(c.K)-1]
	}
	if c.Depth == 0 {
		c.Depth = maxK
	}
	if c.Depth < maxK {
		ck.bad("depth", "depth %d is below the largest k %d", c.Depth, maxK)
	}

	if c.Snippet == 0 {
		c.Snippet = 160
	}
	if c.Snippet < 0 {
		ck.bad("snippet", "snippet %d must be ≥ 0", c.Snippet)
	}
}

// significance fills and checks the significance section and
// primary_metric (which significance.metrics defaults to).
func (ck *configCheck) significance() {
	c := ck.c
	s := &c.Significance
	if s.Test == "" {
		s.Test = "randomization"
	}
	if !contains([]string{"randomization", "t", "bootstrap", "wilcoxon", "sign"}, s.Test) {
		ck.bad("significance.test", "unknown test %q: randomization, t, bootstrap, wilcoxon or sign", s.Test)
	}
	if s.Correction == "" {
		s.Correction = "holm"
	}
	if !contains([]string{"holm", "bonferroni", "bh", "none"}, s.Correction) {
		ck.bad("significance.correction", "unknown correction %q: holm, bonferroni, bh or none", s.Correction)
	}
	if s.Alpha == 0 && !ck.has("significance.alpha") {
		s.Alpha = 0.05
	}
	if !(s.Alpha > 0 && s.Alpha < 1) {
		ck.bad("significance.alpha", "alpha %v must be in (0, 1)", s.Alpha)
	}
	if s.Seed == nil {
		s.Seed = ptr(int64(42))
	}
	if s.Permutations == 0 {
		s.Permutations = 10000
	}
	if s.Permutations < 1 && (s.Test == "randomization" || s.Test == "bootstrap") {
		ck.bad("significance.permutations", "permutations %d must be ≥ 1", s.Permutations)
	}
	if c.PrimaryMetric == "" {
		c.PrimaryMetric = "ndcg"
		if !contains(c.Metrics, "ndcg") && len(c.Metrics) > 0 {
			c.PrimaryMetric = c.Metrics[0]
		}
	}
	ck.evaluated("primary_metric", c.PrimaryMetric)
	if len(s.Metrics) == 0 {
		// Checked above as primary_metric: one error per fault.
		s.Metrics = []string{c.PrimaryMetric}
		return
	}
	for i, m := range s.Metrics {
		ck.evaluated(fmt.Sprintf("significance.metrics.%d", i), m)
	}
}

// evaluated reports on field when metric m is not among the evaluated
// metrics, saying so when m is a span family and the labels are not spans.
func (ck *configCheck) evaluated(field, m string) {
	c := ck.c
	switch {
	case contains(c.Metrics, m):
	case contains(SpanMetricFamilies, m) && !c.spanLabels:
		ck.bad(field, "metric %s needs span labels (dataset.queries with \"gold_spans\", or Chroma's questions.csv; docs/spans.md)", m)
	default:
		ck.bad(field, "metric %q is not among the evaluated metrics %v", m, c.Metrics)
	}
}

// heldOut fills and checks the held-out split.
func (ck *configCheck) heldOut() {
	c := ck.c
	h := &c.HeldOut
	if h.Fraction == nil {
		h.Fraction = ptr(0.2)
	}
	if *h.Fraction < 0 || *h.Fraction >= 1 || isNaN(*h.Fraction) {
		ck.bad("heldout.fraction", "fraction %v must be in [0, 1)", *h.Fraction)
	}
	if h.Seed == nil {
		h.Seed = ptr(int64(1))
	}
}
