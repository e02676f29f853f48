package sweep

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/results"
	"github.com/ragbench/ragbench/spans"
)

// handbookLabels writes span labels over cmd/bench's handbook corpus (two
// pages: policies/leave, it/passwords) and a config sweeping them with
// fixed-8 and bm25, and loads it.
func handbookLabels(t *testing.T, labels string) (*Config, string) {
	t.Helper()
	dir := t.TempDir()
	abs, err := filepath.Abs("../cmd/bench/testdata/labels/corpus")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"labels.jsonl": labels,
		"c.yaml":       "name: handbook\ndataset: {corpus: " + abs + ", queries: labels.jsonl, title: false}\nchunking: [{strategy: fixed, sizes: [8]}]\nretrievers: [{name: bm25, type: bm25}]\nk: [1, 3]\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return loadConfig(t, filepath.Join(dir, "c.yaml"), dir, dir), dir
}

// TestMovedSpanLabels is issue 20 item 2 in bench run: a label whose exact
// text moved in its document ("Tell your manager…" labelled at [0, 48),
// now at [180, 228)) is placed at its new offsets, with a counted note in
// the warnings (results.json and report.md) and results.json "labels";
// the manifest records the digest of the labels as placed, which is the
// digest of the labels with their offsets corrected by hand. A label whose
// text changed (one word) is refused, as is one whose document is gone,
// both in one error with their hints.
func TestMovedSpanLabels(t *testing.T) {
	moved := `{"id": "first-day", "question": "I am ill, who do I tell", "gold_spans": [{"doc": "policies/leave", "start": 0, "end": 48, "text": "Tell your manager before 10:00 on the first day."}]}
{"id": "unlock", "question": "who can unlock my account", "gold_spans": [{"doc": "it/passwords", "text": "Administrators can unlock an account at once."}, {"doc": "it/passwords", "text": "# Passwords", "grade": 0}]}
`
	cfg, dir := handbookLabels(t, moved)
	res, err := Run(context.Background(), cfg, Options{NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	note := ""
	for _, w := range res.Warnings {
		if strings.Contains(w, "moved") {
			note = w
		}
	}
	for _, want := range []string{"1 span label moved and was placed at its new offsets", "[0, 48) → [180, 228)", "bench labels check --corpus CORPUS --fix " + filepath.Join(dir, "labels.jsonl")} {
		if !strings.Contains(note, want) {
			t.Errorf("moved note %q lacks %q", note, want)
		}
	}
	if want := (results.LabelNotes{Judgements: 3, NotRelevant: 1, Moved: 1}); res.Labels == nil || *res.Labels != want {
		t.Errorf("labels %+v, want %+v", res.Labels, want)
	}
	report, _ := os.ReadFile(filepath.Join(cfg.Output, "report.md"))
	if !strings.Contains(string(report), "1 span label moved") {
		t.Error("report.md lacks the moved note")
	}
	var m results.Manifest
	b, _ := os.ReadFile(filepath.Join(cfg.Output, "manifest.json"))
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	docs, err := corpus.Load(cfg.Dataset.Corpus)
	if err != nil {
		t.Fatal(err)
	}
	fixedPath := filepath.Join(t.TempDir(), "fixed.jsonl")
	if err := os.WriteFile(fixedPath, []byte(strings.Replace(moved, `"start": 0, "end": 48`, `"start": 180, "end": 228`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	fixed, err := spans.Read(fixedPath, docs)
	if err != nil {
		t.Fatal(err)
	}
	if m.LabelsDigest == "" || m.LabelsDigest != spans.Digest(fixed) {
		t.Errorf("manifest labels_digest %q, want the digest of the corrected labels %q", m.LabelsDigest, spans.Digest(fixed))
	}

	bad := moved + `{"id": "new-password", "question": "can I reuse an old password", "gold_spans": [{"doc": "it/passwords", "start": 85, "end": 119, "text": "it must differ from the last three."}]}
{"id": "vpn", "question": "do I need the VPN", "gold_spans": [{"doc": "it/vpn", "text": "Connect to the VPN before opening the intranet."}]}
`
	cfg, _ = handbookLabels(t, bad)
	_, cerr := Check(context.Background(), cfg, CheckOptions{Chunkings: true})
	_, rerr := Run(context.Background(), cfg, Options{NoHistory: true})
	for _, err := range []error{cerr, rerr} {
		if err == nil {
			t.Fatal("changed and lost labels accepted")
		}
		for _, want := range []string{"labels.jsonl:3: gold_spans[0]", "89% similar", "labels.jsonl:4: gold_spans[0]", `doc "it/vpn"`, "bench labels check"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error lacks %q:\n%v", want, err)
			}
		}
		if strings.Contains(err.Error(), "labels.jsonl:1:") {
			t.Errorf("the moved label is reported as a problem:\n%v", err)
		}
	}
}

// TestAlternativesInSweep is issue 20 item 5 in bench run: labels giving
// a group of alternatives (spans/testdata/alternatives, docs/spans.md's
// worked example) pass --check and the run, and a cell's chunk-level and
// span measures are the values the docs compute by hand for the example's
// run (faq#1, faq#0, manual#1, manual#0, manual#2): the group's
// representative is the FAQ's answer, so recall@1 = 1/3, recall@3 = 2/3,
// nDCG@3 = 1.5/2.1309, nDCG@5 = 1.8869/2.1309, span_recall@3 = 2/3.
func TestAlternativesInSweep(t *testing.T) {
	dir := t.TempDir()
	data, err := filepath.Abs("../spans/testdata/alternatives")
	if err != nil {
		t.Fatal(err)
	}
	yaml := "name: alt\ndataset: {corpus: corpus, queries: labels.jsonl, title: false}\nchunking: [{strategy: sentence, sizes: [7]}]\nretrievers: [{name: bm25, type: bm25}]\nmetrics: [recall, ndcg, span_recall]\nk: [1, 3, 5]\nprompt_k: 3\n"
	if err := os.WriteFile(filepath.Join(dir, "c.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := loadConfig(t, filepath.Join(dir, "c.yaml"), data, dir)
	rep, err := Check(context.Background(), cfg, CheckOptions{Chunkings: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), cfg, Options{NoHistory: true}); err != nil {
		t.Fatalf("run: %v", err)
	}
	ds := rep.ds
	chunks, err := cfg.Chunkings()[0].Spec().Chunk(ds.docs)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ds.newSpanCells(cfg, chunks)
	if err != nil {
		t.Fatal(err)
	}
	run := eval.Run{"login": {{DocID: "faq#1", Score: 0.9}, {DocID: "faq#0", Score: 0.8}, {DocID: "manual#1", Score: 0.7}, {DocID: "manual#0", Score: 0.6}, {DocID: "manual#2", Score: 0.5}}}
	scores, err := cellScores(context.Background(), cfg, ds, sc, run)
	if err != nil {
		t.Fatal(err)
	}
	idcg := 1 + 1/math.Log2(3) + 1/math.Log2(4)
	for name, want := range map[string]float64{
		"recall@1": 1.0 / 3, "recall@3": 2.0 / 3, "recall@5": 1, "ndcg@1": 1,
		"ndcg@3": (1 + 1/math.Log2(4)) / idcg, "ndcg@5": (1 + 1/math.Log2(4) + 1/math.Log2(6)) / idcg,
		"span_recall@1": 1.0 / 3, "span_recall@3": 2.0 / 3, "span_recall@5": 1,
	} {
		if got := scores[name]["login"]; math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if got := scores["ndcg@3"]["login"]; math.Abs(got-0.7039) > 5e-5 {
		t.Errorf("ndcg@3 = %.4f, docs/spans.md says 0.7039", got)
	}
	in := cellInputs{cell: Cell{Name: "sentence-7/x"}, run: run, chunks: chunks, spans: sc}
	var cr results.CellResult
	if err := cellMisses(t.Context(), cfg, ds, in, &cr); err != nil {
		t.Fatal(err)
	}
	if len(cr.SpanMisses) != 1 || cr.SpanMisses[0].Text != "Administrators can unlock an account at once." || cr.SpansTotal != 3 {
		t.Errorf("misses at k = 3: %+v of %d passages; want R2 alone of 3", cr.SpanMisses, cr.SpansTotal)
	}
}
