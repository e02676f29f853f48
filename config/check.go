package config

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ragbench/ragbench/compare"
	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/internal/srcpos"
	"github.com/ragbench/ragbench/spans"
	"github.com/ragbench/ragbench/stats"
)

// chunkingStrategies lists the config's chunking strategies for messages.
const chunkingStrategies = "doc, fixed, sentence, tokens, recursive"

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
	ck.budgets()
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
	ck.retrieverEmpty()
	sg := &c.Significance
	ck.explicit("significance.test", sg.Test == "", "empty: %s"+noDefault+" (%s)", orList(stats.TestNames(true)), stats.DefaultTest)
	ck.explicit("significance.correction", sg.Correction == "", "empty: %s"+noDefault+" (%s)", orList(stats.CorrectionNames()), stats.DefaultCorrection)
	ck.explicit("significance.plan", sg.Plan == "", "empty: %s"+noDefault+" (%s)", orList(planNames()), compare.VsBaseline)
	ck.explicit("significance.baseline", sg.Baseline == "", "empty cell name"+noDefault+" (the best BM25 cell on the primary metric)")
	ck.explicit("significance.interval", sg.Interval == "", "empty: %s"+noDefault+" (%s)", orList(intervalNames), stats.BCa)
	ck.explicit("significance.metrics", len(sg.Metrics) == 0, "empty metrics list: name at least one evaluated metric"+noDefault+" ([primary_metric])")
	if sg.Test == "" || sg.Test == string(stats.Randomization) || sg.Test == string(stats.Bootstrap) {
		ck.explicit("significance.permutations", sg.Permutations == 0, "0 permutations: the %s test needs ≥ 1 (e.g. %d)"+noDefault+" (%d)", cmp.Or(sg.Test, string(stats.DefaultTest)), stats.DefaultPermutations, stats.DefaultPermutations)
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
		if ch.Strategy != "doc" {
			listedTwice(ck, f+".sizes", "size", ch.Sizes)
			listedTwice(ck, f+".overlaps", "overlap", ch.Overlaps)
		}
		if ch.Tokenizer != "" && ch.Strategy != "tokens" && ch.Strategy != "recursive" {
			ck.bad(f+".tokenizer", "strategy %s counts words: tokenizer is only for tokens and recursive", ch.Strategy)
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
		seenK[k] = true
	}
	listedTwice(ck, "k", "k", c.K)
	sort.Ints(c.K)
	if len(c.Metrics) == 0 {
		c.Metrics = DefaultMetrics(c.spanLabels)
	}
	for i, m := range c.Metrics {
		if !slices.Contains(MetricFamilies, m) && !slices.Contains(SpanMetricFamilies, m) {
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
// primary_metric (which significance.metrics defaults to). The names and
// defaults are package stats' (tests, corrections, intervals, α, seed,
// permutations, Δ) and compare's (plans): their one owner.
func (ck *configCheck) significance() {
	c := ck.c
	s := &c.Significance
	if s.Test == "" {
		s.Test = string(stats.DefaultTest)
	}
	if !slices.Contains(stats.TestNames(true), s.Test) {
		ck.bad("significance.test", "unknown test %q: %s", s.Test, orList(stats.TestNames(true)))
	}
	if s.Correction == "" {
		s.Correction = string(stats.DefaultCorrection)
	}
	if !slices.Contains(stats.CorrectionNames(), s.Correction) {
		ck.bad("significance.correction", "unknown correction %q: %s", s.Correction, orList(stats.CorrectionNames()))
	}
	if s.Alpha == 0 && !ck.has("significance.alpha") {
		s.Alpha = stats.DefaultAlpha
	}
	if !(s.Alpha > 0 && s.Alpha < 1) {
		ck.bad("significance.alpha", "alpha %v must be in (0, 1)", s.Alpha)
	}
	if s.Seed == nil {
		s.Seed = ptr(int64(stats.DefaultSeed))
	}
	if s.Permutations == 0 {
		s.Permutations = stats.DefaultPermutations
	}
	if s.Permutations < 1 && (s.Test == string(stats.Randomization) || s.Test == string(stats.Bootstrap)) {
		ck.bad("significance.permutations", "permutations %d must be ≥ 1", s.Permutations)
	}
	ck.plan()
	if c.PrimaryMetric == "" {
		c.PrimaryMetric = "ndcg"
		if !slices.Contains(c.Metrics, "ndcg") && len(c.Metrics) > 0 {
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

// intervalNames are the significance.interval values (stats'
// IntervalMethods, in help order).
var intervalNames = []string{string(stats.BCa), string(stats.Percentile), string(stats.StudentT)}

// planNames are the significance.plan values (compare.PlanKinds).
func planNames() []string {
	var out []string
	for _, k := range compare.PlanKinds {
		out = append(out, string(k))
	}
	return out
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// plan fills and checks the comparison plan: plan, baseline, equivalence,
// detect, interval.
func (ck *configCheck) plan() {
	s := &ck.c.Significance
	if s.Plan == "" {
		s.Plan = string(compare.VsBaseline)
	}
	if !slices.Contains(planNames(), s.Plan) {
		ck.bad("significance.plan", "unknown plan %q: %s", s.Plan, orList(planNames()))
	}
	if s.Baseline != "" {
		var cells []string
		for _, cell := range ck.c.Cells() {
			cells = append(cells, cell.Name)
		}
		switch {
		case s.Plan != string(compare.VsBaseline):
			ck.bad("significance.baseline", "a baseline cell goes with plan %s, not %s (remove it, or set plan: %s)", compare.VsBaseline, s.Plan, compare.VsBaseline)
		case !slices.Contains(cells, s.Baseline):
			shown := cells
			if len(shown) > 8 {
				shown = append(shown[:8:8], fmt.Sprintf("… %d more", len(cells)-8))
			}
			ck.bad("significance.baseline", "cell %q is not one of the config's cells (%s): name it <chunking>/<retriever>", s.Baseline, strings.Join(shown, ", "))
		}
	}
	if s.Interval == "" {
		s.Interval = string(stats.BCa)
	}
	if !slices.Contains(intervalNames, s.Interval) {
		ck.bad("significance.interval", "unknown interval %q: %s", s.Interval, orList(intervalNames))
	}
	if !(s.Equivalence >= 0) || math.IsInf(s.Equivalence, 0) {
		ck.bad("significance.equivalence", "equivalence margin %v must be a finite number ≥ 0 (in the metric's units, e.g. 0.02; 0: no equivalence test)", s.Equivalence)
	}
	if s.Detect == nil {
		s.Detect = ptr(stats.DefaultDetect)
	}
	if d := *s.Detect; !(d >= 0) || math.IsInf(d, 0) {
		ck.bad("significance.detect", "difference to detect %v must be a finite number ≥ 0 (in the metric's units, e.g. 0.05; 0: none)", d)
	}
}

// evaluated reports on field when metric m is not among the evaluated
// metrics, saying so when m is a span family and the labels are not spans.
func (ck *configCheck) evaluated(field, m string) {
	c := ck.c
	switch {
	case slices.Contains(c.Metrics, m):
	case slices.Contains(SpanMetricFamilies, m) && !c.spanLabels:
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

// textChunking checks a tokens or recursive chunking entry (field f).
func (ck *configCheck) textChunking(f string, ch *ChunkingConfig) {
	unit := "tokens"
	if ch.Strategy == "recursive" && ch.Tokenizer == "" {
		unit = "characters"
	}
	if ch.Strategy == "tokens" && ch.Tokenizer == "" {
		ck.bad(f+".tokenizer", "strategy tokens needs a tokenizer: tokenizer: %s", corpus.CL100kBase)
	} else if ch.Tokenizer != "" && ch.Tokenizer != corpus.CL100kBase {
		ck.bad(f+".tokenizer", "unknown tokenizer %q: %s (tiktoken's, embedded)", ch.Tokenizer, corpus.CL100kBase)
	}
	if len(ch.Sizes) == 0 {
		ck.bad(f+".sizes", "strategy %s needs sizes (%s per chunk), e.g. sizes: [200, 400]", ch.Strategy, unit)
	}
	if len(ch.Overlaps) == 0 {
		ch.Overlaps = []int{0}
	}
	for j, s := range ch.Sizes {
		if s < 1 {
			ck.bad(fmt.Sprintf("%s.sizes.%d", f, j), "size %d must be ≥ 1 %s", s, unit)
		}
		for k, o := range ch.Overlaps {
			switch {
			case ch.Strategy == "tokens" && (o < 0 || (s >= 1 && o >= s)):
				ck.bad(fmt.Sprintf("%s.overlaps.%d", f, k), "overlap %d must be in [0, size %d) %s", o, s, unit)
			case ch.Strategy == "recursive" && (o < 0 || (s >= 1 && o > s)):
				ck.bad(fmt.Sprintf("%s.overlaps.%d", f, k), "overlap %d must be in [0, size %d] %s", o, s, unit)
			}
		}
	}
}

// spanCoverShare fills and checks dataset.span_cover_share.
func (ck *configCheck) spanCoverShare() {
	d := &ck.c.Dataset
	if d.SpanCoverShare == 0 && !ck.has("dataset.span_cover_share") {
		d.SpanCoverShare = spans.DefaultCoverShare
	}
	if !(d.SpanCoverShare > 0 && d.SpanCoverShare <= 1) {
		ck.bad("dataset.span_cover_share", "share %v must be in (0, 1] (the share of a gold span a chunk must hold to find it; default %v)", d.SpanCoverShare, spans.DefaultCoverShare)
	}
}

// gridded tells whether the dotted field ("retrievers.2.fusion") holds a
// grid, so that the empty-value checks leave it to the grid's own.
func (ck *configCheck) gridded(field string) bool {
	parts := strings.Split(field, ".")
	if len(parts) != 3 || parts[0] != "retrievers" {
		return false
	}
	i, err := strconv.Atoi(parts[1])
	if err != nil || i < 0 || i >= len(ck.c.Retrievers) {
		return false
	}
	return slices.Contains(ck.c.Retrievers[i].gridKeys, parts[2])
}

// listedTwice reports each value of the grid list at field ("k",
// "chunking.0.sizes") that an earlier value equals, on the repeat's field:
// "<what> <value> listed twice". The one rule for duplicates in a list of
// the config (k, a chunking's sizes and overlaps, budget_tokens,
// cover_shares); a field with an error already keeps it (bad).
func listedTwice[T comparable](ck *configCheck, field, what string, list []T) {
	seen := make(map[T]bool, len(list))
	for i, v := range list {
		if seen[v] {
			ck.bad(fmt.Sprintf("%s.%d", field, i), "%s %v listed twice", what, v)
		}
		seen[v] = true
	}
}

func ptr[T any](v T) *T { return &v }

func isNaN(f float64) bool { return f != f }
