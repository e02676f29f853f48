package sweep

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/results"
)

// checkDataset is bench run --check's preflight (Check, every chunking's
// labels included): the dataset's summary and warnings.
func checkDataset(cfg *Config) (results.DatasetSummary, []string, error) {
	rep, err := Check(context.Background(), cfg, CheckOptions{History: true, Chunkings: true})
	if err != nil {
		return results.DatasetSummary{}, nil, err
	}
	return rep.Dataset, rep.Warnings, nil
}

// fixture writes files (name → content) and the config c.yaml into a fresh
// folder, which is also the data root, and loads the config.
func fixture(t *testing.T, files map[string]string, yaml string) (*Config, string) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(p, LoadOptions{DataDir: dir, ModelsDir: dir, Output: filepath.Join(dir, "out"), CacheDir: filepath.Join(dir, "cache"), History: filepath.Join(dir, "h.csv")})
	if err != nil {
		t.Fatal(err)
	}
	return cfg, dir
}

// Three passages with disjoint words, so BM25 returns exactly the passages
// sharing a word with the query.
const (
	tinyCorpus = `{"id": "p-1", "title": "", "text": "eiffel tower paris"}
{"id": "p-2", "title": "", "text": "brandenburg gate berlin"}
{"id": "p-3", "title": "", "text": "colosseum rome"}
`
	labelledCfg = "dataset: {corpus: corpus.jsonl, queries: queries.jsonl}\nretrievers: [{name: a, type: bm25}]\nk: [1, 3]\n"
	qrelsCfg    = "dataset: {corpus: corpus.jsonl, queries: queries.jsonl, qrels: QRELS}\nretrievers: [{name: a, type: bm25}]\nk: [1, 3]\n"
	beirQueries = `{"_id": "q1", "text": "eiffel tower"}
{"_id": "q2", "text": "berlin gate"}
`
)

// TestCheckDatasetErrors: every dataset problem the real run meets is found
// by Check (bench run --check) and by Run before any work, with
// file:line: field: message errors. Line numbers are counted by hand in
// the fixtures.
func TestCheckDatasetErrors(t *testing.T) {
	for _, tc := range datasetErrorCases {
		t.Run(tc.name, func(t *testing.T) { checkDatasetError(t, tc) })
	}
}

// datasetErrorCase is a dataset that Check must refuse: its files
// (name → content), the config, and what the error must name.
type datasetErrorCase struct {
	name  string
	files map[string]string
	yaml  string
	want  []string
}

// datasetErrorCases are TestCheckDatasetErrors' datasets.
var datasetErrorCases = []datasetErrorCase{
	// A query id runs/<cell>.trec cannot hold: refused before any cell
	// runs (it failed writing the outputs, after the whole sweep).
	{"query id with a space (labelled JSONL)", map[string]string{
		"corpus.jsonl":  tinyCorpus,
		"queries.jsonl": "{\"id\": \"q1\", \"question\": \"eiffel\", \"gold\": [\"p-1\"]}\n{\"id\": \"q 2\", \"question\": \"berlin\", \"gold\": [\"p-2\"]}\n",
	}, labelledCfg, []string{
		"queries.jsonl:2: query id \"q 2\" cannot be written in TREC format",
		"runs/<cell>.trec: rename the query",
	}},
	{"query id starting with # (BEIR TSV qrels)", map[string]string{
		"corpus.jsonl":  tinyCorpus,
		"queries.jsonl": beirQueries,
		"qrels.tsv":     "query-id\tcorpus-id\tscore\nq1\tp-1\t1\n#q2\tp-2\t1\n",
	}, strings.Replace(qrelsCfg, "QRELS", "qrels.tsv", 1), []string{"qrels.tsv:3: query id \"#q2\" cannot be written in TREC format"}},
	{"unknown gold id (labelled JSONL)", map[string]string{
		"corpus.jsonl":  tinyCorpus,
		"queries.jsonl": "{\"id\": \"q1\", \"question\": \"eiffel\", \"gold\": [\"p-1\"]}\n{\"id\": \"q2\", \"question\": \"berlin\", \"gold\": [\"p-2\", \"Xp-2\"]}\n",
	}, labelledCfg, []string{
		"queries.jsonl: 1 gold doc id in 1 query name no document of the corpus",
		"queries.jsonl:2: gold: query \"q2\": doc \"Xp-2\" is not in the corpus",
		"set dataset.unknown_gold: ignore",
	}},
	{"every gold id prefixed (first 5 listed + count)", map[string]string{
		"corpus.jsonl": tinyCorpus,
		"queries.jsonl": `{"id": "q1", "question": "a", "gold": ["Xp-1"]}
{"id": "q2", "question": "b", "gold": ["Xp-2", "Xp-3"]}
{"id": "q3", "question": "c", "gold": {"Xp-3": 2, "Xp-1": 1}}
{"id": "q4", "question": "d", "gold": ["Xp-2"]}
`,
	}, labelledCfg, []string{
		"6 gold doc ids in 4 queries", "the first 5:",
		"queries.jsonl:1: gold: query \"q1\": doc \"Xp-1\"",
		"queries.jsonl:3: gold: query \"q3\": doc \"Xp-3\"",
		"… and 1 more",
	}},
	{"unknown doc in BEIR TSV qrels", map[string]string{
		"corpus.jsonl":  tinyCorpus,
		"queries.jsonl": beirQueries,
		"qrels.tsv":     "query-id\tcorpus-id\tscore\nq1\tp-1\t1\nq1\tNOSUCHDOC\t1\nq2\tp-2\t1\n",
	}, strings.Replace(qrelsCfg, "QRELS", "qrels.tsv", 1), []string{"qrels.tsv:3: gold: query \"q1\": doc \"NOSUCHDOC\" is not in the corpus"}},
	{"unknown doc in TREC qrels", map[string]string{
		"corpus.jsonl":  tinyCorpus,
		"queries.jsonl": beirQueries,
		"qrels.txt":     "q1 0 p-1 1\nq2 0 p-9 2\n",
	}, strings.Replace(qrelsCfg, "QRELS", "qrels.txt", 1), []string{"qrels.txt:2: gold: query \"q2\": doc \"p-9\" is not in the corpus"}},
	{"labelled row without gold", map[string]string{
		"corpus.jsonl":  tinyCorpus,
		"queries.jsonl": "{\"id\": \"q1\", \"question\": \"eiffel\", \"gold\": [\"p-1\"]}\n{\"id\": \"q2\", \"question\": \"berlin\"}\n",
	}, labelledCfg, []string{"queries.jsonl:2: gold: missing"}},
	{"duplicate doc id", map[string]string{
		"corpus.jsonl":  tinyCorpus + `{"id": "p-1", "text": "again"}` + "\n",
		"queries.jsonl": "{\"id\": \"q1\", \"question\": \"eiffel\", \"gold\": [\"p-1\"]}\n",
	}, labelledCfg, []string{"corpus.jsonl:4: id: duplicate doc id \"p-1\" (first at line 1, again at line 4)"}},
	{"doc without id", map[string]string{
		"corpus.jsonl":  `{"id": "p-1", "text": "eiffel"}` + "\n" + `{"title": "x", "text": "no id"}` + "\n",
		"queries.jsonl": "{\"id\": \"q1\", \"question\": \"eiffel\", \"gold\": [\"p-1\"]}\n",
	}, labelledCfg, []string{"corpus.jsonl:2:"}},
	{"truncated corpus JSON", map[string]string{
		"corpus.jsonl":  `{"id": "p-1", "text": "eiffel"}` + "\n" + `{"id": "p-2", "text": "ber`,
		"queries.jsonl": "{\"id\": \"q1\", \"question\": \"eiffel\", \"gold\": [\"p-1\"]}\n",
	}, labelledCfg, []string{"corpus.jsonl:2:"}},
	{"empty corpus", map[string]string{
		"corpus.jsonl":  "\n",
		"queries.jsonl": "{\"id\": \"q1\", \"question\": \"eiffel\", \"gold\": [\"p-1\"]}\n",
	}, labelledCfg, []string{"corpus.jsonl: empty corpus"}},
	{"empty queries file", map[string]string{
		"corpus.jsonl":  tinyCorpus,
		"queries.jsonl": "",
	}, labelledCfg, []string{"queries.jsonl: no judgements found"}},
	{"BEIR queries.jsonl without qrels", map[string]string{
		"corpus.jsonl":  tinyCorpus,
		"queries.jsonl": beirQueries,
	}, labelledCfg, []string{"c.yaml:1: dataset.queries: ", "is a BEIR queries.jsonl", "set dataset.qrels"}},
	// The query texts are read by eval.ReadQueryTexts, with the JSON
	// rules of the qrels readers: an id that decoding would rewrite to
	// U+FFFD no longer matches the TREC qrels' bytes "q\xff".
	{"invalid UTF-8 in a BEIR query id", map[string]string{
		"corpus.jsonl":  tinyCorpus,
		"queries.jsonl": "{\"_id\": \"q1\", \"text\": \"eiffel\"}\n{\"_id\": \"q\xff\", \"text\": \"berlin\"}\n",
		"qrels.txt":     "q1 0 p-1 1\nq\xff 0 p-2 1\n",
	}, strings.Replace(qrelsCfg, "QRELS", "qrels.txt", 1), []string{"queries.jsonl:2: json: column 11: invalid UTF-8 (byte 0xff)"}},
	{"lone surrogate in a BEIR query id", map[string]string{
		"corpus.jsonl":  tinyCorpus,
		"queries.jsonl": "{\"_id\": \"q1\", \"text\": \"eiffel\"}\n\n{\"_id\": \"q\\ud800\", \"text\": \"berlin\"}\n",
		"qrels.txt":     "q1 0 p-1 1\n",
	}, strings.Replace(qrelsCfg, "QRELS", "qrels.txt", 1), []string{"queries.jsonl:3: json: column 11: a lone UTF-16 surrogate \\ud800"}},
	{"BEIR query id twice", map[string]string{
		"corpus.jsonl":  tinyCorpus,
		"queries.jsonl": beirQueries + "{\"_id\": \"q1\", \"text\": \"other\"}\n",
		"qrels.txt":     "q1 0 p-1 1\n",
	}, strings.Replace(qrelsCfg, "QRELS", "qrels.txt", 1), []string{"queries.jsonl:3: _id: query \"q1\" given twice (first on line 1)"}},
	{"slice_field no query has", map[string]string{
		"corpus.jsonl":  tinyCorpus,
		"queries.jsonl": "{\"id\": \"q1\", \"question\": \"eiffel\", \"gold\": [\"p-1\"], \"topic\": \"travel\"}\n",
	}, strings.Replace(labelledCfg, "queries.jsonl}", "queries.jsonl,\n  slice_field: topc}", 1), []string{
		"c.yaml:2: dataset.slice_field: ", "queries.jsonl: topc: no line has this field (keys seen: gold, id, question, topic); name one of those",
	}},
	{"slice label not a scalar", map[string]string{
		"corpus.jsonl":  tinyCorpus,
		"queries.jsonl": "{\"id\": \"q1\", \"question\": \"eiffel\", \"gold\": [\"p-1\"], \"topic\": \"travel\"}\n{\"id\": \"q2\", \"question\": \"berlin\", \"gold\": [\"p-2\"], \"topic\": [\"a\"]}\n",
	}, strings.Replace(labelledCfg, "queries.jsonl}", "queries.jsonl, slice_field: topic}", 1), []string{
		"queries.jsonl:2: topic: want a string, number or boolean, got [\"a\"]",
	}},
}

// checkDatasetError checks that Check refuses tc's dataset with an
// error naming every tc.want, and that Run stops with the same error
// having written nothing.
func checkDatasetError(t *testing.T, tc datasetErrorCase) {
	cfg, dir := fixture(t, tc.files, tc.yaml)
	_, _, err := checkDataset(cfg)
	if err == nil {
		t.Fatalf("Check: no error; want %q", tc.want)
	}
	for _, w := range tc.want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("Check error %q does not contain %q", err, w)
		}
	}
	// Run stops with the same error, having written nothing.
	_, rerr := Run(t.Context(), cfg, Options{})
	if rerr == nil || rerr.Error() != err.Error() {
		t.Errorf("Run error %v, want the Check error", rerr)
	}
	for _, p := range []string{"out", "cache", "h.csv"} {
		if _, err := os.Stat(filepath.Join(dir, p)); !os.IsNotExist(err) {
			t.Errorf("%s exists after a failed check", p)
		}
	}
}

// TestSliceField: slice_field names any labelled field (here "topic", with
// rows also carrying "kind"), or a key of a BEIR queries.jsonl's metadata;
// only that field is read. Numbers are labels as written. A query without
// the field is in results.NoSlice, as in Run's results (before the fix --check
// listed only "7,travel" and "travel" while the run's results.json listed
// "(none)" too).
func TestSliceField(t *testing.T) {
	cfg, _ := fixture(t, map[string]string{
		"corpus.jsonl": tinyCorpus,
		"queries.jsonl": `{"id": "q1", "question": "eiffel", "gold": ["p-1"], "kind": "k1", "topic": "travel"}
{"id": "q2", "question": "berlin", "gold": ["p-2"], "kind": "k1", "topic": 7}
{"id": "q3", "question": "rome", "gold": ["p-3"], "kind": "k2"}
`,
	}, strings.Replace(labelledCfg, "queries.jsonl}", "queries.jsonl, slice_field: topic}", 1))
	sum, _, err := checkDataset(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sum.Slices, ","); got != "(none),7,travel" {
		t.Errorf("slices %q, want (none),7,travel (the topic field only, not kind)", got)
	}
	res, err := Run(t.Context(), cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Dataset.Slices, sum.Slices) {
		t.Errorf("bench run slices %q, bench run --check slices %q: want the same", res.Dataset.Slices, sum.Slices)
	}

	cfg, _ = fixture(t, map[string]string{
		"b/corpus.jsonl":   strings.ReplaceAll(tinyCorpus, `"id"`, `"_id"`),
		"b/queries.jsonl":  "{\"_id\": \"q1\", \"text\": \"eiffel\", \"metadata\": {\"topic\": \"travel\"}}\n{\"_id\": \"q2\", \"text\": \"berlin\", \"metadata\": {}}\n",
		"b/qrels/test.tsv": "query-id\tcorpus-id\tscore\nq1\tp-1\t1\nq2\tp-2\t1\n",
	}, "dataset: {beir: b, slice_field: topic}\nretrievers: [{name: a, type: bm25}]\nk: [1, 3]\n")
	sum, _, err = checkDataset(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sum.Slices, ","); got != "(none),travel" {
		t.Errorf("BEIR metadata slices %q, want (none),travel", got)
	}
}

// TestUnknownGoldIgnore: with dataset.unknown_gold: ignore the unknown
// judgements are dropped and counted. By hand: q1 "eiffel" has gold p-1
// and the unknown p-9; BM25 returns only p-1, so recall@3 is 1/1 = 1
// once p-9 is dropped (1/2 = 0.5 if it were kept). q2's only gold id is
// unknown, so q2 becomes unanswerable: 1 answerable and 1 unanswerable
// query.
func TestUnknownGoldIgnore(t *testing.T) {
	cfg, dir := fixture(t, map[string]string{
		"corpus.jsonl":  tinyCorpus,
		"queries.jsonl": "{\"id\": \"q1\", \"question\": \"eiffel\", \"gold\": [\"p-1\", \"p-9\"]}\n{\"id\": \"q2\", \"question\": \"berlin\", \"gold\": [\"X\"]}\n",
	}, strings.Replace(labelledCfg, "queries.jsonl}", "queries.jsonl, unknown_gold: ignore}", 1))
	res, err := Run(t.Context(), cfg, Options{NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Dataset.Answerable != 1 || res.Dataset.Unanswerable != 1 {
		t.Errorf("answerable %d, unanswerable %d; want 1, 1", res.Dataset.Answerable, res.Dataset.Unanswerable)
	}
	if got := res.Cells[0].Means[results.GroupAll]["recall@3"]; got != 1 {
		t.Errorf("recall@3 = %v, want 1 (denominator 1 after dropping p-9)", got)
	}
	want := "dataset.unknown_gold: ignore: dropped 2 relevant judgements in 2 queries"
	found := false
	for _, w := range res.Warnings {
		found = found || strings.Contains(w, want) && strings.Contains(w, "1 query has no relevant document left and is reported as unanswerable")
	}
	if !found {
		t.Errorf("warnings %q lack %q", res.Warnings, want)
	}
	for _, f := range []string{"report.md", "results.json"} {
		b, err := os.ReadFile(filepath.Join(dir, "out", f))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks the warning %q", f, want)
		}
	}
}

// TestCheckWritable: an output folder under a regular file, or a history
// path that is a folder, fails before any work; a fresh folder is probed
// and removed again.
func TestCheckWritable(t *testing.T) {
	cfg, dir := fixture(t, map[string]string{"corpus.jsonl": tinyCorpus, "queries.jsonl": "{\"id\": \"q1\", \"question\": \"eiffel\", \"gold\": [\"p-1\"]}\n", "afile": "x"}, labelledCfg)
	cfg.Output = filepath.Join(dir, "fresh", "out")
	if err := CheckWritable(cfg, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "fresh")); !os.IsNotExist(err) {
		t.Errorf("probe left %s behind", filepath.Join(dir, "fresh"))
	}
	cfg.Output = filepath.Join(dir, "afile", "out")
	cfg.History = dir
	err := CheckWritable(cfg, true)
	for _, w := range []string{
		"c.yaml: output: output folder " + cfg.Output + " is not writable: " + filepath.Join(dir, "afile") + " is a file, not a folder; choose another folder (--output",
		"c.yaml: history: history CSV " + dir + " is a folder",
	} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v does not contain %q", err, w)
		}
	}
	// --no-history: the history path is not checked.
	cfg.Output = filepath.Join(dir, "out")
	if err := CheckWritable(cfg, false); err != nil {
		t.Errorf("CheckWritable(false): %v", err)
	}
	if os.Getuid() != 0 { // root writes anywhere
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		cfg.Output = filepath.Join(ro, "out")
		if err := CheckWritable(cfg, false); err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Errorf("read-only parent: error %v, want permission denied", err)
		}
	}
	// Run fails the same way, before reading the dataset.
	cfg.Output = filepath.Join(dir, "afile", "out")
	if _, err := Run(t.Context(), cfg, Options{NoHistory: true}); err == nil || !strings.Contains(err.Error(), "is a file, not a folder") {
		t.Errorf("Run: %v", err)
	}
}

// TestModelKind: dense needs an embedder, rerank a cross-encoder; the kind
// comes from ragbench.json, else from the graph (an output named
// "logits" makes a cross-encoder), read without ONNX Runtime.
func TestModelKind(t *testing.T) {
	// A minimal ONNX ModelProto: field 7 (graph) holding field 12
	// (output, ValueInfoProto) with field 1 (name). Bytes written out:
	// 0x3a = field 7 wire type 2; 0x62 = field 12 wire type 2; 0x0a =
	// field 1 wire type 2.
	graph := func(name string) string {
		vi := "\x0a" + string(rune(len(name))) + name
		g := "\x62" + string(rune(len(vi))) + vi
		return "\x3a" + string(rune(len(g))) + g
	}
	files := map[string]string{
		"corpus.jsonl":          tinyCorpus,
		"queries.jsonl":         "{\"id\": \"q1\", \"question\": \"eiffel\", \"gold\": [\"p-1\"]}\n",
		"emb/model.onnx":        graph("sentence_embedding"),
		"emb/tokenizer.json":    "{}",
		"ce/model.onnx":         graph("logits"),
		"ce/tokenizer.json":     "{}",
		"embcfg/model.onnx":     graph("logits"),
		"embcfg/tokenizer.json": "{}",
		"embcfg/ragbench.json":  `{"kind": "embedder"}`,
	}
	for _, c := range []struct {
		retr, want string
	}{
		{"{name: d, type: dense, model: emb}", ""},
		{"{name: d, type: dense, model: embcfg}", ""},
		{"{name: r, type: rerank, input: a, model: ce}", ""},
		{"{name: d, type: dense, model: ce}", `c.yaml:4: retrievers[1].model: retriever "d": type dense needs an embedder model, but DIR/ce is a cross-encoder (inferred: its graph has an output named "logits")`},
		{"{name: r, type: rerank, input: a, model: emb}", `retrievers[1].model: retriever "r": type rerank needs a cross-encoder model, but DIR/emb is an embedder (inferred: its graph's outputs ["sentence_embedding"] include no "logits")`},
		{"{name: r, type: rerank, input: a, model: embcfg}", `is an embedder (ragbench.json says kind "embedder")`},
	} {
		cfg, dir := fixture(t, files, "dataset: {corpus: corpus.jsonl, queries: queries.jsonl}\nretrievers:\n  - {name: a, type: bm25}\n  - "+c.retr+"\n")
		err := Validate(cfg, false)
		want := strings.ReplaceAll(c.want, "DIR", dir)
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", c.retr, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: error %v, want %q", c.retr, err, want)
		}
	}
}

// TestDamagedHistoryStopsBeforeWork: a history CSV that history.Read
// refuses (line 2's time is not RFC 3339) stops bench run before any cell
// runs, naming the file and line; before the fix the file was only read
// when the row was appended, after every cell (23 minutes on SciFact).
func TestDamagedHistoryStopsBeforeWork(t *testing.T) {
	dir := t.TempDir()
	cfg := loadSmall(t, dir)
	bad := "run,time,config_hash,dataset_hash,cell,metric,value\n1,yesterday,c,d,doc/bm25,ndcg@3,0.5\n"
	if err := os.WriteFile(cfg.History, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Run(t.Context(), cfg, Options{})
	if err == nil || !strings.Contains(err.Error(), cfg.History+":2:") {
		t.Fatalf("Run error %v, want one naming %s:2:", err, cfg.History)
	}
	if _, err := os.Stat(filepath.Join(cfg.CacheDir, "runs")); !os.IsNotExist(err) {
		t.Errorf("a cell ran before the history file was refused (%s exists)", filepath.Join(cfg.CacheDir, "runs"))
	}
	if _, err := Run(t.Context(), cfg, Options{NoHistory: true}); err != nil {
		t.Errorf("with NoHistory the damaged file is not read: %v", err)
	}
}

// TestCheckInputs: Options.CheckInputs gets the dataset's files as
// manifest.json lists them (roles corpus, queries, qrels, same hashes),
// before any cell; its error stops the run with nothing written.
func TestCheckInputs(t *testing.T) {
	files := map[string]string{"corpus.jsonl": tinyCorpus, "queries.jsonl": beirQueries, "qrels.txt": "q1 0 p-1 1\nq2 0 p-2 1\n"}
	cfg, dir := fixture(t, files, strings.Replace(qrelsCfg, "QRELS", "qrels.txt", 1))
	var got []results.FileHash
	if _, err := Run(t.Context(), cfg, Options{CheckInputs: func(f []results.FileHash) error { got = f; return nil }}); err != nil {
		t.Fatal(err)
	}
	man, err := results.ReadManifest(filepath.Join(cfg.Output, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want []results.FileHash
	for _, f := range man.Files {
		if f.Role == "corpus" || f.Role == "queries" || f.Role == "qrels" {
			want = append(want, f)
		}
	}
	slices.SortFunc(want, func(a, b results.FileHash) int { return strings.Compare(a.Role, b.Role) })
	slices.SortFunc(got, func(a, b results.FileHash) int { return strings.Compare(a.Role, b.Role) })
	if len(want) != 3 || !slices.Equal(got, want) {
		t.Errorf("CheckInputs got %+v, manifest lists %+v", got, want)
	}
	os.RemoveAll(filepath.Join(dir, "out"))
	stop := errors.New("stop")
	if _, err := Run(t.Context(), cfg, Options{CheckInputs: func([]results.FileHash) error { return stop }}); !errors.Is(err, stop) {
		t.Errorf("Run error %v, want CheckInputs' error", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "results.json")); !os.IsNotExist(err) {
		t.Errorf("results.json written after CheckInputs failed (err %v)", err)
	}
}

// TestCheckWritableDanglingLink: an output folder that is a symbolic link
// to nothing (or under one) is refused saying so, and the link is kept
// (it said "is not writable: file exists", MkdirAll's error on the link,
// and the probe's cleanup removed the link).
func TestCheckWritableDanglingLink(t *testing.T) {
	cfg, dir := fixture(t, map[string]string{"corpus.jsonl": tinyCorpus, "queries.jsonl": "{\"id\": \"q1\", \"question\": \"eiffel\", \"gold\": [\"p-1\"]}\n"}, labelledCfg)
	cfg.Output = filepath.Join(dir, "out")
	if err := os.Symlink("gone/results", cfg.Output); err != nil {
		t.Fatal(err)
	}
	link := cfg.Output
	for _, out := range []string{link, filepath.Join(link, "sub")} { // the folder, or a parent
		cfg.Output = out
		err := CheckWritable(cfg, false)
		want := "output folder " + out + " is not writable: " + link + " is a symbolic link to gone/results, which does not exist"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not contain %q", err, want)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("%s is no longer a symbolic link (%v)", link, err)
		}
	}
}
