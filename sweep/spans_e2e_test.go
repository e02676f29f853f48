//go:build e2e

package sweep

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/internal/testenv"
	"github.com/ragbench/ragbench/results"
)

// TestE2EChromaSweep is issue 12's acceptance through bench run's own path
// (Load, Run: folder corpus, Chroma's questions.csv span labels, the
// "tokens" chunker, the dense retriever, span measures in results): a sweep
// of state_of_the_union indexed alone with tokens/cl100k_base chunks and
// all-MiniLM-L6-v2 reproduces all 60 published rows of
// ../shared/datasets/chunking-chroma/reference/ (token recall, precision,
// IoU in percent at n = 1..10 for 6 sizes × overlaps) to 0.01 percentage
// points.
func TestE2EChromaSweep(t *testing.T) {
	shared := testenv.Shared(t, "datasets/chunking-chroma")
	model := testenv.Model(t, "all-minilm-l6-v2")
	const doc = "state_of_the_union"
	data := chromaSOTUData(t, shared, doc)
	ref, cells := testenv.ChromaReference(t, shared)
	cfgPath := chromaSweepConfig(t, data, cells, model)
	dir := t.TempDir()
	cfg, err := Load(cfgPath, LoadOptions{DataDir: data, Output: filepath.Join(dir, "out"), CacheDir: filepath.Join(dir, "cache"), History: filepath.Join(dir, "h.csv")})
	if err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(testenv.RepoRoot(), "third_party", "onnxruntime", "libonnxruntime.so")
	if env := os.Getenv("ONNXRUNTIME_LIB"); env != "" {
		lib = env
	}
	res, err := Run(t.Context(), cfg, Options{ONNXRuntime: lib, NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	match, worst := 0, 0.0
	for _, c := range res.Cells {
		if c.Counts[results.GroupAll] != 76 {
			t.Errorf("%s: %d queries averaged, want 76", c.Name, c.Counts[results.GroupAll])
		}
		for k := 1; k <= 10; k++ {
			want, ok := ref[[3]int{c.Chunking.Size, c.Chunking.Overlap, k}]
			if !ok {
				t.Fatalf("%s: no reference row for n=%d", c.Name, k)
			}
			m := c.Means[results.GroupAll]
			got := testenv.ChromaRow{Recall: 100 * m[config.MetricName("token_recall", k)], Precision: 100 * m[config.MetricName("token_precision", k)], IoU: 100 * m[config.MetricName("token_iou", k)]}
			good := true
			for _, d := range [][2]float64{{got.Recall, want.Recall}, {got.Precision, want.Precision}, {got.IoU, want.IoU}} {
				worst = max(worst, math.Abs(d[0]-d[1]))
				good = good && math.Abs(d[0]-d[1]) <= 0.01+1e-9
			}
			if good {
				match++
			} else {
				t.Errorf("%s n=%d: recall %.4f precision %.4f IoU %.4f; published %.2f %.2f %.2f", c.Name, k, got.Recall, got.Precision, got.IoU, want.Recall, want.Precision, want.IoU)
			}
		}
	}
	if match != 60 {
		t.Errorf("%d of 60 published rows reproduced", match)
	}
	t.Logf("%d of 60 rows within 0.01 points; largest difference %.4f points", match, worst)
}

// chromaSOTUData is a data folder holding doc alone (corpora/doc.md from
// shared) and Chroma's questions.csv cut to doc's 76 rows, in Chroma's CSV
// form.
func chromaSOTUData(t *testing.T, shared, doc string) string {
	t.Helper()
	data := t.TempDir()
	text, err := os.ReadFile(filepath.Join(shared, "corpora", doc+".md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(data, "corpora"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "corpora", doc+".md"), text, 0o644); err != nil {
		t.Fatal(err)
	}
	// questions.csv cut to state_of_the_union's rows, as Chroma's CSV.
	f, err := os.Open(filepath.Join(shared, "questions.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	w := csv.NewWriter(&sb)
	n := 0
	for i, r := range recs {
		if i == 0 || r[2] == doc {
			w.Write(r)
			n++
		}
	}
	w.Flush()
	if n-1 != 76 {
		t.Fatalf("%d state_of_the_union questions, want 76", n-1)
	}
	if err := os.WriteFile(filepath.Join(data, "questions.csv"), []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return data
}

// chromaSweepConfig writes the sweep's config into data: every (size,
// overlap) cell of the published table as a tokens/cl100k_base chunking,
// one dense retriever on model, the token measures at k = 1..10. It
// returns the config's path.
func chromaSweepConfig(t *testing.T, data string, cells [][2]int, model string) string {
	t.Helper()
	overlaps := map[int][]int{}
	var sizes []int
	for _, c := range cells {
		if overlaps[c[0]] == nil {
			sizes = append(sizes, c[0])
		}
		overlaps[c[0]] = append(overlaps[c[0]], c[1])
	}
	var yml strings.Builder
	yml.WriteString("name: chroma-sotu\ndataset:\n  corpus: corpora\n  queries: questions.csv\n  title: false\nchunking:\n")
	for _, s := range sizes {
		fmt.Fprintf(&yml, "  - {strategy: tokens, tokenizer: cl100k_base, sizes: [%d], overlaps: %s}\n", s, strings.Join(strings.Fields(fmt.Sprint(overlaps[s])), ", "))
	}
	fmt.Fprintf(&yml, "retrievers:\n  - {name: dense, type: dense, model: %s}\nk: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\nmetrics: [token_recall, token_precision, token_iou]\nsignificance: {permutations: 100}\n", model)
	cfgPath := filepath.Join(data, "chroma.yaml")
	if err := os.WriteFile(cfgPath, []byte(yml.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfgPath
}
