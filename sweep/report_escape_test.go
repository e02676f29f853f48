package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportEscapesLabels: slice labels and query ids come from the user's
// files; in report.md they must not open HTML tags (GitHub and other
// renderers would drop or run them) nor break out of their code span.
func TestReportEscapesLabels(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	corpus, err := os.ReadFile("testdata/small/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	queries, err := os.ReadFile("testdata/small/queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	q := strings.NewReplacer(`"q5"`, "\"q`<img/src=x/onerror=alert(2)>`\"", `"kind": "unanswerable"`, `"kind": "<script>alert(1)</script>"`).Replace(string(queries))
	os.WriteFile(filepath.Join(data, "corpus.jsonl"), corpus, 0o644)
	os.WriteFile(filepath.Join(data, "queries.jsonl"), []byte(q), 0o644)
	cfg, err := Load("testdata/small.yaml", LoadOptions{DataDir: data, Output: filepath.Join(dir, "out"), CacheDir: filepath.Join(dir, "cache")})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(t.Context(), cfg, Options{NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	md := Report(res)
	if i := strings.Index(md, "<script>"); i >= 0 {
		t.Errorf("report.md holds <script> unescaped: …%s…", md[max(0, i-40):min(len(md), i+40)])
	}
	for _, want := range []string{
		"### &lt;script&gt;alert(1)&lt;/script&gt; (0 answerable queries)",
		"- `` q`<img/src=x/onerror=alert(2)>` `` capital of peru (&lt;script&gt;alert(1)&lt;/script&gt;)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}
