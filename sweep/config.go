package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ragbench/ragbench/internal/modellist"
	"github.com/ragbench/ragbench/internal/srcpos"
	"github.com/ragbench/ragbench/spans"
)

// Config is one sweep, as read from a YAML file (see docs/config.md for every
// field). Load fills defaults and resolves paths; Validate checks values and
// that every file exists.
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

	// path is the config file (absolute), dataDir/modelsDir the resolved
	// roots. Not part of the YAML.
	path       string
	dataDir    string
	modelsDir  string
	modelRoots []string // folders searched for relative model folders, in order
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

// RetrieverConfig is one named retriever. Which fields apply depends on
// Type; the others must be left unset.
type RetrieverConfig struct {
	// Name identifies the retriever in cell names, file names and the
	// Inputs/Input of other retrievers: letters, digits, '-', '_', '.'.
	Name string `yaml:"name" json:"name"`
	// Type is bm25, dense, hybrid, rerank, elasticsearch or opensearch.
	Type string `yaml:"type" json:"type"`
	// EngineConfig holds the fields of the engine types (sweep/engine.go).
	EngineConfig `yaml:",inline"`

	// K1 and B are BM25's parameters (defaults 0.9 and 0.4, Anserini's).
	K1 *float64 `yaml:"k1" json:"k1,omitempty"`
	B  *float64 `yaml:"b" json:"b,omitempty"`
	// Scoring is "lucene" (default; Lucene's BM25 formula) or "bleve"
	// (bleve's own scorer, for comparison).
	Scoring string `yaml:"scoring" json:"scoring,omitempty"`
	// Fields is "flat" (default: title + text as one field) or "multi"
	// (title and text scored as two fields, scores summed).
	Fields string `yaml:"fields" json:"fields,omitempty"`
	// Analyzer is "en" (default: bleve's English analyzer, Snowball stop
	// words, Porter stemming) or "lucene-en" (Lucene's 33 stop words).
	Analyzer string `yaml:"analyzer" json:"analyzer,omitempty"`
	// ExactLengths scores with exact document lengths instead of Lucene's
	// one-byte lengths.
	ExactLengths bool `yaml:"exact_lengths" json:"exact_lengths,omitempty"`

	// Model is a model folder (dense, rerank). A relative folder is looked
	// up in the models root (--models-dir, $RAGBENCH_MODELS_DIR), else in
	// the models/ of the checkout holding the config, of the checkout
	// holding the running binary, and then <data root>/models. After Load it
	// holds the absolute folder found.
	Model string `yaml:"model" json:"model,omitempty"`
	// FallbackModels are tried in order when Model is not found, e.g.
	// [use-lite] behind bge-small-en-v1.5.
	FallbackModels []string `yaml:"fallback_models" json:"fallback_models,omitempty"`
	// requested is Model as written in the config, kept to report a
	// fallback: a silent switch to a weaker model would mislead the reader.
	requested string
	// BatchSize is the inference batch size (dense, rerank; default 32).
	BatchSize int `yaml:"batch_size" json:"batch_size,omitempty"`

	// Inputs are the retrievers a hybrid fuses (≥ 2 names).
	Inputs []string `yaml:"inputs" json:"inputs,omitempty"`
	// Fusion is rrf (default), combsum or combmnz.
	Fusion string `yaml:"fusion" json:"fusion,omitempty"`
	// RRFK is RRF's k constant (default 60, Cormack et al. 2009).
	RRFK *float64 `yaml:"rrf_k" json:"rrf_k,omitempty"`
	// Normalization is the score normalisation of combsum/combmnz:
	// minmax (default) or zscore.
	Normalization string `yaml:"normalization" json:"normalization,omitempty"`
	// Weights are per-input weights of combsum/combmnz (default all 1).
	Weights []float64 `yaml:"weights" json:"weights,omitempty"`
	// Missing is the hybrid's policy for a document missing from an input
	// (hybrid.Missing: zero, min, rank, borda; default hybrid.DefaultMissing).
	Missing string `yaml:"missing" json:"missing,omitempty"`

	// Input is the retriever a rerank reorders.
	Input string `yaml:"input" json:"input,omitempty"`
	// Mode is "ce" (cross-encoder logit alone, default) or "interpolate"
	// (Alpha·z(CE) + (1−Alpha)·z(first stage), per-query z-scores); for
	// the engine types, "managed" (default) or "existing".
	Mode string `yaml:"mode" json:"mode,omitempty"`
	// Alpha is the cross-encoder's weight in interpolate mode, in [0, 1].
	Alpha *float64 `yaml:"alpha" json:"alpha,omitempty"`

	// Depth is, for hybrid, how many results of each input are fused and,
	// for rerank, how many of the input's top results are rescored
	// (default 100).
	Depth int `yaml:"depth" json:"depth,omitempty"`

	// Tune holds the grids given in place of values (hybrid: fusion,
	// normalization, missing, weights as a list of lists, rrf_k, depth;
	// rerank: alpha), decoded by UnmarshalYAML (tuning.go); nil when the
	// retriever is not tuned.
	Tune *TuneGrid `yaml:"-" json:"tune,omitempty"`
	// gridKeys are the keys given as lists (grids), settings the expanded
	// grid (filled by check).
	gridKeys []string
	settings []tuneSetting
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
}

// HeldOutConfig configures the held-out split: a query is held out when
// the seeded hash of its query id falls below Fraction (see HeldOut).
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
	// ModelsDir is the models root for relative model folders. Empty:
	// $RAGBENCH_MODELS_DIR, else the models/ of the ragbench checkout
	// holding the config, then of the one holding the running binary,
	// then DataDir/models.
	ModelsDir string
	// Output overrides the config's output folder.
	Output string
	// CacheDir overrides the config's cache folder.
	CacheDir string
	// History overrides the config's history CSV path.
	History string
}

// fieldPath turns a dotted path with numeric list indices
// ("retrievers.2.alpha") into the displayed form ("retrievers[2].alpha").
func fieldPath(dotted string) string {
	if dotted == "" {
		return ""
	}
	var b strings.Builder
	for i, part := range strings.Split(dotted, ".") {
		if _, err := strconv.Atoi(part); err == nil && i > 0 {
			b.WriteString("[" + part + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(part)
	}
	return b.String()
}

// DefaultK is the default cutoff grid.
var DefaultK = []int{1, 3, 5, 10, 20, 100}

// MetricFamilies are the metric families a sweep evaluates at each k, in
// report order: hit_rate (trec_eval success.k), recall (recall.k),
// precision (P.k), mrr (recip_rank cut at k), map (map_cut.k), ndcg
// (ndcg_cut.k).
var MetricFamilies = []string{"hit_rate", "recall", "precision", "mrr", "map", "ndcg"}

// Load reads a config file strictly (unknown fields are errors naming the
// line), fills defaults, resolves relative paths and validates values. It
// does not check that files exist: Validate does.
func Load(path string, opts LoadOptions) (*Config, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	cfg, err := parse(abs, data, opts)
	if err != nil {
		return nil, err
	}
	if err := cfg.resolve(opts); err != nil {
		return nil, err
	}
	return cfg, nil
}

var (
	lineRe      = regexp.MustCompile(`^line (\d+): (.*)$`)
	unmarshalRe = regexp.MustCompile("^cannot unmarshal !!(\\w+)(?: `(.*)`)? into (.+)$")
)

func parse(file string, data []byte, opts LoadOptions) (*Config, error) {
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &srcpos.Error{File: file, Msg: "empty config file"}
		}
		return nil, yamlErr(file, data, nil, err)
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		return nil, &srcpos.Error{File: file, Line: next.Line, Msg: "a second YAML document (after ---): a config is one document; remove it or merge it into the first"}
	} else if !errors.Is(err, io.EOF) {
		return nil, yamlErr(file, data, nil, err)
	}
	var cfg Config
	dec = yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		return nil, yamlErr(file, data, &root, err)
	}
	cfg.path = file
	// The metrics default and the checks of primary_metric and
	// significance.metrics depend on whether the labels are spans, so that
	// is known before check.
	cfg.spanLabels = cfg.detectSpanLabels(opts)
	if err := cfg.check(&root); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// yamlErr turns yaml.v3's errors into file:line: field: messages: "yaml:
// unmarshal errors:\n  line 3: field x not found in type sweep.Config"
// becomes "file:3: x: unknown field", "line 4: cannot unmarshal !!str `abc`
// into int" becomes "file:4: k[1]: not an integer: abc" (the field found
// in root), and a syntax error keeps its line and says what a tab is.
func yamlErr(file string, data []byte, root *yaml.Node, err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		var msgs []string
		for _, e := range te.Errors {
			m := lineRe.FindStringSubmatch(e)
			if m == nil {
				msgs = append(msgs, file+": "+e)
				continue
			}
			msg := m[2]
			line, _ := strconv.Atoi(m[1])
			if strings.HasPrefix(msg, "field ") && strings.Contains(msg, " not found in type ") {
				f := strings.TrimPrefix(msg[:strings.Index(msg, " not found")], "field ")
				msg = fmt.Sprintf("%s: unknown field (see docs/config.md for the fields)", f)
			} else if u := unmarshalRe.FindStringSubmatch(msg); u != nil {
				msg = typeMsg(root, line, u[1], u[2], u[3])
			}
			msgs = append(msgs, fmt.Sprintf("%s:%s: %s", file, m[1], msg))
		}
		return errors.New(strings.Join(msgs, "\n"))
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := lineRe.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		text := m[2]
		// yaml.v3 reports a tab as "found character that cannot start any
		// token" (sometimes on the line after the tab).
		for _, l := range []int{line, line - 1} {
			if src := sourceLine(data, l); strings.Contains(src, "\t") {
				line = l
				text = "tab character: YAML indents with spaces only; replace the tab with spaces (yaml: " + text + ")"
				break
			}
		}
		return fmt.Errorf("%s:%d: %s", file, line, text)
	}
	return fmt.Errorf("%s: %s", file, msg)
}

// sourceLine is line n (1-based) of data, or "".
func sourceLine(data []byte, n int) string {
	ls := strings.Split(string(data), "\n")
	if n < 1 || n > len(ls) {
		return ""
	}
	return ls[n-1]
}

// typeMsg words yaml.v3's "cannot unmarshal !!tag `value` into type" for
// the node at line (found in root): "k[1]: not an integer: abc".
func typeMsg(root *yaml.Node, line int, tag, value, into string) string {
	field := ""
	if root != nil {
		field = fieldPath(findNode(root, "", line, tag, value))
	}
	var what string
	switch {
	case strings.HasPrefix(into, "[]"):
		what = "want a list, e.g. [" + firstNonEmpty(value, "…") + "]"
	case into == "int" || into == "int64":
		what = "not an integer"
	case into == "float64":
		what = "not a number"
	case into == "bool":
		what = "not true or false"
	case into == "string":
		what = "want a single value, not a " + map[string]string{"seq": "list", "map": "mapping"}[tag]
	default:
		what = fmt.Sprintf("want a mapping of fields (%s), not a %s", strings.TrimPrefix(into, "sweep."), map[string]string{"seq": "list", "str": "string", "int": "number", "float": "number", "bool": "boolean", "null": "null"}[tag])
	}
	if value != "" && !strings.HasPrefix(into, "[]") {
		what += ": " + value
	}
	if field == "" {
		return what
	}
	return field + ": " + what
}

// findNode returns the dotted path of the first node at line whose tag is
// !!tag (and whose value is value, when given).
func findNode(n *yaml.Node, prefix string, line int, tag, value string) string {
	found := "" // the first match in document order, as walkYAML visits
	walkYAML(n, prefix, func(path string, _, v *yaml.Node) {
		if found == "" && v.Line == line && v.ShortTag() == "!!"+tag && (value == "" || v.Value == value) {
			found = path
		}
	})
	return found
}

// inputNames returns the retrievers this one reads: a hybrid's inputs, a
// rerank's input, none for a first stage.
func (r RetrieverConfig) inputNames() []string {
	switch r.Type {
	case "hybrid":
		return r.Inputs
	case "rerank":
		return []string{r.Input}
	}
	return nil
}

// lines maps dotted field paths ("retrievers.2.alpha") to their line in the
// YAML document, for error messages.
type lines map[string]int

func collectLines(n *yaml.Node, prefix string, out lines) {
	walkYAML(n, prefix, func(path string, key, v *yaml.Node) {
		if key != nil {
			out[path] = key.Line
		} else {
			out[path] = v.Line
		}
	})
}

// walkYAML calls visit, depth first in document order, for every mapping
// value (key set) and sequence item (key nil) below n, with its dotted
// path ("retrievers.2.alpha"): one walk for line numbers and for explicit
// nulls, so the two always agree on paths.
func walkYAML(n *yaml.Node, prefix string, visit func(path string, key, v *yaml.Node)) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			walkYAML(c, prefix, visit)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := k.Value
			if prefix != "" {
				p = prefix + "." + k.Value
			}
			visit(p, k, v)
			walkYAML(v, p, visit)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p := prefix + "." + strconv.Itoa(i)
			visit(p, nil, c)
			walkYAML(c, p, visit)
		}
	}
}

func (l lines) errf(file, field, format string, a ...any) *srcpos.Error {
	line := l[field]
	for f := field; line == 0 && strings.Contains(f, "."); {
		f = f[:strings.LastIndex(f, ".")]
		line = l[f]
	}
	return &srcpos.Error{File: file, Line: line, Field: fieldPath(field), Msg: fmt.Sprintf(format, a...)}
}

// errf is a srcpos.Error on field of c's file, with the field's line.
func (c *Config) errf(field, format string, a ...any) *srcpos.Error {
	return c.lines.errf(c.path, field, format, a...)
}

var nameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// nullFields calls bad with the dotted path of each mapping value that is
// an explicit YAML null ("k:", "k: ~", "k: null").
func nullFields(n *yaml.Node, prefix string, bad func(field string)) {
	walkYAML(n, prefix, func(path string, key, v *yaml.Node) {
		if key != nil && v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
			bad(path)
		}
	})
}

// isNull reports whether the dotted field path holds an explicit null
// (nullFields reports those).
func isNull(root *yaml.Node, field string) bool {
	null := false
	nullFields(root, "", func(f string) {
		if f == field {
			null = true
		}
	})
	return null
}

// resolveDataDir is the data root of opts: --data-dir, else
// $RAGBENCH_DATA_DIR, else the shared data beside the checkout holding the
// config, else the config's folder.
func (c *Config) resolveDataDir(opts LoadOptions) string {
	d := firstNonEmpty(opts.DataDir, os.Getenv("RAGBENCH_DATA_DIR"))
	if d == "" {
		d = defaultDataDir(filepath.Dir(c.path))
	}
	return d
}

// detectSpanLabels reports whether the config's dataset.queries holds span
// labels (spans.Detect, as readSpanLabels reads them): only a queries file
// without a qrels file can. A file that cannot be read counts as no span
// labels here; reading the dataset reports it.
func (c *Config) detectSpanLabels(opts LoadOptions) bool {
	d := c.Dataset
	if d.BEIR != "" || d.Queries == "" || d.Qrels != "" {
		return false
	}
	format, err := spans.Detect(under(c.resolveDataDir(opts), d.Queries))
	return err == nil && format != ""
}

// resolve sets the data and models roots and makes every path absolute.
func (c *Config) resolve(opts LoadOptions) error {
	dir := filepath.Dir(c.path)
	c.dataDir = c.resolveDataDir(opts)
	c.modelsDir = firstNonEmpty(opts.ModelsDir, os.Getenv("RAGBENCH_MODELS_DIR"))
	if c.modelsDir != "" {
		c.modelRoots = []string{c.modelsDir}
	} else {
		// The repository's models/ (scripts/fetch-models.sh puts the
		// standard models there): the checkout holding the config, then the
		// checkout holding the running binary (bin/bench), so a config
		// kept outside the repository still finds them; then the data
		// root's models/.
		for _, repo := range []string{repoRoot(dir), exeRepoRoot()} {
			if repo != "" {
				c.modelRoots = append(c.modelRoots, filepath.Join(repo, "models"))
			}
		}
		c.modelsDir = filepath.Join(c.dataDir, "models")
		c.modelRoots = append(c.modelRoots, c.modelsDir)
	}
	var err error
	if c.dataDir, err = filepath.Abs(c.dataDir); err != nil {
		return err
	}
	if c.modelsDir, err = filepath.Abs(c.modelsDir); err != nil {
		return err
	}
	var roots []string
	for _, r := range c.modelRoots {
		if r, err = filepath.Abs(r); err != nil {
			return err
		}
		if !contains(roots, r) {
			roots = append(roots, r)
		}
	}
	c.modelRoots = roots
	d := &c.Dataset
	for _, p := range []*string{&d.BEIR, &d.Corpus, &d.Queries, &d.Qrels} {
		*p = under(c.dataDir, *p)
	}
	if d.Name == "" {
		if d.BEIR != "" {
			d.Name = filepath.Base(d.BEIR)
		} else {
			d.Name = strings.TrimSuffix(filepath.Base(d.Corpus), filepath.Ext(d.Corpus))
			if d.Name == "corpus" {
				d.Name = filepath.Base(filepath.Dir(d.Corpus))
			}
		}
	}
	for i := range c.Retrievers {
		r := &c.Retrievers[i]
		if r.Model == "" {
			continue
		}
		r.requested = r.Model
		r.Model = c.findModel(append([]string{r.Model}, r.FallbackModels...))
	}
	for i := range c.Retrievers {
		c.Retrievers[i].CAFile = under(dir, c.Retrievers[i].CAFile)
	}
	c.Output = firstNonEmpty(opts.Output, c.Output, filepath.Join("results", c.Name))
	c.Output = under(dir, c.Output)
	c.CacheDir = firstNonEmpty(opts.CacheDir, c.CacheDir, os.Getenv("RAGBENCH_CACHE_DIR"), ".ragbench-cache")
	c.CacheDir = under(dir, c.CacheDir)
	c.History = under(dir, firstNonEmpty(opts.History, c.History, "bench-history.csv"))
	return nil
}

// findModel returns the first candidate model folder that exists (relative
// ones searched in each model root in turn), else the first candidate
// resolved against the first root (Validate then reports it).
func (c *Config) findModel(cands []string) string {
	for _, m := range cands {
		if filepath.IsAbs(m) {
			if _, err := os.Stat(m); err == nil {
				return m
			}
			continue
		}
		for _, root := range c.modelRoots {
			p := filepath.Join(root, m)
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	return under(c.modelRoots[0], cands[0])
}

// executable is os.Executable (tests replace it).
var executable = os.Executable

// exeRepoRoot is the ragbench checkout holding the running binary (e.g.
// bin/bench built by scripts/setup.sh), or "" (go run, go test, an
// installed binary).
func exeRepoRoot() string {
	exe, err := executable()
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return repoRoot(filepath.Dir(exe))
}

// modulePath is the module of the ragbench repository, as go.mod names it.
const modulePath = "github.com/ragbench/ragbench"

// repoRoot is the nearest folder at or above dir holding the ragbench
// repository's go.mod (module github.com/ragbench/ragbench), or "".
func repoRoot(dir string) string {
	for d := dir; ; {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && isRagbenchMod(b) {
			return d
		}
		p := filepath.Dir(d)
		if p == d {
			return ""
		}
		d = p
	}
}

// isRagbenchMod reports whether go.mod content declares modulePath.
func isRagbenchMod(gomod []byte) bool {
	for _, l := range strings.Split(string(gomod), "\n") {
		f := strings.Fields(l)
		if len(f) == 2 && f[0] == "module" && strings.Trim(f[1], `"`) == modulePath {
			return true
		}
	}
	return false
}

// defaultDataDir is ../shared beside the repository (the folder with
// go.mod) holding dir, when it exists; else dir itself.
func defaultDataDir(dir string) string {
	if repo := repoRoot(dir); repo != "" {
		s := filepath.Join(repo, "..", "shared")
		if fi, err := os.Stat(s); err == nil && fi.IsDir() {
			return filepath.Clean(s)
		}
	}
	return dir
}

// Path returns the config file's absolute path.
func (c *Config) Path() string { return c.path }

// DataDir returns the resolved data root.
func (c *Config) DataDir() string { return c.dataDir }

// ModelsDir returns the resolved models root.
func (c *Config) ModelsDir() string { return c.modelsDir }

// ModelRoots returns the folders searched for relative model folders.
func (c *Config) ModelRoots() []string { return c.modelRoots }

// Validate checks, before any work, that every file the sweep reads exists:
// the dataset files and each model folder's model.onnx and tokenizer.json,
// and that each model is of the kind its retriever needs (an embedder for
// dense, a cross-encoder for rerank; read from ragbench.json "kind", else
// inferred from the graph's outputs as the encoder package does, without
// ONNX Runtime). It does not read the dataset: CheckDataset does. Each
// problem is reported with what to do about it.
func (c *Config) Validate() error { return c.validate(true) }

// ValidateOffline is Validate for bench run --check --offline: the same
// checks except that the engine retrievers' credential variables may be
// unset (they are read only to dial the clusters, which an offline check
// does not; the job validating configs has no secrets). The variables'
// names are still checked by Load.
func (c *Config) ValidateOffline() error { return c.validate(false) }

// validate is Validate; credentials says whether the engine credential
// variables must be set (enginePreflight).
func (c *Config) validate(credentials bool) error {
	var errs []error
	need := func(field, p, what string) {
		if _, err := os.Stat(p); err != nil {
			errs = append(errs, c.errf(field, "%s %s not found; %s", what, p, hintData))
		}
	}
	d := c.Dataset
	if d.BEIR != "" {
		need("dataset.beir", d.BEIR, "BEIR folder")
		if _, err := os.Stat(d.BEIR); err == nil {
			need("dataset.beir", filepath.Join(d.BEIR, "corpus.jsonl"), "corpus")
			need("dataset.beir", filepath.Join(d.BEIR, "queries.jsonl"), "queries")
			need("dataset.split", filepath.Join(d.BEIR, "qrels", d.Split+".tsv"), "qrels split")
		}
	} else {
		need("dataset.corpus", d.Corpus, "corpus")
		if d.Queries != "" {
			need("dataset.queries", d.Queries, "queries")
		}
		if d.Qrels != "" {
			need("dataset.qrels", d.Qrels, "qrels")
		}
	}
	for i, r := range c.Retrievers {
		if r.Model == "" {
			continue
		}
		f := fmt.Sprintf("retrievers.%d.model", i)
		if _, err := os.Stat(r.Model); err != nil {
			// Say what provides each wanted model: scripts/fetch-models.sh
			// (run by setup.sh) fetches modellist.Fetched(); use-lite and
			// ce-scifact-tiny come with the shared data root's models/;
			// anything else (bge-small-en-v1.5, ms-marco-MiniLM-L-6-v2, …)
			// must be brought from Hugging Face.
			names := append([]string{filepath.Base(r.Model)}, r.FallbackModels...)
			var fetched, shared, other []string
			for _, n := range names {
				switch base := filepath.Base(n); {
				case slices.Contains(modellist.Fetched(), base):
					fetched = append(fetched, n)
				case base == "use-lite" || base == "ce-scifact-tiny":
					shared = append(shared, n)
				default:
					other = append(other, n)
				}
			}
			var hints []string
			if len(fetched) > 0 {
				hints = append(hints, fmt.Sprintf("run ./scripts/setup.sh (scripts/fetch-models.sh fetches %s into the repository's models/)", strings.Join(fetched, ", ")))
			}
			if len(shared) > 0 {
				hints = append(hints, fmt.Sprintf("%s ships in the shared data's models/ (%s): pass --data-dir (or set RAGBENCH_DATA_DIR) to the data root holding it", strings.Join(shared, ", "), filepath.Join(c.dataDir, "models")))
			}
			if len(other) > 0 {
				hints = append(hints, fmt.Sprintf("no script fetches %s: export it from Hugging Face into a folder of the models root (model.onnx, tokenizer.json; see docs/models.md)", strings.Join(other, ", ")))
			}
			hints = append(hints, "or pass --models-dir (or set RAGBENCH_MODELS_DIR) to the folder holding it")
			errs = append(errs, c.errf(f, "retriever %q: model folder %s not found (searched %s); %s", r.Name, strings.Join(names, ", "), strings.Join(c.modelRoots, ", "), strings.Join(hints, "; ")))
			continue
		}
		complete := true
		for _, file := range []string{"model.onnx", "tokenizer.json"} {
			if _, err := os.Stat(filepath.Join(r.Model, file)); err != nil {
				complete = false
				errs = append(errs, c.errf(f, "retriever %q: %s has no %s; a model folder needs model.onnx and tokenizer.json (check it with: bench model check %s)", r.Name, r.Model, file, r.Model))
			}
		}
		if complete {
			if err := checkModelKind(r); err != nil {
				errs = append(errs, c.errf(f, "%v", err))
			}
		}
	}
	errs = append(errs, enginePreflight(c, credentials)...)
	return errors.Join(errs...)
}

const hintData = "pass --data-dir (or set RAGBENCH_DATA_DIR) to the folder holding the datasets, or fix the path in the config"

// Hash returns the sha256 (hex) of the resolved config's canonical JSON as
// results.json records it (Recorded): where a run writes is not part of
// what it measures, so two runs of one config into different --output,
// --cache-dir or --history paths have one hash, and bench history does not
// report "config changed" between them.
func (c *Config) Hash() string {
	r := c.recorded()
	return sha256Hex(mustJSON(&r))
}

// recorded is c as results.json's "config" holds it: a copy with Output,
// CacheDir and History blanked.
func (c *Config) recorded() Config {
	r := *c
	r.Output, r.CacheDir, r.History = "", "", ""
	return r
}

func under(root, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(root, p)
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func ptr[T any](v T) *T { return &v }

func isNaN(f float64) bool { return f != f }
