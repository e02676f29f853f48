package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/internal/testenv"
)

// judgedRef is ir_measures' Judged@k, per query, of a TREC run against
// TREC qrels: {"q1": {"1": v, "3": v}}.
const judgedRef = `
import json, sys
import ir_measures
from ir_measures import Judged
ks = [int(k) for k in sys.argv[3].split(",")]
qrels = list(ir_measures.read_trec_qrels(sys.argv[1]))
run = list(ir_measures.read_trec_run(sys.argv[2]))
out = {}
for m in ir_measures.iter_calc([Judged @ k for k in ks], qrels, run):
    out.setdefault(m.query_id, {})[str(m.measure.params["cutoff"])] = m.value
json.dump(out, sys.stdout)
`

// TestJudgedCoverageIRMeasures: each cell's judged@k in results.json, in
// every group (all, tuning, held out, each slice), is the mean over the
// group's answerable queries of ir_measures' Judged@k of the cell's own
// run (runs/<cell>.trec) against the labels as TREC qrels — incomplete
// ones: the small dataset judges only its gold passages, so what else the
// cells return is unjudged. Six cells in five groups, document-level (doc chunking and
// fixed-4 through MaxP).
func TestJudgedCoverageIRMeasures(t *testing.T) {
	py := testenv.Python(t)
	dir := t.TempDir()
	cfg := loadSmall(t, dir)
	res, err := Run(context.Background(), cfg, Options{NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Check(context.Background(), cfg, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var qrels strings.Builder
	for q, m := range rep.ds.qrels {
		for d, g := range m {
			fmt.Fprintf(&qrels, "%s 0 %s %d\n", q, d, g)
		}
	}
	qp := filepath.Join(dir, "qrels.txt")
	if err := os.WriteFile(qp, []byte(qrels.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	checked, below1 := 0, false
	for _, c := range res.Cells {
		run := filepath.Join(cfg.Output, "runs", strings.ReplaceAll(c.Name, "/", "__")+".trec")
		if _, err := os.Stat(run); err != nil {
			matches, _ := filepath.Glob(filepath.Join(cfg.Output, "runs", "*"))
			t.Fatalf("no run file for %s: %v (runs: %v)", c.Name, err, matches)
		}
		out, err := exec.Command(py, "-c", judgedRef, qp, run, "1,3").Output()
		if err != nil {
			t.Fatalf("%s: ir_measures: %v", c.Name, err)
		}
		var ref map[string]map[string]float64
		if err := json.Unmarshal(out, &ref); err != nil {
			t.Fatal(err)
		}
		for g, ids := range res.Groups {
			for _, k := range []string{"1", "3"} {
				sum := 0.0
				for _, id := range ids {
					sum += ref[id][k]
				}
				want := sum / float64(len(ids))
				got := c.Judged.Judged[g]["judged@"+k]
				if math.Abs(got-want) > 1e-12 {
					t.Errorf("%s %s judged@%s = %v, ir_measures %v", c.Name, g, k, got, want)
				}
				below1 = below1 || got < 1
				checked++
			}
		}
	}
	if checked < len(res.Cells)*2*4 || !below1 {
		t.Errorf("%d values checked, some below 1: %v; want incomplete judgements in every cell and group", checked, below1)
	}
}
