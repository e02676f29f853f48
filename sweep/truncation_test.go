package sweep

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/testenv"
	"github.com/ragbench/ragbench/kinds"
	"github.com/ragbench/ragbench/results"
	"github.com/ragbench/ragbench/retrievers"
)

// TestTruncationCounted is issue 24's "truncation counted" through a whole
// sweep: all-minilm-l6-v2 reads at most 256 tokens ([CLS] and [SEP]
// included). The document is 400 copies of "alpha" (one WordPiece token
// each in the model's vocabulary), cut by fixed-300 into chunks of 300 and
// 100 words: 302 and 102 tokens, so one chunk is cut by 302 − 256 = 46.
// One query is 260 copies of "beta" (262 tokens: cut by 6), the other two
// words. By hand, not from ragbench's output: results.json's truncation and
// report.md's warning must say exactly this.
func TestTruncationCounted(t *testing.T) {
	model := testenv.Model(t, "all-minilm-l6-v2")
	if os.Getenv("ONNXRUNTIME_LIB") == "" {
		t.Skip("ONNXRUNTIME_LIB is not set: the embedder's tokenizer is loaded with its model")
	}
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	if err := os.MkdirAll(corpus, 0o755); err != nil {
		t.Fatal(err)
	}
	doc := strings.TrimSpace(strings.Repeat("alpha ", 400))
	if err := os.WriteFile(filepath.Join(corpus, "d.md"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	long := strings.TrimSpace(strings.Repeat("beta ", 260))
	labels := fmt.Sprintf(`{"id": "long", "question": %q, "gold_spans": [{"doc": "d", "start": 0, "end": 5, "text": "alpha"}]}
{"id": "short", "question": "alpha beta", "gold_spans": [{"doc": "d", "start": 0, "end": 5, "text": "alpha"}]}
`, long)
	if err := os.WriteFile(filepath.Join(dir, "labels.jsonl"), []byte(labels), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "c.yaml")
	cfgText := fmt.Sprintf(`dataset: {corpus: corpus, queries: labels.jsonl, title: false}
chunking:
  - {strategy: fixed, sizes: [300]}
retrievers:
  - {name: dense, type: dense, model: %s}
k: [1]
prompt_k: 1
significance: {permutations: 100}
heldout: {fraction: 0}
`, model)
	if err := os.WriteFile(p, []byte(cfgText), 0o644); err != nil {
		t.Fatal(err)
	}
	// The cell's search is not what is tested: a fixed run, so no chunk is
	// embedded; the truncation counts come from the model's tokenizer.
	be := defaultBackend()
	be.wrapSearch = func(c *kinds.Cell, _ kinds.Settings, _ func() (retrievers.Retriever, error)) (retrievers.Retriever, error) {
		return kinds.StaticRetriever{Run: eval.Run{"long": {{DocID: "d#0", Score: 1}}, "short": {{DocID: "d#0", Score: 1}}}}, nil
	}
	cfg := loadFixture(t, p)
	res, err := Run(t.Context(), cfg, Options{NoHistory: true, backend: &be})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cells) != 1 || len(res.Cells[0].Truncation) != 1 {
		t.Fatalf("want one cell with one truncation record, got %+v", res.Cells)
	}
	got := res.Cells[0].Truncation[0]
	want := results.Truncation{Retriever: "dense", Model: "all-minilm-l6-v2", Kind: "embedder", MaxLength: 256,
		Chunks: 2, ChunksTruncated: 1, ChunkTokensCutMedian: 46, ChunkTokensCutMax: 46,
		Queries: 2, QueriesTruncated: 1, QueryTokensCutMax: 6}
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
		t.Errorf("truncation\n got  %+v\n want %+v", got, want)
	}
	warn := "chunking fixed-300: embedder all-minilm-l6-v2 (retriever dense and any other using it) reads at most 256 tokens: 1 of 2 chunks are longer and embedded cut (median 46 tokens cut, at most 46); 1 of 2 queries are cut (at most 6 tokens)"
	found := false
	for _, w := range res.Warnings {
		found = found || strings.Contains(w, warn)
	}
	if !found {
		t.Errorf("no warning %q in %q", warn, res.Warnings)
	}
	md, err := os.ReadFile(filepath.Join(cfg.Output, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), warn) {
		t.Errorf("report.md lacks the truncation warning %q", warn)
	}
}
