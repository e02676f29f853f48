package passages_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/pipetest"
	"github.com/ragbench/ragbench/passages"
	"github.com/ragbench/ragbench/spans"
)

// spanNames are the measures the reference scorer computes, at k = 1, 5,
// 10.
func spanNames() []string {
	var out []string
	for _, f := range spans.AtK {
		for _, k := range []int{1, 5, 10} {
			out = append(out, spans.MeasureName(f, k))
		}
	}
	return out
}

// TestScorerHandbook checks the handbook's run in its four styles (and a
// run with unmapped, repeated and tied passages) against the independent
// Python scorer (pipelines/reference/score.py), every query and measure to
// 1e-9. The reference pipelines' runs are checked against it by
// TestE2EReferencePipelines.
func TestScorerHandbook(t *testing.T) {
	docs, qs := handbook(t)
	dir := t.TempDir()
	styles := map[string]string{
		"mixed": `{"qid": "carry-over", "results": [{"text": "nowhere to be found", "score": 3}, {"doc": "policies/leave", "start": 33, "end": 129, "score": 3}, {"text": "leave", "score": 3}, {"doc": "policies/leave", "start": 33, "end": 129, "score": 2}, {"text": "year; the rest\tlapse on 31 March.", "score": 4}]}
{"qid": "sick-note", "results": [{"doc": "policies/leave", "text": "day."}, {"text": "From the fourth day"}, {"doc": "policies/leave", "start": 228, "end": 277, "unit": "bytes"}]}
{"qid": "not-labelled", "results": []}
`,
	}
	for k, v := range handbookStyles {
		styles[k] = v
	}
	for name, text := range styles {
		t.Run(name, func(t *testing.T) {
			f := filepath.Join(dir, name+".jsonl")
			if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			run, err := passages.Read(f, passages.NewLocator(docs))
			if err != nil {
				t.Fatal(err)
			}
			sc, err := run.Scored(docs)
			if err != nil {
				t.Fatal(err)
			}
			e, err := passages.Evaluate(qs, sc, nil, passages.Options{Span: spanNames(), CoverShare: spans.DefaultCoverShare, Eval: eval.DefaultOptions()})
			if err != nil {
				t.Fatal(err)
			}
			ref := pipetest.Score(t, "../spans/testdata/handbook", "../spans/testdata/handbook-labels.jsonl", f, 1, 5, 10)
			if run.UnmappedRate() != ref.UnmappedRate || e.NumQ != ref.Queries {
				t.Errorf("unmapped rate %v, %d queries; the scorer %v, %d", run.UnmappedRate(), e.NumQ, ref.UnmappedRate, ref.Queries)
			}
			for i, q := range e.Queries {
				if !e.InMean[i] {
					continue
				}
				for j, m := range e.Measures {
					if d := math.Abs(e.Values[i][j] - ref.PerQuery[q][m.Name]); d > 1e-9 {
						t.Errorf("query %s %s = %v, the scorer %v", q, m.Name, e.Values[i][j], ref.PerQuery[q][m.Name])
					}
				}
			}
		})
	}
}
