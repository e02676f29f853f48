package sweep

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/kinds"
)

// writeConfig writes a config file into a fresh temporary folder.
func writeConfig(t *testing.T, yaml string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const minimal = `dataset:
  corpus: corpus.jsonl
  queries: queries.jsonl
retrievers:
  - {name: bm25, type: bm25}
`

func TestLoadDefaults(t *testing.T) {
	p := writeConfig(t, minimal)
	cfg, err := Load(p, LoadOptions{DataDir: "/data"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cfg.K, []int{1, 3, 5, 10, 20, 100}; !equalInts(got, want) {
		t.Errorf("K = %v, want %v", got, want)
	}
	if cfg.PromptK != 10 || cfg.Depth != 100 {
		t.Errorf("PromptK, Depth = %d, %d; want 10, 100", cfg.PromptK, cfg.Depth)
	}
	if *cfg.HeldOut.Fraction != 0.2 || cfg.Significance.Test != "randomization" || cfg.Significance.Correction != "holm" || cfg.Significance.Alpha != 0.05 {
		t.Errorf("defaults: heldout %v, significance %+v", *cfg.HeldOut.Fraction, cfg.Significance)
	}
	if s := cfg.Significance; s.Plan != "baseline" || s.Baseline != "" || s.Interval != "bca" || s.Equivalence != 0 || *s.Detect != 0.05 || s.Matrix || *s.Seed != 42 || s.Permutations != 10000 {
		t.Errorf("plan defaults: %+v (detect %v)", s, *s.Detect)
	}
	r := cfg.Retrievers[0].Settings.(*kinds.BM25)
	if *r.K1 != 0.9 || *r.B != 0.4 || r.Scoring != "lucene" {
		t.Errorf("bm25 defaults k1=%v b=%v scoring=%q; want 0.9 0.4 lucene", *r.K1, *r.B, r.Scoring)
	}
	if cfg.Dataset.Corpus != "/data/corpus.jsonl" {
		t.Errorf("corpus resolved to %q, want /data/corpus.jsonl", cfg.Dataset.Corpus)
	}
	if want := filepath.Join(filepath.Dir(p), "results", "c"); cfg.Output != want {
		t.Errorf("output %q, want %q", cfg.Output, want)
	}
	if cells := cfg.Cells(); len(cells) != 1 || cells[0].Name != "doc/bm25" {
		t.Errorf("cells %+v, want [doc/bm25]", cells)
	}
}

func TestDataAndModelsDirFromEnv(t *testing.T) {
	t.Setenv("RAGBENCH_DATA_DIR", "/env/data")
	t.Setenv("RAGBENCH_MODELS_DIR", "/env/models")
	p := writeConfig(t, minimal+"  - {name: dense, type: dense, model: use-lite}\n")
	cfg, err := Load(p, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Dataset.Corpus != "/env/data/corpus.jsonl" || cfg.Retrievers[1].Model() != "/env/models/use-lite" {
		t.Errorf("corpus %q, model %q", cfg.Dataset.Corpus, cfg.Retrievers[1].Model())
	}
	// Flags win over the environment.
	cfg, err = Load(p, LoadOptions{DataDir: "/flag/data", ModelsDir: "/flag/models"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Dataset.Corpus != "/flag/data/corpus.jsonl" || cfg.Retrievers[1].Model() != "/flag/models/use-lite" {
		t.Errorf("corpus %q, model %q", cfg.Dataset.Corpus, cfg.Retrievers[1].Model())
	}
}

func TestGrid(t *testing.T) {
	p := writeConfig(t, `dataset: {corpus: c.jsonl, queries: q.jsonl}
chunking:
  - strategy: doc
  - strategy: fixed
    sizes: [128, 256]
    overlaps: [0, 32]
retrievers:
  - {name: bm25, type: bm25}
  - {name: b2, type: bm25, k1: 1.2}
  - {name: h, type: hybrid, inputs: [bm25, b2]}
`)
	cfg, err := Load(p, LoadOptions{DataDir: "/d"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ch := range cfg.Chunkings() {
		names = append(names, ch.Name)
	}
	if got, want := strings.Join(names, " "), "doc fixed-128 fixed-128o32 fixed-256 fixed-256o32"; got != want {
		t.Errorf("chunkings %q, want %q", got, want)
	}
	if n := len(cfg.Cells()); n != 15 {
		t.Errorf("%d cells, want 5 × 3 = 15", n)
	}
}

// TestConfigErrors checks that bad configs fail with file:line: field:
// message errors that say what to do.
func TestConfigErrors(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       []string // substrings of the error
	}{
		{"unknown field", minimal + "prompt_kk: 5\n", []string{":6: prompt_kk: unknown field"}},
		{"unknown nested field", "dataset:\n  corpus: c.jsonl\n  queries: q.jsonl\n  qrel: x\nretrievers: [{name: a, type: bm25}]\n", []string{":4: qrel: unknown field"}},
		// An unknown field close to a field of its mapping names it (a
		// fresh user's size: 200 for sizes: [200]).
		{"size for sizes", "dataset: {corpus: c, queries: q}\nchunking:\n  - strategy: fixed\n    size: 200\nretrievers: [{name: a, type: bm25}]\n", []string{`:4: size: unknown field; did you mean "sizes"? (see docs/config.md for the fields)`}},
		{"overlap for overlaps", "dataset: {corpus: c, queries: q}\nchunking:\n  - {strategy: fixed, sizes: [8], overlap: 2}\nretrievers: [{name: a, type: bm25}]\n", []string{`:3: overlap: unknown field; did you mean "overlaps"?`}},
		{"promptk", minimal + "promptk: 5\n", []string{`:6: promptk: unknown field; did you mean "prompt_k"?`}},
		{"Metrics", minimal + "Metrics: [ndcg]\n", []string{`:6: Metrics: unknown field; did you mean "metrics"?`}},
		{"nested typo", "dataset:\n  corpus: c.jsonl\n  queries: q.jsonl\n  qrel: x\nretrievers: [{name: a, type: bm25}]\n", []string{`:4: qrel: unknown field; did you mean "qrels"?`}},
		{"retriever typo", "dataset: {corpus: c, queries: q}\nretrievers:\n  - {name: a, type: bm25}\n  - {name: h, type: hybrid, inputs: [a], fusoin: rrf}\n", []string{`:4: fusoin: unknown field; did you mean "fusion"?`}},
		{"bad type", minimal + "k: [1, x]\n", []string{":6: k[1]: not an integer: x"}},
		{"no dataset", "retrievers: [{name: a, type: bm25}]\n", []string{"dataset: missing"}},
		{"unknown retriever type", "dataset: {corpus: c, queries: q}\nretrievers:\n  - name: a\n    type: bm26\n", []string{":4: retrievers[0].type: unknown type \"bm26\""}},
		{"bad b", "dataset: {corpus: c, queries: q}\nretrievers:\n  - name: a\n    type: bm25\n    b: 1.5\n", []string{":5: retrievers[0].b: 1.5, want in [0, 1]"}},
		{"field of another type", "dataset: {corpus: c, queries: q}\nretrievers:\n  - name: a\n    type: bm25\n    alpha: 0.4\n", []string{":5: retrievers[0].alpha: does not apply to type bm25"}},
		{"unknown input", "dataset: {corpus: c, queries: q}\nretrievers:\n  - {name: a, type: bm25}\n  - {name: h, type: hybrid, inputs: [a, dense]}\n", []string{":4: retrievers[1].inputs: unknown retriever \"dense\" (defined: a, h)"}},
		{"interpolate without alpha", "dataset: {corpus: c, queries: q}\nretrievers:\n  - {name: a, type: bm25}\n  - {name: r, type: rerank, input: a, model: m, mode: interpolate}\n", []string{"retrievers[1].alpha: missing"}},
		{"prompt_k not in k", minimal + "k: [1, 5]\nprompt_k: 10\n", []string{":7: prompt_k: prompt_k 10 must be one of k [1 5]"}},
		{"overlap ≥ size", "dataset: {corpus: c, queries: q}\nchunking:\n  - strategy: fixed\n    sizes: [32]\n    overlaps: [32]\nretrievers: [{name: a, type: bm25}]\n", []string{":5: chunking[0].overlaps[0]: overlap 32 must be in [0, size 32)"}},
		// Duplicates in a chunking's grid lists are errors, as in k
		// (before, sizes: [128, 128] silently made one chunking).
		{"duplicate k", minimal + "k: [5, 10, 5]\n", []string{":6: k[2]: k 5 listed twice"}},
		{"duplicate size", "dataset: {corpus: c, queries: q}\nchunking:\n  - strategy: fixed\n    sizes: [128, 128]\nretrievers: [{name: a, type: bm25}]\n", []string{":4: chunking[0].sizes[1]: size 128 listed twice"}},
		{"duplicate overlap", "dataset: {corpus: c, queries: q}\nchunking:\n  - strategy: fixed\n    sizes: [128]\n    overlaps: [0, 32, 0]\nretrievers: [{name: a, type: bm25}]\n", []string{":5: chunking[0].overlaps[2]: overlap 0 listed twice"}},
		{"duplicate token size", "dataset: {corpus: c, queries: q}\nchunking:\n  - strategy: tokens\n    tokenizer: cl100k_base\n    sizes: [200, 400, 200]\nretrievers: [{name: a, type: bm25}]\n", []string{":5: chunking[0].sizes[2]: size 200 listed twice"}},
		{"duplicate recursive overlap", "dataset: {corpus: c, queries: q}\nchunking:\n  - strategy: recursive\n    sizes: [400]\n    overlaps: [50, 50]\nretrievers: [{name: a, type: bm25}]\n", []string{":5: chunking[0].overlaps[1]: overlap 50 listed twice"}},
		{"fraction", minimal + "heldout:\n  fraction: 1.5\n", []string{":7: heldout.fraction: fraction 1.5 must be in [0, 1)"}},
		{"duplicate name", "dataset: {corpus: c, queries: q}\nretrievers:\n  - {name: a, type: bm25}\n  - {name: a, type: bm25}\n", []string{":4: retrievers[1].name: duplicate name \"a\""}},
		{"empty file", "", []string{"empty config file"}},
		// Numbers yaml.v3 would silently change, or that no run can use
		// (issue 13): before the fix each of these loaded.
		{"fractional k", minimal + "k: [1, 3.9]\n", []string{":6: k[1]: not an integer: 3.9"}},
		{"fractional size", "dataset: {corpus: c, queries: q}\nchunking:\n  - strategy: fixed\n    sizes: [4.7]\nretrievers: [{name: a, type: bm25}]\n", []string{":4: chunking[0].sizes[0]: not an integer: 4.7"}},
		{"infinite k1", "dataset: {corpus: c, queries: q}\nretrievers:\n  - name: a\n    type: bm25\n    k1: .inf\n", []string{":5: retrievers[0].k1: .inf is not a finite number"}},
		{"NaN weight", "dataset: {corpus: c, queries: q}\nretrievers:\n  - {name: a, type: bm25}\n  - {name: b, type: bm25, k1: 1.2}\n  - {name: h, type: hybrid, inputs: [a, b], fusion: combsum, weights: [1, .nan]}\n", []string{":5: retrievers[2].weights[1]: .nan is not a finite number"}},
		{"negative weight", "dataset: {corpus: c, queries: q}\nretrievers:\n  - {name: a, type: bm25}\n  - {name: b, type: bm25, k1: 1.2}\n  - {name: h, type: hybrid, inputs: [a, b], fusion: combsum, weights: [1, -0.5]}\n", []string{":5: retrievers[2].weights[1]: must be finite and ≥ 0, got -0.5"}},
		{"second document", minimal + "---\nk: [1]\n", []string{":6: a second YAML document"}},
		// The comparison plan (issue 23): names and values as compare and
		// stats know them, a baseline that is a cell of the config.
		{"unknown plan", minimal + "significance:\n  plan: pairs\n", []string{`:7: significance.plan: unknown plan "pairs": baseline, best or all-pairs`}},
		{"unknown test", minimal + "significance: {test: tukey}\n", []string{`:6: significance.test: unknown test "tukey": randomization, t, bootstrap, wilcoxon or sign`}},
		{"unknown correction", minimal + "significance: {correction: fdr}\n", []string{`significance.correction: unknown correction "fdr": holm, bonferroni, bh or none`}},
		{"baseline not a cell", minimal + "significance:\n  baseline: bm25\n", []string{`:7: significance.baseline: cell "bm25" is not one of the config's cells (doc/bm25): name it <chunking>/<retriever>`}},
		{"baseline with best", minimal + "significance:\n  plan: best\n  baseline: doc/bm25\n", []string{":8: significance.baseline: a baseline cell goes with plan baseline, not best"}},
		{"negative margin", minimal + "significance: {equivalence: -0.02}\n", []string{":6: significance.equivalence: equivalence margin -0.02 must be a finite number ≥ 0"}},
		{"NaN detect", minimal + "significance: {detect: .nan}\n", []string{":6: significance.detect: .nan is not a finite number"}},
		{"negative detect", minimal + "significance: {detect: -1}\n", []string{":6: significance.detect: difference to detect -1 must be a finite number ≥ 0"}},
		{"unknown interval", minimal + "significance: {interval: normal}\n", []string{`:6: significance.interval: unknown interval "normal": bca, percentile or t`}},
		{"yaml syntax", "dataset: [\n", []string{"c.yaml:"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := writeConfig(t, tc.yaml)
			_, err := Load(p, LoadOptions{DataDir: "/d"})
			if err == nil {
				t.Fatalf("no error; want %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if !strings.Contains(err.Error(), p) {
				t.Errorf("error %q does not name the file %s", err, p)
			}
		})
	}
}

// TestValidateMissingFiles: a missing dataset or model is reported before
// any work, with what to do.
func TestValidateMissingFiles(t *testing.T) {
	p := writeConfig(t, minimal+"  - {name: dense, type: dense, model: no-such-model}\n")
	data := t.TempDir()
	cfg, err := Load(p, LoadOptions{DataDir: data, ModelsDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	err = Validate(cfg, false)
	if err == nil {
		t.Fatal("Validate: no error for missing corpus, queries and model")
	}
	for _, w := range []string{
		"dataset.corpus: corpus " + filepath.Join(data, "corpus.jsonl") + " not found; pass --data-dir",
		"dataset.queries: queries",
		"retrievers[1].model: retriever \"dense\": model folder",
		"no script fetches no-such-model: export it from Hugging Face",
		"--models-dir",
	} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
	// Run stops with the same error before writing anything.
	if _, err := Run(t.Context(), cfg, Options{NoHistory: true}); err == nil {
		t.Fatal("Run: no error")
	}
	if _, err := os.Stat(cfg.Output); !os.IsNotExist(err) {
		t.Errorf("output folder %s exists after a failed validation", cfg.Output)
	}
}

// TestValidateMissingSplit: a BEIR folder that is found but holds no
// qrels of the config's split is reported as found, with the splits it
// has, not with the hint to pass --data-dir (the folder is not what is
// missing; a fresh user's report).
func TestValidateMissingSplit(t *testing.T) {
	data := t.TempDir()
	folder := filepath.Join(data, "ds")
	for _, f := range []string{"corpus.jsonl", "queries.jsonl", "qrels/train.tsv", "qrels/test.tsv", "qrels/notes.txt"} {
		p := filepath.Join(folder, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := writeConfig(t, "dataset: {beir: ds, split: dev}\nretrievers: [{name: a, type: bm25}]\n")
	cfg, err := Load(p, LoadOptions{DataDir: data})
	if err != nil {
		t.Fatal(err)
	}
	err = ValidateDataset(cfg, true)
	want := "dataset.split: qrels split dev: " + filepath.Join(folder, "qrels", "dev.tsv") + " not found in the BEIR folder " + folder + ", which has the splits test, train: set dataset.split to one of them"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "--data-dir") {
		t.Errorf("error %v, want %q and no --data-dir hint", err, want)
	}
	// No qrels folder at all: the folder is still found.
	if err := os.RemoveAll(filepath.Join(folder, "qrels")); err != nil {
		t.Fatal(err)
	}
	err = ValidateDataset(cfg, true)
	want = "dataset.split: qrels split dev: " + filepath.Join(folder, "qrels", "dev.tsv") + " not found in the BEIR folder " + folder + ", which has no qrels/*.tsv"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "--data-dir") {
		t.Errorf("error %v, want %q and no --data-dir hint", err, want)
	}
}

// TestValidateMissingModelHint: the hint names what provides each missing
// model: ./scripts/setup.sh only for the models scripts/fetch-models.sh
// fetches (modellist.Fetched()); the shared data's models/ for use-lite
// and ce-scifact-tiny, saying that the data root lacks them (not calling
// the data root the shared data); Hugging Face for anything else
// (bge-small-en-v1.5). Every hint names every model root searched, in
// order (the explicit one first, the data root's models/ last), and
// --models-dir.
func TestValidateMissingModelHint(t *testing.T) {
	data, models := t.TempDir(), t.TempDir()
	for _, c := range []struct {
		model     string
		want, not []string
	}{
		{"all-minilm-l6-v2", []string{"run ./scripts/setup.sh (scripts/fetch-models.sh fetches all-minilm-l6-v2 into the repository's models/)"}, []string{"Hugging Face", "shared data"}},
		{"e5-small-v2-q", []string{"run ./scripts/setup.sh"}, []string{"Hugging Face"}},
		{"bge-small-en-v1.5, fallback_models: [use-lite]", []string{
			"model folder bge-small-en-v1.5, use-lite not found",
			"use-lite ships in the shared data's models/, and the data root " + data + " has no such models/ folder: pass --data-dir (or set RAGBENCH_DATA_DIR) to the shared data, or --models-dir to its models/ folder",
			"no script fetches bge-small-en-v1.5: export it from Hugging Face",
		}, []string{"setup.sh"}},
		{"ce-scifact-tiny", []string{"ce-scifact-tiny ships in the shared data's models/"}, []string{"setup.sh", "Hugging Face"}},
	} {
		p := writeConfig(t, minimal+"  - {name: dense, type: dense, model: "+c.model+"}\n")
		cfg, err := Load(p, LoadOptions{DataDir: data, ModelsDir: models})
		if err != nil {
			t.Fatal(err)
		}
		err = Validate(cfg, false)
		if err == nil {
			t.Fatalf("%s: no error", c.model)
		}
		msg := err.Error()
		for _, w := range append(c.want, "(searched "+models+", "+filepath.Join(data, "models")+")", "or pass --models-dir (or set RAGBENCH_MODELS_DIR)") {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: error %q does not contain %q", c.model, msg, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(msg, w) {
				t.Errorf("%s: error %q contains %q", c.model, msg, w)
			}
		}
	}
}

func TestIsHeldOut(t *testing.T) {
	// The split depends only on (seed, id): stable across calls, and about
	// the requested fraction of many ids.
	n, held := 20000, 0
	for i := 0; i < n; i++ {
		id := "q" + itoa(i)
		a := IsHeldOut(id, 7, 0.2)
		if a != IsHeldOut(id, 7, 0.2) {
			t.Fatal("not deterministic")
		}
		if a {
			held++
		}
	}
	// Binomial(20000, 0.2): sd = 56.6; allow 5 sd.
	if held < 4000-283 || held > 4000+283 {
		t.Errorf("%d of %d held out, want about 4000", held, n)
	}
	if IsHeldOut("q1", 7, 0) {
		t.Error("fraction 0 holds out a query")
	}
	// Another seed gives another split.
	diff := 0
	for i := 0; i < 1000; i++ {
		if IsHeldOut("q"+itoa(i), 7, 0.5) != IsHeldOut("q"+itoa(i), 8, 0.5) {
			diff++
		}
	}
	if diff < 400 || diff > 600 {
		t.Errorf("seeds 7 and 8 disagree on %d of 1000 ids, want about 500", diff)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestShippedConfigsLoad: every config in configs/ and testdata/ parses and
// passes value checks (files are checked by the e2e tests).
func TestShippedConfigsLoad(t *testing.T) {
	paths, _ := filepath.Glob("../configs/*.yaml")
	more, _ := filepath.Glob("testdata/*.yaml")
	paths = append(paths, more...)
	if len(paths) < 3 {
		t.Fatalf("found only %v", paths)
	}
	for _, p := range paths {
		if _, err := Load(p, LoadOptions{DataDir: t.TempDir()}); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestFallbackWarning: a retriever whose model is missing and replaced by a
// fallback is named in the warnings; one that found its own model is not.
func TestFallbackWarning(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "use-lite"), 0o755); err != nil {
		t.Fatal(err)
	}
	dense := &kinds.Dense{ONNXModel: kinds.ONNXModel{Model: "bge-small-en-v1.5", FallbackModels: []string{"use-lite"}}}
	dense.Resolve(filepath.Join(root, "use-lite"))
	ce := &kinds.Dense{ONNXModel: kinds.ONNXModel{Model: "use-lite", FallbackModels: []string{"x"}}}
	ce.Resolve(filepath.Join(root, "use-lite"))
	cfg := &config.Config{Retrievers: []config.RetrieverConfig{{Name: "dense", Type: "dense", Settings: dense}, {Name: "ce", Type: "dense", Settings: ce}}}
	w := cfg.FallbackWarnings()
	if len(w) != 1 || !strings.Contains(w[0], "retriever dense: model bge-small-en-v1.5 not found; using fallback use-lite") {
		t.Fatalf("warnings = %q", w)
	}
}

// TestExplicitValues: only an absent field takes its default; an explicit
// null, 0, "" or [] is an error naming the field and its line.
func TestExplicitValues(t *testing.T) {
	cases := []struct {
		name, yaml, want string
	}{
		{"permutations 0", minimal + "significance:\n  permutations: 0\n", ":7: significance.permutations: 0 permutations: the randomization test needs ≥ 1"},
		{"permutations 0 bootstrap", minimal + "significance:\n  test: bootstrap\n  permutations: 0\n", ":8: significance.permutations: 0 permutations: the bootstrap test needs ≥ 1"},
		{"empty k", minimal + "k: []\n", ":6: k: empty k grid"},
		{"null k", minimal + "k:\n", ":6: k: empty value (null)"},
		{"null nested", minimal + "heldout:\n  fraction: ~\n", ":7: heldout.fraction: empty value (null)"},
		{"empty metrics", minimal + "metrics: []\n", ":6: metrics: empty metrics list"},
		{"empty chunking", minimal + "chunking: []\n", ":6: chunking: empty chunking list"},
		{"prompt_k 0", minimal + "prompt_k: 0\n", ":6: prompt_k: prompt_k 0: must be one of k"},
		{"depth 0", minimal + "depth: 0\n", ":6: depth: depth 0: must be ≥ the largest k"},
		{"snippet 0", minimal + "snippet: 0\n", ":6: snippet: snippet 0: must be ≥ 1"},
		{"empty test", minimal + "significance: {test: \"\"}\n", ":6: significance.test: empty"},
		{"empty significance metrics", minimal + "significance: {metrics: []}\n", ":6: significance.metrics: empty metrics list"},
		{"empty overlaps", minimal + "chunking:\n  - strategy: fixed\n    sizes: [8]\n    overlaps: []\n", ":9: chunking[0].overlaps: empty overlaps list"},
		{"doc with empty sizes", minimal + "chunking:\n  - {strategy: doc, sizes: []}\n", ":7: chunking[0].sizes: strategy doc takes no sizes"},
		{"retriever batch_size 0", "dataset: {corpus: c, queries: q}\nretrievers:\n  - {name: d, type: dense, model: m, batch_size: 0}\n", ":3: retrievers[0].batch_size: batch_size 0: must be ≥ 1"},
		{"retriever depth 0", "dataset: {corpus: c, queries: q}\nretrievers:\n  - {name: a, type: bm25}\n  - {name: b, type: bm25}\n  - name: h\n    type: hybrid\n    inputs: [a, b]\n    depth: 0\n", ":8: retrievers[2].depth: depth 0: must be ≥ 1"},
		{"empty scoring", "dataset: {corpus: c, queries: q}\nretrievers:\n  - name: a\n    type: bm25\n    scoring: \"\"\n", ":5: retrievers[0].scoring: empty: lucene or bleve"},
		{"bad unknown_gold", "dataset: {corpus: c, queries: q, unknown_gold: drop}\nretrievers: [{name: a, type: bm25}]\n", ":1: dataset.unknown_gold: unknown policy \"drop\": error"},
		{"permutations 0 with t", minimal + "significance: {test: t, permutations: 0}\n", ""},
		{"fraction 0 is a value", minimal + "heldout: {fraction: 0}\n", ""},
		{"detect 0 is none", minimal + "significance: {detect: 0, equivalence: 0}\n", ""},
		{"empty plan", minimal + "significance: {plan: \"\"}\n", ":6: significance.plan: empty: baseline, best or all-pairs; remove the line to use the default (baseline)"},
		{"empty baseline", minimal + "significance: {baseline: \"\"}\n", ":6: significance.baseline: empty cell name"},
		{"tab", "dataset:\n\tcorpus: c\n", ":2: tab character: YAML indents with spaces only"},
		{"k not an integer", minimal + "k: [1, abc]\n", ":6: k[1]: not an integer: abc"},
		{"alpha not a number", minimal + "significance:\n  alpha: zz\n", ":7: significance.alpha: not a number: zz"},
		{"k not a list", minimal + "k: 5\n", ":6: k: want a list, e.g. [5]"},
		{"corpus a list", "dataset: {corpus: [a], queries: q}\nretrievers: [{name: a, type: bm25}]\n", ":1: dataset.corpus: want a single value, not a list"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := writeConfig(t, tc.yaml)
			_, err := Load(p, LoadOptions{DataDir: "/d"})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("error %v; want none", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), p+tc.want) {
				t.Fatalf("error %v; want %q", err, p+tc.want)
			}
		})
	}
}

// TestHashIgnoresWherePaths: the history's config_hash is the same for two
// runs of one config into different output, cache and history paths (before
// the fix it covered them, and bench history said "config changed"), and
// differs when a value that changes the numbers differs.
func TestHashIgnoresWherePaths(t *testing.T) {
	a, b := loadSmall(t, t.TempDir()), loadSmall(t, t.TempDir())
	if a.Output == b.Output || a.Hash() != b.Hash() {
		t.Errorf("outputs %s, %s: hashes %s, %s; want equal", a.Output, b.Output, a.Hash(), b.Hash())
	}
	b.K = []int{1}
	if a.Hash() == b.Hash() {
		t.Error("k [1, 3] and k [1] have the same hash")
	}
}
