//go:build e2e

package eval

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ragbench/ragbench/eval/internal/synth"
)

// TestE2EStreamingLargeRun evaluates a 5,000-query × 1,000-result synthetic
// run (200 MB, about 50 chunks of the default size, so most queries are
// evaluated inside worker chunks and some straddle two) both streamed and in
// memory, and requires identical per-query values and means.
func TestE2EStreamingLargeRun(t *testing.T) {
	dir := t.TempDir()
	qp, rp, err := synth.Write(dir, synth.Config{Queries: 5000, Docs: 1000, Rel: 20, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	qrels, _, err := ReadQrels(qp)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := ParseMeasures([]string{"all_trec", "ndcg_exp_cut.10", "judged.10", "mrr@10"})
	if err != nil {
		t.Fatal(err)
	}
	run, err := ReadRun(rp)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Evaluate(qrels, run, ms, TrecEvalOptions())
	if err != nil {
		t.Fatal(err)
	}
	got, info, err := EvaluateRunFile(qrels, rp, ms, TrecEvalOptions())
	if err != nil {
		t.Fatal(err)
	}
	if info.Results != 5000*1000 || len(got.Queries) != 5000 {
		t.Fatalf("results %d, queries %d", info.Results, len(got.Queries))
	}
	got.Options, want.Options = Options{}, Options{}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(Measure{}, measureParams{}, levelGain{})); d != "" {
		t.Errorf("streamed vs in memory (-want +got):\n%s", d)
	}
}
