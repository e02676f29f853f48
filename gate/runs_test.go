package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/results"
)

// fakeRun is a run with cells named as given (each with ndcg@10 per query
// q1..q3) and a manifest with the given corpus, queries and qrels hashes.
func fakeRun(path string, hashes [3]string, cells ...string) *Run {
	seed := int64(42)
	res := &results.Results{Metrics: []string{"ndcg@10", "recall@100"}, Dataset: results.DatasetSummary{Level: "document"}}
	res.Config.PrimaryMetric, res.Config.PromptK = "ndcg", 10
	res.Config.Significance.Test, res.Config.Significance.Correction, res.Config.Significance.Alpha = "randomization", "holm", 0.05
	res.Config.Significance.Permutations, res.Config.Significance.Seed = 1000, &seed
	for _, c := range cells {
		ch, r, _ := strings.Cut(c, "/")
		res.Cells = append(res.Cells, results.CellResult{Name: c, Chunking: config.Chunking{Name: ch}, Retriever: config.RetrieverConfig{Name: r}, PerQuery: map[string]map[string]float64{
			"q1": {"ndcg@10": 1, "recall@100": 1}, "q2": {"ndcg@10": 0.5, "recall@100": 1}, "q3": {"ndcg@10": 0, "recall@100": 0}}})
	}
	man := &results.Manifest{ConfigSHA: "c", Dataset: "d"}
	for i, role := range []string{"corpus", "queries", "qrels"} {
		man.Files = append(man.Files, results.FileHash{Role: role, Path: role + ".file", SHA256: hashes[i]})
	}
	return &Run{Path: path, Results: res, Manifest: man}
}

// FromRuns gates the cells present in both (current order), lists the
// others, takes the current config's test and metric (ndcg at prompt_k
// first, then each extra, a family read at prompt_k), refuses changed
// queries or qrels and notes a changed corpus.
func TestFromRuns(t *testing.T) {
	same := [3]string{"c1", "q1", "r1"}
	base := fakeRun("base/results.json", same, "doc/bm25", "doc/old")
	cur := fakeRun("now/results.json", [3]string{"c2", "q1", "r1"}, "doc/new", "doc/bm25")
	in, opt, err := FromRuns(base, cur, RunOptions{Metrics: []string{"recall@100", "ndcg"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Cells) != 1 || in.Cells[0].Name != "doc/bm25" || strings.Join(in.OnlyBaseline, ",") != "doc/old" || strings.Join(in.OnlyCurrent, ",") != "doc/new" {
		t.Errorf("cells %+v, only baseline %v, only current %v", in.Cells, in.OnlyBaseline, in.OnlyCurrent)
	}
	if strings.Join(in.Metrics, ",") != "ndcg@10,recall@100" || in.Cells[0].Current["ndcg@10"]["q2"] != 0.5 {
		t.Errorf("metrics %v, values %v", in.Metrics, in.Cells[0].Current)
	}
	if opt.Test != "randomization" || opt.Correction != "holm" || opt.Permutations != 1000 || opt.Seed != 42 {
		t.Errorf("options %+v", opt)
	}
	if len(in.Notes) != 1 || !strings.Contains(in.Notes[0], "corpus differs") {
		t.Errorf("notes %q, want the corpus change", in.Notes)
	}
	for _, c := range []struct {
		hashes [3]string
		want   string
	}{
		{[3]string{"c1", "q2", "r1"}, "the queries changed since the baseline"},
		{[3]string{"c1", "q1", "r2"}, "the qrels changed since the baseline"},
	} {
		_, _, err := FromRuns(base, fakeRun("now/results.json", c.hashes, "doc/bm25"), RunOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "base/results.json") {
			t.Errorf("%v: error %v, want %q naming the baseline", c.hashes, err, c.want)
		}
	}
	if _, _, err := FromRuns(base, cur, RunOptions{Metrics: []string{"mrr@10"}}); err == nil || !strings.Contains(err.Error(), "did not evaluate it") {
		t.Errorf("unknown metric: %v", err)
	}
}

// TestFromRunsMapping: --gate-map maps a changed chunking (every
// retriever's cell of fixed-128 against the same retriever's in
// fixed-256) or one cell; unmapped cells still meet by name; the cells
// without a counterpart are listed. Mappings naming a chunking or cell a
// run lacks, or giving a cell two baselines, are errors listing what the
// run has; a malformed mapping is refused by ParseMapping.
func TestFromRunsMapping(t *testing.T) {
	h := [3]string{"c", "q", "r"}
	base := fakeRun("base/results.json", h, "fixed-128/bm25", "fixed-128/dense", "doc/bm25", "fixed-512/bm25")
	cur := fakeRun("now/results.json", h, "doc/bm25", "fixed-256/bm25", "fixed-256/dense", "fixed-256/rrf")
	in, _, err := FromRuns(base, cur, RunOptions{Map: []Mapping{{"fixed-128", "fixed-256"}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range in.Cells {
		got = append(got, c.BaselineName()+"→"+c.Name)
	}
	if strings.Join(got, ",") != "doc/bm25→doc/bm25,fixed-128/bm25→fixed-256/bm25,fixed-128/dense→fixed-256/dense" ||
		strings.Join(in.OnlyBaseline, ",") != "fixed-512/bm25" || strings.Join(in.OnlyCurrent, ",") != "fixed-256/rrf" {
		t.Errorf("pairs %v, only baseline %v, only current %v", got, in.OnlyBaseline, in.OnlyCurrent)
	}
	in, _, err = FromRuns(base, cur, RunOptions{Map: []Mapping{{"fixed-512/bm25", "fixed-256/rrf"}}})
	if err != nil || len(in.Cells) != 2 || in.Cells[1].From != "fixed-512/bm25" || in.Cells[1].Name != "fixed-256/rrf" {
		t.Errorf("cell mapping: %v, cells %+v", err, in.Cells)
	}
	for _, c := range []struct {
		maps []Mapping
		want string
	}{
		{[]Mapping{{"fixed-64", "fixed-256"}}, "the baseline has no chunking fixed-64 (its chunkings: fixed-128, doc, fixed-512)"},
		{[]Mapping{{"fixed-128", "fixed-1024"}}, "this run has no chunking fixed-1024 (its chunkings: doc, fixed-256)"},
		{[]Mapping{{"doc/bm25", "fixed-256/x"}}, "this run has no cell fixed-256/x"},
		{[]Mapping{{"fixed-128/bm25", "fixed-256/bm25"}, {"fixed-512/bm25", "fixed-256/bm25"}}, "fixed-256/bm25 is already compared with fixed-128/bm25"},
	} {
		if _, _, err := FromRuns(base, cur, RunOptions{Map: c.maps}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.maps, err, c.want)
		}
	}
	for in, want := range map[string]string{"fixed-128": "want OLD=NEW", "=x": "want OLD=NEW", "a=b/c": "maps a chunking to a cell", "a=a": "to itself"} {
		if _, err := ParseMapping(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseMapping(%q): %v, want %q", in, err, want)
		}
	}
	if m, err := ParseMapping(" fixed-128 = fixed-256 "); err != nil || m != (Mapping{"fixed-128", "fixed-256"}) {
		t.Errorf("ParseMapping: %v, %v", m, err)
	}
}

// TestReadRunHistoryCSV: a history CSV (or any non-JSON file) given as the
// baseline is refused by name, saying a history file cannot be a baseline,
// not with a JSON parser's "invalid character".
func TestReadRunHistoryCSV(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"bench-history.csv": "run,time,config_hash,dataset_hash,cell,metric,value,commit\n1,2026-01-01T00:00:00Z,ab,cd,doc/bm25,ndcg@10,0.5,4021c53\n",
		"old-history.csv":   "run,time,config_hash,dataset_hash,cell,metric,value\n1,2026-01-01T00:00:00Z,ab,cd,doc/bm25,ndcg@10,0.5\n",
		"notes.txt":         "retrieval notes\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadRun(p)
		if err == nil {
			t.Fatalf("%s: no error", name)
		}
		msg := err.Error()
		for _, want := range []string{p, "a history file (bench-history.csv) cannot be a baseline", "per-query values", "docs/ci.md"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: error %q lacks %q", name, msg, want)
			}
		}
		if strings.HasSuffix(name, ".csv") != strings.Contains(msg, "is a history file of bench run") {
			t.Errorf("%s: error %q (a history file, with or without the commit column, is named as one)", name, msg)
		}
		if strings.Contains(msg, "invalid character") {
			t.Errorf("%s: error %q is the JSON parser's", name, msg)
		}
	}
}
