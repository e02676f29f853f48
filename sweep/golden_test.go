package sweep

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/internal/testenv"
)

// update rewrites the golden files of TestGoldenOutputs: go test ./sweep
// -run TestGoldenOutputs -update. Review the diff before committing: the
// golden files are the record of what a user reads.
var update = flag.Bool("update", false, "rewrite sweep/testdata/golden/*")

// TestGoldenOutputs pins report.md and results.json of testdata/small.yaml
// byte for byte, apart from what legitimately changes between runs: the
// "timings" member of results.json and the report's last section ("##
// Timings"), and the absolute path of the data folder (written as $DATA).
// The numbers inside are checked against hand-computed values by
// TestSmallSweep; this test catches every other change of format, order or
// wording, which is then either a fix (update the golden files in the same
// commit, saying why) or a regression.
func TestGoldenOutputs(t *testing.T) {
	dir := t.TempDir()
	cfg := loadSmall(t, dir)
	if _, err := Run(t.Context(), cfg, Options{NoHistory: true}); err != nil {
		t.Fatal(err)
	}
	data, err := filepath.Abs("testdata/small")
	if err != nil {
		t.Fatal(err)
	}
	norm := func(b []byte) []byte { return bytes.ReplaceAll(b, []byte(data), []byte("$DATA")) }

	report, err := os.ReadFile(filepath.Join(cfg.Output, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if i := bytes.Index(report, []byte("\n## Timings")); i >= 0 {
		// No cell is cached in this run: the legend explains the column,
		// it does not claim a cached run.
		if tm := report[i:]; bytes.Contains(tm, []byte("A cached run was read")) || !bytes.Contains(tm, []byte("cached: yes when the cell's run was read from the run cache")) {
			t.Errorf("the Timings legend of a run with no cached cell:\n%s", tm)
		}
		report = report[:i+1]
	} else {
		t.Fatal("report.md has no Timings section")
	}

	raw, err := os.ReadFile(filepath.Join(cfg.Output, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		t.Fatal(err)
	}
	if _, ok := members["timings"]; !ok {
		t.Fatal("results.json has no timings member")
	}
	delete(members, "timings")
	results, err := json.MarshalIndent(members, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	results = append(results, '\n')

	for name, got := range map[string][]byte{"small.report.md": norm(report), "small.results.json": norm(results)} {
		path := filepath.Join("testdata", "golden", name)
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the golden file (go test ./sweep -run TestGoldenOutputs -update rewrites it):\n%s", name, firstDiff(string(want), string(got)))
		}
	}
}

// firstDiff shows the first differing line of want and got with its number.
func firstDiff(want, got string) string {
	d := testenv.DiffLines(strings.Split(want, "\n"), strings.Split(got, "\n"))
	if len(d) == 0 {
		return "(same lines, different bytes)"
	}
	return "line " + strconv.Itoa(d[0].Line) + ":\n  want: " + d[0].Want + "\n  got:  " + d[0].Got
}
