package sweep

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/results"
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
	got, err := results.ReadResults(filepath.Join(cfg.Output, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Cells) != len(res.Cells) || !reflect.DeepEqual(got.Cells[2].PerQuery, res.Cells[2].PerQuery) ||
		!reflect.DeepEqual(got.Significance.Pairs, res.Significance.Pairs) || got.Config.GateMetric() != "ndcg@3" {
		t.Errorf("results.json does not read back as written")
	}
	man, err := results.ReadManifest(filepath.Join(cfg.Output, "manifest.json"))
	if err != nil || man.Dataset == "" || len(man.Files) == 0 {
		t.Errorf("manifest: %+v, %v", man, err)
	}
	for name, content := range map[string]string{"notjson.json": "{", "other.json": `{"a": 1}`, "noname.json": `{"cells": [{}]}`} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		if _, err := results.ReadResults(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v, want one naming the file", name, err)
		}
		if _, err := results.ReadManifest(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("manifest %s: error %v, want one naming the file", name, err)
		}
	}
	if got := cfg.MetricAt("recall"); got != "recall@3" {
		t.Errorf("MetricAt(recall) = %s, want recall@3 (prompt_k)", got)
	}
}
