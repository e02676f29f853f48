package eval

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadQrelsLines checks the line recorded for each judgement against
// the files' own line numbers, counted by hand: blank and comment lines and
// the BEIR header count as lines; JSONL judgements take their query's line;
// ranx JSON gives none.
func TestReadQrelsLines(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, text string
		want       map[Judgement]int
	}{
		{"trec", "# a comment\nq1 0 d1 1\n\nq1 0 d2 0\nq2 0 d1 2\n",
			map[Judgement]int{{"q1", "d1"}: 2, {"q1", "d2"}: 4, {"q2", "d1"}: 5}},
		{"beir", "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td3\t1\n",
			map[Judgement]int{{"q1", "d1"}: 2, {"q2", "d3"}: 3}},
		{"jsonl", "{\"id\":\"q1\",\"question\":\"a\",\"gold\":[\"d1\",\"d2\"]}\n\n{\"id\":\"q2\",\"question\":\"b\",\"gold\":{\"d5\":2}}\n",
			map[Judgement]int{{"q1", "d1"}: 1, {"q1", "d2"}: 1, {"q2", "d5"}: 3}},
		{"ranx", "{\"q1\": {\"d1\": 1}}\n", map[Judgement]int{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, c.name)
			if err := os.WriteFile(p, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			q, _, lines, err := ReadQrelsLines(p)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, lines); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			q2, _, err := ReadQrels(p)
			if err != nil || !cmp.Equal(q, q2) {
				t.Errorf("ReadQrels and ReadQrelsLines disagree: %v %v (%v)", q, q2, err)
			}
		})
	}
}
