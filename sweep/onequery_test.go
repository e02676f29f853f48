package sweep

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/report"
)

// TestOneAnswerableQuery (issue 26): one answerable query (and one
// unanswerable) over small.yaml's cells writes every output; the paired
// tests between cells have p = 1 and no confidence interval — null in
// results.json, not NaN (which panicked writing it, leaving an empty output
// folder) nor a made-up [0, 0] — and report.html's bars over one query
// draw no interval.
func TestOneAnswerableQuery(t *testing.T) {
	dir := t.TempDir()
	cfg, res := runSmallEdited(t, dir, func(q string) string {
		lines := strings.Split(q, "\n")
		return lines[0] + "\n" + lines[4] + "\n" // q1 (answerable), q5 (unanswerable)
	})
	b, err := os.ReadFile(filepath.Join(cfg.Output, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Significance struct {
			Pairs []map[string]any `json:"pairs"`
		} `json:"significance"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Significance.Pairs) == 0 {
		t.Fatal("no paired test in results.json")
	}
	for _, p := range got.Significance.Pairs {
		if lo, hi := p["ci_low"], p["ci_high"]; lo != nil || hi != nil || p["p"] != 1.0 {
			t.Errorf("pair %v vs %v over one query: p %v, interval [%v, %v]; want p 1 and null bounds", p["a"], p["b"], p["p"], lo, hi)
		}
	}
	page, err := report.Page(res, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range page.Slices {
		for _, bar := range sc.Bars {
			if sc.N == 1 && (!math.IsNaN(bar.Low) || !math.IsNaN(bar.High)) {
				t.Errorf("report.html %s, %s: one query, interval [%v, %v] drawn; want none", sc.Group, bar.Label, bar.Low, bar.High)
			}
		}
	}
}

// TestTunedOneHeldOutQuery (issue 26): a tuned cell whose held-out split
// has one query, the chosen setting not the default, is tested against the
// default on that query: p = 1, no interval (null), and the tuning cache
// and results.json are written. Before, the interval was NaN and writing
// the tuning cache panicked ("cannot marshal *sweep.Tuning").
func TestTunedOneHeldOutQuery(t *testing.T) {
	seed := -1
	for s := range 100 {
		if IsHeldOut("q00", int64(s), 0.5) != IsHeldOut("q01", int64(s), 0.5) {
			seed = s
			break
		}
	}
	if seed < 0 {
		t.Fatal("no seed splits q00 and q01")
	}
	a, b := eval.Run{}, eval.Run{}
	gold := map[string][]string{}
	for _, q := range []string{"q00", "q01"} {
		g, x := "g"+q[1:], "x"+q[1:]
		gold[q] = []string{g}
		// RRF of a and b ties g and x, which trec_eval's order puts x first:
		// the default loses to a alone (weights 1, 0) on both queries.
		a[q] = []eval.Result{{DocID: g, Score: 2}, {DocID: x, Score: 1}}
		b[q] = []eval.Result{{DocID: x, Score: 2}, {DocID: g, Score: 1}}
	}
	p, be := tuneFixture(t, map[string]eval.Run{"a": a, "b": b}, gold, fmt.Sprintf(`retrievers:
  - {name: a, type: bm25}
  - {name: b, type: bm25, k1: 1.2}
  - {name: tuned, type: hybrid, inputs: [a, b], fusion: combsum, normalization: minmax, weights: [[1, 0], [1, 1]]}
k: [1, 3]
prompt_k: 3
significance: {permutations: 1000}
heldout: {fraction: 0.5, seed: %d}
`, seed))
	cfg := loadFixture(t, p)
	res, err := Run(t.Context(), cfg, Options{NoHistory: true, backend: &be})
	if err != nil {
		t.Fatal(err)
	}
	tu := res.Cells[2].Tuning
	if tu == nil || tu.HeldOutQueries != 1 || tu.Chosen.Name == tu.Default.Name || tu.Test == nil {
		t.Fatalf("tuning %+v: want one held-out query, a chosen setting other than the default, and its test", tu)
	}
	if tu.Test.P != 1 || tu.Test.CILow != nil || tu.Test.CIHigh != nil {
		t.Errorf("test over one held-out query: p %v, interval [%v, %v]; want p 1, no interval", tu.Test.P, tu.Test.CILow, tu.Test.CIHigh)
	}
	b2, err := os.ReadFile(filepath.Join(cfg.Output, "results.json"))
	if err != nil || !json.Valid(b2) {
		t.Fatalf("results.json: %v", err)
	}
	if !strings.Contains(string(b2), `"ci_low": null`) {
		t.Errorf("results.json has no null interval")
	}
}

// TestNonFiniteScoreIsAnError: a retriever giving a NaN or infinite score
// fails its cell with an error naming the query and doc, before any
// output or cache is written (issue 26: writing the run cache panicked on
// it, hashkey.JSON's "cannot marshal"; JSON has no NaN).
func TestNonFiniteScoreIsAnError(t *testing.T) {
	for _, bad := range []float64{math.NaN(), math.Inf(1)} {
		a := eval.Run{"q00": {{DocID: "g00", Score: bad}, {DocID: "x00", Score: 1}}, "q01": {{DocID: "g01", Score: 1}}}
		p, be := tuneFixture(t, map[string]eval.Run{"a": a}, map[string][]string{"q00": {"g00"}, "q01": {"g01"}}, "retrievers:\n  - {name: a, type: bm25}\nk: [1]\n")
		cfg := loadFixture(t, p)
		_, err := Run(t.Context(), cfg, Options{NoHistory: true, backend: &be})
		if want := fmt.Sprintf(`cell doc/a: query "q00": doc "g00": score %v is not a finite number`, bad); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("score %v: error %v, want %q", bad, err, want)
		}
		if _, err := os.Stat(filepath.Join(cfg.Output, "results.json")); err == nil {
			t.Errorf("score %v: results.json written", bad)
		}
	}
}
