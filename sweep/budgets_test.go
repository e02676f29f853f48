package sweep

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/pkoukk/tiktoken-go-loader/assets"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/testenv"
	"github.com/ragbench/ragbench/spans"
)

// tiktokenCache is a TIKTOKEN_CACHE_DIR holding cl100k_base's BPE file
// (tiktoken-go-loader's, the one ragbench embeds) under the name tiktoken
// looks for, the sha1 of its download URL: Python's tiktoken then loads it
// offline.
func tiktokenCache(t *testing.T) string {
	t.Helper()
	b, err := assets.Assets.ReadFile("cl100k_base.tiktoken")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum := sha1.Sum([]byte("https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"))
	if err := os.WriteFile(filepath.Join(dir, hex.EncodeToString(sum[:])), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// overlapRun ranks, for each query, the 40 chunks sharing the most
// distinct lower-cased words with it (a stand-in retriever: the measures
// are functions of any ranking; this one puts gold text near the top, where
// budgets cut it).
func overlapRun(qs []spans.Query, chunks []corpus.Chunk) eval.Run {
	words := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			m[w] = true
		}
		return m
	}
	cw := make([]map[string]bool, len(chunks))
	for i, c := range chunks {
		cw[i] = words(c.Text)
	}
	run := eval.Run{}
	for _, q := range qs {
		qw := words(q.Text)
		var l []eval.Result
		for i, c := range chunks {
			n := 0
			for w := range qw {
				if cw[i][w] {
					n++
				}
			}
			l = append(l, eval.Result{DocID: c.ID, Score: float64(n)})
		}
		eval.Sort(l, eval.TieDocIDDesc)
		run[q.ID] = l[:min(40, len(l))]
	}
	return run
}

// TestPromptBudgetsMatchPython: the span measures at prompt budgets of 256,
// 1,024 and 2,048 tokens (spans.EvaluateBudgets with the sweep's
// cl100k_base counts, the last chunk cut to the tokens left) and the prompt
// tokens at k = 5 equal, to 1e-9, an independent computation in Python with
// tiktoken (testdata/reference/budgets.py, written from docs/spans.md), on
// Chroma's three corpora and 276 questions, under two chunkings:
// tokens-cl100k_base-200o100 and recursive-cl100k_base-400.
func TestPromptBudgetsMatchPython(t *testing.T) {
	python := testenv.Python(t)
	root := testenv.Shared(t, "datasets/chunking-chroma")
	docs, err := corpus.LoadFolder(filepath.Join(root, "corpora"))
	if err != nil {
		t.Fatal(err)
	}
	questions := filepath.Join(root, "questions.csv")
	qs, err := spans.Read(questions, docs)
	if err != nil {
		t.Fatal(err)
	}
	ds := &dataset{docs: docs, docByID: corpus.IndexDocs(docs)}
	for _, q := range qs {
		if len(q.Gold) > 0 {
			ds.answerable = append(ds.answerable, q.ID)
		}
	}
	budgets := []int{256, 1024, 2048}
	const k = 5
	type chunking struct {
		Chunks  map[string][3]any   `json:"chunks"`
		Ranking map[string][]string `json:"ranking"`
	}
	in := map[string]any{"corpus": filepath.Join(root, "corpora"), "questions": questions, "budgets": budgets, "k": k, "share": 0.5}
	chs := map[string]chunking{}
	got := map[string]*spans.BudgetEvaluation{}
	gotTokens := map[string]map[string]int{}
	for _, name := range []string{"tokens-cl100k_base-200o100", "recursive-cl100k_base-400"} {
		spec, err := corpus.ParseSpec(name)
		if err != nil {
			t.Fatal(err)
		}
		chunks, err := spec.Chunk(docs)
		if err != nil {
			t.Fatal(err)
		}
		ch, err := spans.NewChunking(docs, chunks)
		if err != nil {
			t.Fatal(err)
		}
		pt, err := newPromptTokens(&Config{}, ds, chunks, ds.chunkIndex(chunks))
		if err != nil {
			t.Fatal(err)
		}
		run := overlapRun(qs, chunks.Slice())
		ev, err := spans.EvaluateBudgets(qs, ch, run, budgets, pt, spans.Options{CoverShare: 0.5, TieBreak: eval.TieDocIDDesc})
		if err != nil {
			t.Fatal(err)
		}
		got[name] = ev
		c := chunking{Chunks: map[string][3]any{}, Ranking: map[string][]string{}}
		for id, iv := range ch.Intervals {
			c.Chunks[id] = [3]any{iv.Doc, iv.Start, iv.End}
		}
		gotTokens[name] = map[string]int{}
		for q, l := range run {
			for _, r := range l {
				c.Ranking[q] = append(c.Ranking[q], r.DocID)
			}
			for _, r := range l[:min(k, len(l))] {
				gotTokens[name][q] += pt.Tokens(r.DocID)
			}
		}
		chs[name] = c
		pk, err := cellPromptTokens(t.Context(), &Config{PromptK: k}, ds, pt, run)
		if err != nil {
			t.Fatal(err)
		}
		sum := 0
		for _, q := range ds.answerable {
			sum += gotTokens[name][q]
		}
		if want := float64(sum) / float64(len(ds.answerable)); pk.Mean != want {
			t.Errorf("%s: prompt tokens at k = %d: mean %v, want %v", name, k, pk.Mean, want)
		}
	}
	in["chunkings"] = chs
	inPath := filepath.Join(t.TempDir(), "in.json")
	b, _ := json.Marshal(in)
	if err := os.WriteFile(inPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, "testdata/reference/budgets.py", inPath)
	cmd.Env = append(os.Environ(), "TIKTOKEN_CACHE_DIR="+tiktokenCache(t))
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("budgets.py: %v\n%s", err, stderr.String())
	}
	var want map[string]struct {
		Budgets      map[string]map[string]map[string]float64 `json:"budgets"`
		PromptTokens map[string]int                           `json:"prompt_tokens"`
	}
	if err := json.Unmarshal(out.Bytes(), &want); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for name, ev := range got {
		w := want[name]
		for bi, budget := range budgets {
			wb := w.Budgets[strconv.Itoa(budget)]
			if len(wb) != len(ev.Queries) {
				t.Fatalf("%s @%d: Python scored %d queries, Go %d", name, budget, len(wb), len(ev.Queries))
			}
			for qi, q := range ev.Queries {
				for fi, f := range spans.AtK {
					if g, w := ev.Values[bi][fi][qi], wb[q][f]; math.Abs(g-w) > 1e-9 {
						t.Errorf("%s @%d tokens, query %s, %s: Go %v, Python %v", name, budget, q, f, g, w)
					}
					checked++
				}
				if g, w := ev.Chunks[bi][qi], int(wb[q]["chunks"]); g != w {
					t.Errorf("%s @%d tokens, query %s: %d chunks in the prompt, Python %d", name, budget, q, g, w)
				}
			}
		}
		for q, n := range w.PromptTokens {
			if gotTokens[name][q] != n {
				t.Errorf("%s, query %s: prompt tokens at k = %d: Go %d, Python %d", name, q, k, gotTokens[name][q], n)
			}
		}
	}
	if checked == 0 {
		t.Fatal("nothing compared")
	}
	t.Logf("%d values equal to 1e-9 over 2 chunkings × %d budgets", checked, len(budgets))
}
