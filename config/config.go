// Package config is a bench run config (docs/config.md): its types, and
// Load, which reads a YAML file strictly (an unknown field is an error
// naming its line), checks every value as written (numbers yaml.v3 would
// change, explicit nulls and zeros), fills the defaults, and resolves the
// data root, the model roots and every path. Every error is a srcpos.Error
// ("file:line: field: message"), all of them in one pass.
//
// A retriever's settings are its kind's (package kinds): RetrieverConfig
// holds its name, its type and the kind's Settings, decoded and checked
// through the kinds registry, so this package tests no retriever type.
//
// The types are shared by the sweep that runs a config (package sweep)
// and by the results that record it (package results: results.json's
// "config" and each cell's "retriever" are these types' JSON, whose shape
// is part of results.json's contract).
//
// Files are not checked here: sweep.Check (the preflight of bench run and
// bench run --check) does, before any work.
package config

import (
	"github.com/ragbench/ragbench/internal/hashkey"
	"github.com/ragbench/ragbench/internal/srcpos"
)

// Config is one sweep, as read from a YAML file (see docs/config.md for every
// field). Load fills defaults and resolves paths.
type Config struct {
	// Name labels the sweep in the report and the history CSV. Default: the
	// config file's base name without extension.
	Name string `yaml:"name" json:"name"`
	// Dataset says where the corpus, queries and qrels are.
	Dataset DatasetConfig `yaml:"dataset" json:"dataset"`
	// Chunking is the chunking grid: each entry expands to one chunking per
	// (size, overlap) pair. Default: one whole-document chunking.
	Chunking []ChunkingConfig `yaml:"chunking" json:"chunking"`
	// Retrievers are the named retrievers run on every chunking.
	Retrievers []RetrieverConfig `yaml:"retrievers" json:"retrievers"`
	// K is the cutoff grid. Default: 1, 3, 5, 10, 20, 100. Each k ≥ 1.
	K []int `yaml:"k" json:"k"`
	// Metrics are the measure families evaluated at every k: hit_rate,
	// recall, precision, mrr, map, ndcg. Default: all six.
	Metrics []string `yaml:"metrics" json:"metrics"`
	// PrimaryMetric is the metric family (at PromptK) that picks the best
	// cell per chunking on tuning queries and heads the tuning vs held-out
	// table. Default ndcg; must be one of Metrics.
	PrimaryMetric string `yaml:"primary_metric" json:"primary_metric"`
	// PromptK is the k the RAG prompt really uses; the report leads with
	// it and misses.jsonl lists gold ids missing from the top PromptK.
	// Default 10; must be one of K.
	PromptK int `yaml:"prompt_k" json:"prompt_k"`
	// Depth is how many results each retriever returns per query
	// (default: the largest k).
	Depth int `yaml:"depth" json:"depth"`
	// Significance configures the paired tests of the report's main table.
	Significance SignificanceConfig `yaml:"significance" json:"significance"`
	// HeldOut configures the held-out query split.
	HeldOut HeldOutConfig `yaml:"heldout" json:"heldout"`
	// Output is the output folder. Default: results/<name> beside the
	// config file. Relative paths are resolved against the config's folder.
	Output string `yaml:"output" json:"output"`
	// CacheDir holds index, embedding and run caches shared across runs.
	// Default: $RAGBENCH_CACHE_DIR, else .ragbench-cache beside the config.
	CacheDir string `yaml:"cache_dir" json:"cache_dir"`
	// History is the CSV file that gets one row per run. Default:
	// bench-history.csv beside the config.
	History string `yaml:"history" json:"history"`
	// Snippet is the number of characters of text kept per hit in
	// misses.jsonl and the unanswerable report. Default 160.
	Snippet int `yaml:"snippet" json:"snippet"`
	// BudgetTokens are the prompt budgets, in tokens of PromptTokenizer
	// (span labels only): each cell's span measures are computed with the
	// prompt filled in rank order up to each budget (docs/spans.md, "Prompt
	// budgets"). Empty: none. Each ≥ 1, no duplicates; sorted by Load.
	BudgetTokens []int `yaml:"budget_tokens" json:"budget_tokens,omitempty"`
	// PromptBudget is the budget (one of BudgetTokens) the report's
	// chunking verdict is given at, beside prompt_k. Default: the largest
	// of BudgetTokens; 0 when there is none.
	PromptBudget int `yaml:"prompt_budget" json:"prompt_budget,omitempty"`
	// PromptTokenizer names the tokenizer prompts are counted in (the
	// budgets, and the prompt tokens at prompt_k of the cost table):
	// cl100k_base, the only one. Empty means cl100k_base
	// (Config.PromptTokenizerName), left empty so configs without it hash
	// as before.
	PromptTokenizer string `yaml:"prompt_tokenizer" json:"prompt_tokenizer,omitempty"`
	// CoverShares are further cover shares (each in (0, 1], span labels
	// only) at which span_recall, span_hit_rate and span_mrr at prompt_k
	// (and at PromptBudget) are recomputed, to show whether a chunking's
	// lead depends on the covering rule. Empty: none.
	CoverShares []float64 `yaml:"cover_shares" json:"cover_shares,omitempty"`

	// path is the config file (absolute), dataDir/modelsDir the resolved
	// roots. Not part of the YAML.
	path       string
	dataDir    string
	dataFound  bool     // dataDir is a data root (flag, env, or the shared data beside the checkout), not the config's folder by default
	modelsDir  string   // the manifest's models_dir: the first explicit model root, else the data root's models/
	modelRoots []string // folders searched for relative model folders, in order (roots.go)
	lines      lines    // field path → line in the config file, for errors
	spanLabels bool     // dataset.queries holds span labels (spans.Detect), known before the metrics default
}

// DatasetConfig names the dataset. Either BEIR is set (a folder with
// corpus.jsonl, queries.jsonl and qrels/<split>.tsv) or Corpus plus Queries
// (a corpus file and a labelled-query JSONL or qrels file).
type DatasetConfig struct {
	// Name labels the dataset (default: the BEIR folder's or corpus file's
	// base name).
	Name string `yaml:"name" json:"name"`
	// BEIR is a BEIR folder, relative to the data root.
	BEIR string `yaml:"beir" json:"beir,omitempty"`
	// Split is the qrels split of a BEIR folder (default "test").
	Split string `yaml:"split" json:"split,omitempty"`
	// Corpus is a corpus file (BEIR corpus.jsonl shape, or JSONL/TSV of
	// id, title, text), or a folder whose .md/.txt files (at any depth) are
	// the documents, id = path inside the folder without extension
	// (corpus.Load), relative to the data root.
	Corpus string `yaml:"corpus" json:"corpus,omitempty"`
	// Queries is a labelled-query JSONL ({"id","question","gold":[...],
	// "kind"} or {"qid","text","gold":{...},"slice"}), or span labels
	// (JSONL rows with "gold_spans", or Chroma's questions.csv: see
	// docs/spans.md), relative to the data root; it carries the queries
	// and their qrels. With span labels each chunking derives its chunk
	// judgements from the spans (spans.Judgements).
	Queries string `yaml:"queries" json:"queries,omitempty"`
	// Qrels optionally overrides the qrels (TREC or BEIR TSV); then Queries
	// may be a BEIR queries.jsonl.
	Qrels string `yaml:"qrels" json:"qrels,omitempty"`
	// SliceField names the field that holds a query's slice label: any key
	// of the labelled-query JSONL, or of a BEIR queries.jsonl (top level or
	// its "metadata" object). Only that field is read; no query having it
	// is an error. Unset: "kind", else "slice" (eval.ReadQrels).
	SliceField string `yaml:"slice_field" json:"slice_field,omitempty"`
	// Title says whether chunks are indexed with the document title
	// prepended (default true).
	Title *bool `yaml:"title" json:"title"`
	// UnknownGold is what a judged doc id that names no corpus document
	// (nor a chunk "<doc id>#<n>" of one) does: "error" (default: the run
	// stops before any work, naming file:line, query and id) or "ignore"
	// (the judgement is dropped before evaluation, counted in a warning of
	// report.md and results.json; recall and nDCG denominators then count
	// only gold documents present in the corpus, and a query left without
	// relevant documents becomes unanswerable).
	UnknownGold string `yaml:"unknown_gold" json:"unknown_gold"`
	// SpanCoverShare is, with span labels, the share of a gold span a
	// chunk must hold to cover it (to find it, and to be judged relevant
	// in the derived chunk judgements), in (0, 1]. Default
	// spans.DefaultCoverShare (0.5). Only with span labels.
	SpanCoverShare float64 `yaml:"span_cover_share" json:"span_cover_share,omitempty"`
	// JudgedOnly also scores every cell on judged results only (trec_eval
	// -J: unjudged results removed before any measure, eval.Condense), for
	// comparison beside its numbers (results.json judged.judged_only,
	// report.md's judged coverage). It changes no other number. Default
	// false.
	JudgedOnly bool `yaml:"judged_only" json:"judged_only,omitempty"`
}

// ChunkingConfig is one entry of the chunking grid.
type ChunkingConfig struct {
	// Strategy is "doc" (whole document), "fixed" (windows of Size
	// whitespace-separated words, consecutive windows sharing Overlap
	// words), "sentence" (sentences packed up to Size words), "tokens"
	// (Chroma's FixedTokenChunker: windows of Size tokens of Tokenizer
	// sharing Overlap tokens) or "recursive" (LangChain's
	// RecursiveCharacterTextSplitter: chunks of at most Size characters, or
	// tokens of Tokenizer when set, sharing up to Overlap).
	Strategy string `yaml:"strategy" json:"strategy"`
	// Tokenizer is the BPE of tokens (required) and recursive (optional):
	// cl100k_base. Not for the other strategies.
	Tokenizer string `yaml:"tokenizer" json:"tokenizer,omitempty"`
	// Sizes are the chunk sizes (words for fixed and sentence, tokens for
	// tokens, characters or tokens for recursive); each ≥ 1.
	Sizes []int `yaml:"sizes" json:"sizes,omitempty"`
	// Overlaps are the overlaps in the same unit; each 0 ≤ overlap < size
	// (≤ size for recursive, as LangChain allows).
	Overlaps []int `yaml:"overlaps" json:"overlaps,omitempty"`
}

// SignificanceConfig configures the paired significance tests between the
// cells of the report's main table (see the compare package).
type SignificanceConfig struct {
	// Test is randomization (default), t, bootstrap, wilcoxon or sign.
	Test string `yaml:"test" json:"test"`
	// Correction is holm (default), bonferroni, bh or none.
	Correction string `yaml:"correction" json:"correction"`
	// Alpha is the significance level in (0, 1); default 0.05.
	Alpha float64 `yaml:"alpha" json:"alpha"`
	// Seed seeds the randomization and bootstrap tests (default 42).
	Seed *int64 `yaml:"seed" json:"seed"`
	// Permutations is the number of Monte Carlo permutations/resamples,
	// ≥ 1 for the randomization and bootstrap tests (default 10000 when
	// absent; an explicit 0 is an error).
	Permutations int `yaml:"permutations" json:"permutations"`
	// Metrics are the metric families tested at prompt_k (default: the
	// primary metric only). The correction covers every (pair of cells,
	// metric) comparison, so each added metric multiplies the comparisons:
	// with the randomization test the smallest p-value is 1/(B+1), and
	// Holm needs (comparisons)/(B+1) < alpha for anything to be
	// significant.
	Metrics []string `yaml:"metrics" json:"metrics"`
	// Plan is the comparison plan (compare.PlanKind): "baseline" (default:
	// each cell against Baseline, m − 1 comparisons per metric), "best"
	// (each cell against the best cell of each metric) or "all-pairs"
	// (m(m − 1)/2). Every comparison of the plan costs power: the
	// correction covers them all (issue 23).
	Plan string `yaml:"plan" json:"plan"`
	// Baseline names the baseline plan's reference cell
	// ("<chunking>/<retriever>", one of the config's cells); empty: the
	// best BM25 cell (kinds.IsReference) on the primary metric at
	// prompt_k over all answerable queries, chosen by the sweep. Only with
	// plan baseline.
	Baseline string `yaml:"baseline" json:"baseline,omitempty"`
	// Equivalence is the equivalence margin δ ≥ 0 in the metrics' units:
	// two one-sided paired t-tests (TOST) show "equivalent within ±δ"; 0
	// (default): no equivalence test.
	Equivalence float64 `yaml:"equivalence" json:"equivalence"`
	// Detect is the difference Δ ≥ 0 whose required number of queries the
	// report gives (80 % power at the plan's level); default
	// stats.DefaultDetect (0.05) when absent, 0: none.
	Detect *float64 `yaml:"detect" json:"detect"`
	// Interval is the method of each comparison's 95 % confidence
	// interval: bca (default), percentile (paired bootstrap, Permutations
	// resamples, seeded) or t (Student t).
	Interval string `yaml:"interval" json:"interval"`
	// Matrix adds the all-pairs significance matrix to report.html (a
	// family of its own, m(m − 1)/2 comparisons per metric, corrected
	// apart from the plan's); default false: a 36 × 36 matrix is not
	// readable, and the plan's comparisons answer the question.
	Matrix bool `yaml:"matrix" json:"matrix,omitempty"`
}

// HeldOutConfig configures the held-out split: a query is held out when
// the seeded hash of its query id falls below Fraction (see
// sweep.IsHeldOut).
type HeldOutConfig struct {
	// Fraction of queries held out, in [0, 1) (default 0.2).
	Fraction *float64 `yaml:"fraction" json:"fraction"`
	// Seed of the hash (default 1).
	Seed *int64 `yaml:"seed" json:"seed"`
}

// LoadOptions are the overrides of Load.
type LoadOptions struct {
	// DataDir is the data root that relative dataset paths are resolved
	// against. Empty: $RAGBENCH_DATA_DIR, else ../shared beside the
	// repository holding the config when it exists, else the config's
	// folder.
	DataDir string
	// ModelsDir names the explicit model roots, searched first for
	// relative model folders: one folder, or several joined by the path
	// list separator (':' on Unix, as in $PATH). Empty:
	// $RAGBENCH_MODELS_DIR (the same form). See ModelRoots for the order.
	ModelsDir string
	// Output overrides the config's output folder; relative, it is taken
	// from the current folder (the config's output, from the config's).
	Output string
	// CacheDir overrides the config's cache folder (and
	// $RAGBENCH_CACHE_DIR); relative, from the current folder.
	CacheDir string
	// History overrides the config's history CSV path; relative, from the
	// current folder.
	History string
}

// Path returns the config file's absolute path.
func (c *Config) Path() string { return c.path }

// DataDir returns the resolved data root.
func (c *Config) DataDir() string { return c.dataDir }

// ModelsDir returns the models folder manifest.json records: the first
// explicit model root (--models-dir, $RAGBENCH_MODELS_DIR), else the data
// root's models/.
func (c *Config) ModelsDir() string { return c.modelsDir }

// ModelRoots returns the folders searched for relative model folders, in
// order (see roots.go): the explicit roots (--models-dir, else
// $RAGBENCH_MODELS_DIR), the models/ of the ragbench checkout holding the
// config, then of the one holding the running binary, then the data
// root's models/; each once, absolute.
func (c *Config) ModelRoots() []string { return c.modelRoots }

// SpanLabels reports whether dataset.queries holds span labels
// (spans.Detect), as Load found.
func (c *Config) SpanLabels() bool { return c.spanLabels }

// Errf is a srcpos.Error on the dotted field ("retrievers.2.model") of
// c's file, with the field's line (or its nearest parent's).
func (c *Config) Errf(field, format string, a ...any) *srcpos.Error {
	return c.lines.errf(c.path, field, format, a...)
}

// Hash returns the sha256 (hex) of the resolved config's canonical JSON as
// results.json records it (Recorded): where a run writes is not part of
// what it measures, so two runs of one config into different --output,
// --cache-dir or --history paths have one hash, and bench history does not
// report "config changed" between them.
func (c *Config) Hash() string {
	r := c.Recorded()
	return hashkey.Of(&r) // checked values only: finite numbers
}

// Recorded is c as results.json's "config" holds it: a copy with Output,
// CacheDir and History blanked (they do not change the numbers).
func (c *Config) Recorded() Config {
	r := *c
	r.Output, r.CacheDir, r.History = "", "", ""
	return r
}
