package results

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadPreviousVersion: a results.json written by the version before
// the config had a package and the retrievers kinds of their own
// (sweep/testdata/golden/small.results.json: its config, cells with bm25
// and hybrid retrievers, significance) reads back, and writes back byte
// for byte: the config and every cell's retriever keep their JSON shape,
// so the gate reads baselines of earlier runs.
func TestReadPreviousVersion(t *testing.T) {
	golden := filepath.Join("..", "sweep", "testdata", "golden", "small.results.json")
	raw, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ReadResults(golden)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, c := range res.Cells {
		kinds[c.Retriever.Type] = true
	}
	if len(res.Cells) != 6 || res.Config.GateMetric() != "ndcg@3" || !kinds["bm25"] || !kinds["hybrid"] {
		t.Fatalf("read back: %d cells, gate metric %s, kinds %v", len(res.Cells), res.Config.GateMetric(), kinds)
	}
	var want map[string]json.RawMessage
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]json.RawMessage
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	for _, member := range []string{"config", "cells", "significance", "dataset", "metrics"} {
		var w, g bytes.Buffer
		json.Compact(&w, want[member])
		json.Compact(&g, back[member])
		if w.String() != g.String() {
			t.Errorf("%s does not write back as read:\n got %.300s\nwant %.300s", member, g.String(), w.String())
		}
	}
	for _, c := range res.Cells {
		if c.Retriever.Settings == nil {
			t.Errorf("%s: retriever %q of type %q has no settings", c.Name, c.Retriever.Name, c.Retriever.Type)
		}
	}
}

// TestReadUnknownKind: a retriever of a kind this version does not know
// (written by a newer one) is kept as written, not refused.
func TestReadUnknownKind(t *testing.T) {
	p := filepath.Join(t.TempDir(), "results.json")
	r := `{"name":"svc","type":"grpc","url_env":"SVC_URL","version":"v2"}`
	if err := os.WriteFile(p, []byte(`{"config": {"retrievers": [`+r+`]}, "cells": [{"name": "doc/svc", "retriever": `+r+`}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := ReadResults(p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res.Cells[0].Retriever)
	if err != nil || string(b) != r {
		t.Errorf("unknown kind writes back as %s (%v), want %s", b, err, r)
	}
}

// TestReadResultsGarbled: a hand-edited or corrupted results.json whose
// cells repeat a name or hold a per-query value outside [0, 1] or not a
// number (null, which encoding/json read as 0; a string) (every
// metric family is a proportion) is refused, naming the file, cell, query
// and metric — the gate would otherwise compare against the last copy of a
// cell, or against a value no run can produce.
func TestReadResultsGarbled(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct{ content, want string }{
		"dup cell": {`{"cells": [{"name": "doc/bm25"}, {"name": "doc/bm25"}]}`, `cell #2: name "doc/bm25" already used by cell #1`},
		"negative": {`{"cells": [{"name": "doc/bm25", "per_query": {"q1": {"ndcg@10": -5}}}]}`, `cell "doc/bm25": per_query "q1": ndcg@10 = -5, outside [0, 1]`},
		"huge":     {`{"cells": [{"name": "doc/bm25", "per_query": {"q1": {"ndcg@10": 1e300}}}]}`, `ndcg@10 = 1e+300, outside [0, 1]`},
		// A null was read as 0, a string refused without naming the cell
		// or the query (the tester's findings).
		"null":      {`{"cells": [{"name": "doc/bm25", "per_query": {"q1": {"ndcg@3": null}}}]}`, `cell "doc/bm25": per_query "q1": ndcg@3 is null, not a number`},
		"string":    {`{"cells": [{"name": "doc/bm25", "per_query": {"q1": {"ndcg@3": "0.5"}}}]}`, `cell "doc/bm25": per_query "q1": ndcg@3 = "0.5", not a number`},
		"mean null": {`{"cells": [{"name": "a"}, {"name": "doc/bm25", "means": {"all": {"recall@10": null}}}]}`, `cell "doc/bm25": means "all": recall@10 is null`},
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
