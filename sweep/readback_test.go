package sweep

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// ReadResults reads back what ResultsJSON wrote (cells, per-query values,
// significance) and refuses files that are not a results.json, naming
// them; ReadManifest likewise.
func TestReadBack(t *testing.T) {
	dir := t.TempDir()
	cfg := loadSmall(t, dir)
	res, err := Run(t.Context(), cfg, Options{NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadResults(filepath.Join(cfg.Output, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Cells) != len(res.Cells) || !reflect.DeepEqual(got.Cells[2].PerQuery, res.Cells[2].PerQuery) ||
		!reflect.DeepEqual(got.Significance.Pairs, res.Significance.Pairs) || got.Config.GateMetric() != "ndcg@3" {
		t.Errorf("results.json does not read back as written")
	}
	man, err := ReadManifest(filepath.Join(cfg.Output, "manifest.json"))
	if err != nil || man.Dataset == "" || len(man.Files) == 0 {
		t.Errorf("manifest: %+v, %v", man, err)
	}
	for name, content := range map[string]string{"notjson.json": "{", "other.json": `{"a": 1}`, "noname.json": `{"cells": [{}]}`} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		if _, err := ReadResults(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v, want one naming the file", name, err)
		}
		if _, err := ReadManifest(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("manifest %s: error %v, want one naming the file", name, err)
		}
	}
	if got := cfg.MetricAt("recall"); got != "recall@3" {
		t.Errorf("MetricAt(recall) = %s, want recall@3 (prompt_k)", got)
	}
}

// TestReadResultsGarbled: a hand-edited or corrupted results.json whose
// cells repeat a name or hold a per-query value outside [0, 1] (every
// metric family is a proportion) is refused, naming the file, cell, query
// and metric — the gate would otherwise compare against the last copy of a
// cell, or against a value no run can produce.
func TestReadResultsGarbled(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct{ content, want string }{
		"dup cell":  {`{"cells": [{"name": "doc/bm25"}, {"name": "doc/bm25"}]}`, `cell #2: name "doc/bm25" already used by cell #1`},
		"negative":  {`{"cells": [{"name": "doc/bm25", "per_query": {"q1": {"ndcg@10": -5}}}]}`, `cell "doc/bm25": per_query "q1": ndcg@10 = -5, outside [0, 1]`},
		"huge":      {`{"cells": [{"name": "doc/bm25", "per_query": {"q1": {"ndcg@10": 1e300}}}]}`, `ndcg@10 = 1e+300, outside [0, 1]`},
		"mean huge": {`{"cells": [{"name": "doc/bm25", "means": {"all": {"ndcg@10": 2}}}]}`, `cell "doc/bm25": means "all": ndcg@10 = 2, outside [0, 1]`},
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".json")
		if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadResults(p)
		if err == nil || !strings.Contains(err.Error(), p+": "+tc.want) && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to contain %q", name, err, tc.want)
		}
	}
}
