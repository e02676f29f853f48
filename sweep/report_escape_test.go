package sweep

import (
	"strings"
	"testing"

	"github.com/ragbench/ragbench/report"
)

// TestReportEscapesLabels: slice labels and query ids come from the user's
// files; in report.md they must not open HTML tags (GitHub and other
// renderers would drop or run them) nor break out of their code span.
func TestReportEscapesLabels(t *testing.T) {
	_, res := runSmallEdited(t, t.TempDir(), strings.NewReplacer(`"q5"`, "\"q`<img/src=x/onerror=alert(2)>`\"", `"kind": "unanswerable"`, `"kind": "<script>alert(1)</script>"`).Replace)
	md := report.Markdown(res)
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
