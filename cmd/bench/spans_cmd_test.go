package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunSpanLabelsBadInput: span labels that do not match the corpus stop
// 'bench run' before any work (exit 1, no cache or output written) with an
// error naming file:line: a span past the end of its document, a quote not
// found, a quote found twice, a quote that differs from the document at the
// given offsets, a document that does not exist, and a Chroma questions.csv
// row whose corpus_id names no file of the folder corpus. The corpus is
// sweep/testdata/spans/corpus (a = "alpha bravo charlie delta echo foxtrot
// golf hotel", 49 code points and a newline).
func TestRunSpanLabelsBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, f := range []string{"a.md", "b.md"} {
		b, err := os.ReadFile(filepath.Join("../../sweep/testdata/spans/corpus", f))
		if err != nil {
			t.Fatal(err)
		}
		write(filepath.Join("corpus", f), string(b))
	}
	good := `{"id": "q1", "question": "charlie", "gold_spans": [{"doc": "a", "text": "delta echo"}]}` + "\n"
	for _, c := range []struct {
		name, file, labels, want, says string
	}{
		{"past the end", "end.jsonl", good + `{"id": "q2", "question": "x", "gold_spans": [{"doc": "a", "start": 40, "end": 60}]}`, ":2: ", "outside the document"},
		{"quote not found", "absent.jsonl", good + `{"id": "q2", "question": "x", "gold_spans": [{"doc": "a", "text": "zulu yankee"}]}`, ":2: ", "not found"},
		{"quote found twice", "twice.jsonl", good + `{"id": "q2", "question": "x", "gold_spans": [{"doc": "a", "text": "ha"}]}`, ":2: ", "found more than once"},
		{"text differs at offsets", "differs.jsonl", `{"id": "q1", "question": "x", "gold_spans": [{"doc": "a", "start": 0, "end": 5, "text": "alphx"}]}`, ":1: ", "text differs from the document"},
		{"no such doc", "nodoc.jsonl", good + `{"id": "q2", "question": "x", "gold_spans": [{"doc": "c", "start": 0, "end": 5}]}`, ":2: ", "no such document"},
		{"corpus_id without a file", "questions.csv", "question,references,corpus_id\n" +
			`"charlie?","[{""content"": ""delta echo"", ""start_index"": 20, ""end_index"": 30}]",a` + "\n" +
			`"papa?","[{""content"": ""oscar papa"", ""start_index"": 37, ""end_index"": 47}]",nope` + "\n", ":3: ", `no document "nope"`},
	} {
		labels := write(c.file, c.labels+"\n")
		cfg := write(c.file+".yaml", "dataset: {corpus: corpus, queries: "+c.file+", title: false}\nchunking: [{strategy: fixed, sizes: [4]}]\nretrievers: [{name: a, type: bm25}]\nk: [1]\n")
		out := filepath.Join(dir, "out-"+c.file)
		var stdout, stderr bytes.Buffer
		code := run(&stdout, &stderr, []string{"run", "--data-dir", dir, "--no-history", "--output", out, "--cache-dir", filepath.Join(dir, "cache-"+c.file), cfg})
		if code != 1 {
			t.Errorf("%s: exit %d, want 1; stderr:\n%s", c.name, code, stderr.String())
			continue
		}
		for _, want := range []string{labels + c.want, c.says} {
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("%s: stderr %q lacks %q", c.name, stderr.String(), want)
			}
		}
		t.Logf("%s: %s", c.name, strings.TrimSpace(stderr.String()))
		for _, p := range []string{out, filepath.Join(dir, "cache-"+c.file)} {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("%s: %s written before the error", c.name, p)
			}
		}
	}
}

// TestRunCheckSpanLabels: 'bench run --check' on the span-labelled fixture
// says the labels are spans and counts the queries (3, 1 unanswerable).
func TestRunCheckSpanLabels(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run(&out, &errb, []string{"run", "--check", "--data-dir", "../../sweep/testdata/spans", "--output", filepath.Join(dir, "out"), "--cache-dir", filepath.Join(dir, "cache"), "--no-history", "../../sweep/testdata/spans.yaml"}); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errb.String())
	}
	if want := "dataset     spans: 2 documents, 3 queries (2 answerable: 2 tuning, 0 held out; 1 unanswerable), span labels (chunk judgements derived per chunking), slices: multi, single, unanswerable\n"; !strings.Contains(out.String(), want) {
		t.Errorf("--check output lacks %q:\n%s", want, out.String())
	}
}
