package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// nonFinite finds a NaN or an infinity written as text: JSON has neither
// (encoding/json refuses them), so one in a JSON output was written by
// hand or through a string; in a table it is a number nobody can use.
var nonFinite = regexp.MustCompile(`(?i)\b(nan|[+-]?inf(inity)?)\b`)

// TestNoNonFiniteJSON (issue 26's acceptance): no output of any command
// holds NaN or an infinity, over tiny inputs — 0 to 3 queries (answerable
// or not, with or without a hit), 1 to 3 cells, tuning on and off, held-out
// fractions from none to most. Each trial runs bench run (results.json,
// manifest.json, misses.jsonl, the run and tuning caches, report.md,
// report.html, the history CSV), then on its runs bench eval --format json
// (all_trec, per query), bench compare --format json, bench fuse (and eval
// of the fused run), bench attribute --format json and bench history. Every
// command exits 0 or 1 (an error it explains: no query, no answerable
// query), never panics; every JSON output parses and holds no NaN or
// Infinity. Before, one answerable query and two BM25 cells passed --check,
// ran every cell, then panicked writing results.json (a confidence
// interval over one query), leaving an empty output folder; a tuned cell
// whose held-out split had one query panicked the same way.
func TestNoNonFiniteJSON(t *testing.T) {
	words := []string{"eiffel", "tower", "paris", "seine", "gate", "berlin", "rome", "colosseum", "tokyo", "crossing"}
	rng := rand.New(rand.NewPCG(26, 2))
	pick := func(n int) string {
		var w []string
		for range n {
			w = append(w, words[rng.IntN(len(words))])
		}
		return strings.Join(w, " ")
	}
	ran := 0
	for trial := range 48 {
		nq, nCells, tuned := trial%4, 1+(trial/4)%3, (trial/12)%2 == 1
		dir := t.TempDir()
		nDocs := 1 + rng.IntN(4)
		var corpus, queries strings.Builder
		for d := range nDocs {
			fmt.Fprintf(&corpus, `{"_id": "d%d", "title": "", "text": %q}`+"\n", d, pick(1+rng.IntN(4)))
		}
		for q := range nq {
			gold := []string{}
			for d := range nDocs {
				if rng.IntN(3) == 0 {
					gold = append(gold, fmt.Sprintf("d%d", d))
				}
			}
			text := pick(1 + rng.IntN(2))
			if rng.IntN(4) == 0 {
				text = "zebra" // found nowhere: an empty ranking
			}
			g, _ := json.Marshal(gold)
			fmt.Fprintf(&queries, `{"id": "q%d", "question": %q, "gold": %s}`+"\n", q, text, g)
		}
		retrievers := "  - {name: bm25, type: bm25}\n"
		switch {
		case tuned:
			retrievers += "  - {name: bm25b, type: bm25, k1: 0.3, b: 0.9}\n  - {name: tuned, type: hybrid, inputs: [bm25, bm25b], fusion: [rrf, combsum, dbsf], normalization: [minmax, zscore], weights: [[1, 1], [1, 0]]}\n"
		case nCells >= 2:
			retrievers += "  - {name: bm25b, type: bm25, k1: 0.3, b: 0.9}\n"
			if nCells == 3 {
				retrievers += "  - {name: fused, type: hybrid, inputs: [bm25, bm25b], fusion: combsum, normalization: zscore}\n"
			}
		}
		fraction := []string{"0", "0.2", "0.5", "0.9"}[rng.IntN(4)]
		cfg := fmt.Sprintf("name: tiny\ndataset: {corpus: corpus.jsonl, queries: queries.jsonl}\nchunking:\n  - strategy: doc\nretrievers:\n%sk: [1, 3]\nprompt_k: 3\nsignificance: {permutations: 200}\nheldout: {fraction: %s, seed: %d}\n",
			retrievers, fraction, rng.IntN(10))
		files := map[string]string{"corpus.jsonl": corpus.String(), "queries.jsonl": queries.String(), "c.yaml": cfg}
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		label := fmt.Sprintf("trial %d (%d queries, %d cells, tuned %v, held out %s)", trial, nq, nCells, tuned, fraction)
		out, cache, hist := filepath.Join(dir, "out"), filepath.Join(dir, "cache"), filepath.Join(dir, "history.csv")
		code, stdout, stderr := runBench("run", "--progress", "none", "--output", out, "--cache-dir", cache, "--history", hist, filepath.Join(dir, "c.yaml"))
		checkCommand(t, label+": bench run", code, stdout, stderr)
		if code != 0 {
			if nq > 0 && !strings.Contains(stderr, "no answerable query") {
				t.Errorf("%s: bench run: exit %d: %s", label, code, stderr)
			}
			continue
		}
		ran++
		checkOutputFiles(t, label, out, cache, hist)
		qrels := filepath.Join(dir, "queries.jsonl")
		runs, _ := filepath.Glob(filepath.Join(out, "runs", "*.trec"))
		for _, r := range runs {
			code, stdout, stderr = runBench("eval", "--format", "json", "-q", "-m", "all_trec", qrels, r)
			checkJSONCommand(t, label+": bench eval "+filepath.Base(r), code, stdout, stderr)
			answers := filepath.Join(dir, "answers.jsonl")
			var ab strings.Builder
			for q := range nq {
				fmt.Fprintf(&ab, `{"qid": "q%d", "correct": %v}`+"\n", q, rng.IntN(2) == 0)
			}
			os.WriteFile(answers, []byte(ab.String()), 0o644)
			code, stdout, stderr = runBench("attribute", "--run", r, "--qrels", qrels, "--answers", answers, "--format", "json")
			checkJSONCommand(t, label+": bench attribute "+filepath.Base(r), code, stdout, stderr)
		}
		if len(runs) >= 2 {
			interval := []string{"bca", "percentile", "t"}[rng.IntN(3)]
			args := append([]string{"compare", "--qrels", qrels, "-c", "--format", "json", "--interval", interval, "--equivalence", "0.05", "--detect", "0.1"}, runs...)
			code, stdout, stderr = runBench(args...)
			checkJSONCommand(t, label+": bench compare", code, stdout, stderr)
			method := []string{"rrf", "combsum", "combmnz", "dbsf", "harmonic", "geometric"}[rng.IntN(6)]
			norms := []string{"minmax", "sum", "rank", "borda"} // harmonic and geometric take these only
			if method != "harmonic" && method != "geometric" {
				norms = append(norms, "zscore", "max", "none")
			}
			args = []string{"fuse", "--method", method}
			if method != "rrf" && method != "dbsf" {
				args = append(args, "--norm", norms[rng.IntN(len(norms))])
			}
			args = append(args, runs[:2]...)
			code, stdout, stderr = runBench(args...)
			checkCommand(t, label+": bench "+strings.Join(args[:len(args)-2], " "), code, stdout, stderr)
			if code == 0 && stdout != "" {
				fused := filepath.Join(dir, "fused.trec")
				os.WriteFile(fused, []byte(stdout), 0o644)
				code, stdout, stderr = runBench("eval", "--format", "json", "-q", "-m", "all_trec", qrels, fused)
				checkJSONCommand(t, label+": bench eval of the fused run", code, stdout, stderr)
			}
		}
		code, stdout, stderr = runBench("history", "--format", "md", hist)
		checkCommand(t, label+": bench history", code, stdout, stderr)
	}
	if ran < 12 {
		t.Errorf("only %d of 48 trials ran the sweep: the inputs are too often refused to test the outputs", ran)
	}
}

// checkCommand fails when a command exited other than 0 or 1 (a usage
// error here is the test's; a panic exits 2 too) or wrote NaN or an
// infinity on stdout.
func checkCommand(t *testing.T, label string, code int, stdout, stderr string) {
	t.Helper()
	if code != 0 && code != 1 || strings.Contains(stderr, "panic") {
		t.Errorf("%s: exit %d, stderr:\n%s", label, code, stderr)
	}
	if m := nonFinite.FindString(stdout); m != "" {
		t.Errorf("%s: %q in its output:\n%s", label, m, stdout)
	}
}

// checkJSONCommand is checkCommand for a command writing JSON: when it
// succeeds, stdout is one JSON document.
func checkJSONCommand(t *testing.T, label string, code int, stdout, stderr string) {
	t.Helper()
	checkCommand(t, label, code, stdout, stderr)
	if code == 0 && !json.Valid([]byte(stdout)) {
		t.Errorf("%s: stdout is not JSON:\n%s", label, stdout)
	}
}

// checkOutputFiles checks every file bench run wrote (outputs, caches,
// history): JSON files parse, JSON lines each parse, and no file holds NaN
// or an infinity.
func checkOutputFiles(t *testing.T, label string, dirs ...string) {
	t.Helper()
	for _, root := range dirs {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasSuffix(p, ".bleve") || strings.Contains(p, "bm25"+string(filepath.Separator)) {
				return nil // bleve's index files are binary
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Errorf("%s: %v", label, err)
				return nil
			}
			switch {
			case strings.HasSuffix(p, ".json") && !json.Valid(b):
				t.Errorf("%s: %s is not JSON:\n%s", label, p, b)
			case strings.HasSuffix(p, ".jsonl"):
				sc := bufio.NewScanner(bytes.NewReader(b))
				sc.Buffer(nil, 1<<24)
				for sc.Scan() {
					if !json.Valid(sc.Bytes()) {
						t.Errorf("%s: %s: a line is not JSON: %s", label, p, sc.Text())
					}
				}
			}
			if !strings.HasSuffix(p, ".json") && !strings.HasSuffix(p, ".jsonl") && !strings.HasSuffix(p, ".md") &&
				!strings.HasSuffix(p, ".html") && !strings.HasSuffix(p, ".csv") && !strings.HasSuffix(p, ".trec") {
				return nil
			}
			if m := nonFinite.Find(b); m != nil {
				i := bytes.Index(b, m)
				t.Errorf("%s: %s holds %q: …%s…", label, p, m, b[max(0, i-80):min(len(b), i+80)])
			}
			return nil
		})
	}
}
