package eval

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// writeRun writes lines to a temp file and returns its path.
func writeRun(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// synthetic builds qrels and a TREC run with ties, unjudged docs, graded
// judgements, a run query without qrels and a qrels query without results.
func synthetic(seed uint64, queries, docs int, shuffle bool) (Qrels, string) {
	rng := rand.New(rand.NewPCG(seed, 1))
	qrels := Qrels{}
	var lines []string
	for q := 0; q < queries; q++ {
		qid := fmt.Sprintf("q%03d", q)
		judg := map[string]int{}
		for d := 0; d < docs*2; d++ {
			if rng.IntN(4) == 0 {
				judg[fmt.Sprintf("d%d", d)] = rng.IntN(4) - 1 // -1 … 2
			}
		}
		if q%7 == 3 {
			judg = map[string]int{"d0": 0} // unanswerable
		}
		qrels[qid] = judg
		if q%11 == 5 {
			continue // missing from the run
		}
		for d := 0; d < docs; d++ {
			score := float64(rng.IntN(docs / 2)) // many ties
			lines = append(lines, fmt.Sprintf("%s Q0 d%d %d %g tag", qid, rng.IntN(docs*2)*1000+d, d+1, score))
		}
	}
	for d := 0; d < 5; d++ {
		lines = append(lines, fmt.Sprintf("zz Q0 d%d %d 1 tag", d, d+1))
	}
	if shuffle {
		rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	}
	return qrels, strings.Join(lines, "\n") + "\n"
}

// TestEvaluateRunFileMatchesEvaluate checks that the streaming evaluator gives
// exactly Evaluate's numbers, whatever the chunk size, worker count, tie
// policy or line order (interleaved queries fall back to the in-memory path).
func TestEvaluateRunFileMatchesEvaluate(t *testing.T) {
	ms, err := ParseMeasures([]string{"all_trec", "ndcg_exp_cut.10", "judged.10", "mrr@10"})
	if err != nil {
		t.Fatal(err)
	}
	defer func(n int) { chunkSize = n }(chunkSize)
	for _, shuffle := range []bool{false, true} {
		qrels, content := synthetic(7, 40, 60, shuffle)
		path := writeRun(t, "run.trec", content)
		run, err := ReadRun(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, opts := range []Options{DefaultOptions(), TrecEvalOptions(), {RelevanceLevel: 2, MaxResults: 25, TieBreak: TieInputOrder, CompleteQueries: true}} {
			want, err := Evaluate(qrels, run, ms, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, cs := range []int{64, 1000, 1 << 20} {
				for _, workers := range []int{1, 3} {
					chunkSize = cs
					o := opts
					o.Workers = workers
					got, info, err := EvaluateRunFile(qrels, path, ms, o)
					if err != nil {
						t.Fatalf("shuffle %v chunk %d workers %d: %v", shuffle, cs, workers, err)
					}
					if info.Tag != "tag" || info.Results != len(strings.Split(strings.TrimSpace(content), "\n")) {
						t.Errorf("info = %+v", info)
					}
					got.Options, want.Options = Options{}, Options{}
					if d := cmp.Diff(want, got, cmp.AllowUnexported(Measure{}, measureParams{}, levelGain{})); d != "" {
						t.Fatalf("shuffle %v chunk %d workers %d opts %+v (-Evaluate +EvaluateRunFile):\n%s", shuffle, cs, workers, opts, d)
					}
				}
			}
		}
	}
}

// TestEvaluateRunFileErrors checks that the streaming path reports bad lines
// with the same file:line: field messages as ReadRun, including a duplicate
// doc whose two lines lie in different chunks.
func TestEvaluateRunFileErrors(t *testing.T) {
	defer func(n int) { chunkSize = n }(chunkSize)
	qrels := Qrels{"q1": {"d1": 1}, "q2": {"d1": 1}}
	ms, _ := ParseMeasures([]string{"map"})
	var long strings.Builder
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&long, "q1 Q0 x%d %d 0.5 t\n", i, i)
	}
	cases := map[string]string{
		"q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 x t\n":                                 `run.trec:2: score: not a number: "x"`,
		"q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 NaN t\n":                               `run.trec:2: score: not finite: "NaN"`,
		"q1 Q0 d1 1 0.5 t\nq1 d2 2 0.4 t\n":                                  "run.trec:2: line: TREC run line needs 6 fields (qid Q0 docid rank score tag), got 5",
		"q1 Q0 d1 1 0.5 t\n" + long.String() + "q1 Q0 d1 2 0.4 t\n":          `run.trec:52: doc id: query "q1" retrieves doc "d1" twice (trec_eval rejects duplicate docs)`,
		"q0 Q0 a 1 1 t\nq2 Q0 d1 1 0.5 t\nq2 Q0 d1 2 0.4 t\nq3 Q0 a 1 1 t\n": `run.trec:3: doc id: query "q2" retrieves doc "d1" twice (trec_eval rejects duplicate docs)`,
		"": "run.trec: no results found (empty run file)",
	}
	for content, want := range cases {
		for _, cs := range []int{16, 1 << 20} {
			chunkSize = cs
			path := writeRun(t, "run.trec", content)
			_, _, err := EvaluateRunFile(qrels, path, ms, DefaultOptions())
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Errorf("chunk %d, %q: error %v, want %s", cs, content, err, want)
				continue
			}
			if got := strings.ReplaceAll(err.Error(), filepath.Dir(path)+string(filepath.Separator), ""); got != want {
				t.Errorf("chunk %d:\n got  %s\n want %s", cs, got, want)
			}
		}
	}
}

// TestEvaluateRunFileFormats checks the ranx JSON path and a gzip-compressed
// TREC run against Evaluate on the same data.
func TestEvaluateRunFileFormats(t *testing.T) {
	qrels := Qrels{"q1": {"a": 1, "b": 2}, "q2": {"c": 1}}
	run := Run{"q1": {{"b", 0.3}, {"x", 0.9}, {"a", 0.3}}, "q2": {{"c", 2}}}
	ms, _ := ParseMeasures([]string{"map", "ndcg@10", "mrr@1"})
	want, err := Evaluate(qrels, run, ms, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	jp := filepath.Join(dir, "run.json")
	os.WriteFile(jp, []byte(`{"q1": {"b": 0.3, "x": 0.9, "a": 0.3}, "q2": {"c": 2}}`), 0o644)
	gp := filepath.Join(dir, "run.trec.gz")
	if err := WriteRunFile(gp, run, "t"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{jp, gp} {
		got, _, err := EvaluateRunFile(qrels, p, ms, DefaultOptions())
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if d := cmp.Diff(want.Means, got.Means); d != "" || !cmp.Equal(want.Values, got.Values) {
			t.Errorf("%s: means (-Evaluate +EvaluateRunFile):\n%s", filepath.Base(p), d)
		}
	}
}
