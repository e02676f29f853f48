package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/internal/testenv"
)

// TestRunFlagsAfterConfig: 'bench run CONFIG --check' parses the flags that
// follow the config (exit 0), and an unknown flag there is a usage error.
func TestRunFlagsAfterConfig(t *testing.T) {
	cfg := "../../sweep/testdata/small.yaml"
	data := "../../sweep/testdata/small"
	var out, errb bytes.Buffer
	if code := run(&out, &errb, []string{"run", cfg, "--check", "--data-dir", data}); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errb.String())
	}
	if code := run(&out, &errb, []string{"run", cfg, "--check", "--bogus"}); code != 2 {
		t.Fatalf("unknown flag after CONFIG: exit %d, want 2", code)
	}
}

// TestRunProgressFlag: --progress auto with stderr not a terminal (a
// buffer, as in CI or '2> log') writes plain stage lines; plain forces
// them; none writes only the start line; a bad value is a usage error.
func TestRunProgressFlag(t *testing.T) {
	cfg := "../../sweep/testdata/small.yaml"
	data := "../../sweep/testdata/small"
	for _, mode := range []string{"auto", "plain", "none", "never"} {
		dir := t.TempDir()
		var out, errb bytes.Buffer
		args := []string{"run", "--data-dir", data, "--output", filepath.Join(dir, "out"), "--cache-dir", filepath.Join(dir, "cache"), "--no-history", cfg}
		if mode != "auto" {
			args = append(args, "--progress", mode)
		}
		if code := run(&out, &errb, args); code != 0 {
			t.Fatalf("--progress %s: exit %d, stderr:\n%s", mode, code, errb.String())
		}
		lines := strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n")
		if !strings.HasPrefix(lines[0], "bench run: ") || !strings.HasSuffix(lines[0], "small.yaml: 6 cells → "+filepath.Join(dir, "out")) {
			t.Errorf("--progress %s: first line %q", mode, lines[0])
		}
		plain := mode == "auto" || mode == "plain"
		if !plain {
			if len(lines) != 1 {
				t.Errorf("--progress %s: %d stderr lines, want only the start line:\n%s", mode, len(lines), errb.String())
			}
			continue
		}
		if strings.ContainsRune(errb.String(), '\r') {
			t.Errorf("--progress %s: carriage return in stderr", mode)
		}
		// Plain: 2 lines per stage: per chunking (2) 1 stage, per BM25
		// cell (4) index, search and score, per RRF cell (2) fuse and
		// score, then significance and writing: 2·(2 + 12 + 4 + 2) = 40.
		if got := len(lines) - 1; got != 40 {
			t.Errorf("--progress %s: %d progress lines, want 40:\n%s", mode, got, errb.String())
		}
		for _, want := range []string{"bench run: [1/6] doc/bm25: index 6 chunks …", "bench run: [6/6] fixed-4o1/rrf: fuse 6 queries done in "} {
			if !strings.Contains(errb.String(), want) {
				t.Errorf("--progress %s: stderr lacks %q:\n%s", mode, want, errb.String())
			}
		}
	}
	var out, errb bytes.Buffer
	if code := run(&out, &errb, []string{"run", "--progress", "always-ish", cfg}); code != 2 {
		t.Errorf("--progress always-ish: exit %d, want 2", code)
	}
	if !strings.Contains(errb.String(), "auto, bar, plain or none") {
		t.Errorf("usage error does not list the modes: %s", errb.String())
	}
}

// TestRunCheckBadInput: 'bench run --check' fails (exit 1) on what the real
// run would reject, before any work, with file:line errors: a gold id
// naming no corpus document, an output folder under a regular file, and
// permutations: 0. A good config passes and prints the dataset summary
// (small fixture: 6 passages, 6 queries, 4 answerable, 2 unanswerable;
// slices by kind: multi, single, unanswerable).
func TestRunCheckBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	corpus := "{\"id\": \"p-1\", \"text\": \"eiffel tower\"}\n{\"id\": \"p-2\", \"text\": \"berlin gate\"}\n"
	write("corpus.jsonl", corpus)
	write("good.jsonl", "{\"id\": \"q1\", \"question\": \"eiffel\", \"gold\": [\"p-1\"]}\n")
	write("typo.jsonl", "{\"id\": \"q1\", \"question\": \"eiffel\", \"gold\": [\"p-1\"]}\n{\"id\": \"q2\", \"question\": \"berlin\", \"gold\": [\"p2\"]}\n")
	write("afile", "x")
	cfg := func(name, queries, extra string) string {
		return write(name, "dataset: {corpus: corpus.jsonl, queries: "+queries+"}\nretrievers: [{name: a, type: bm25}]\nk: [1, 3]\n"+extra)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown gold", []string{cfg("typo.yaml", "typo.jsonl", "")}, filepath.Join(dir, "typo.jsonl") + ":2: gold: query \"q2\": doc \"p2\" is not in the corpus"},
		{"output under a file", []string{"--output", filepath.Join(dir, "afile", "out"), cfg("good.yaml", "good.jsonl", "")}, "is a file, not a folder"},
		{"permutations 0", []string{cfg("perm.yaml", "good.jsonl", "significance:\n  permutations: 0\n")}, filepath.Join(dir, "perm.yaml") + ":5: significance.permutations: 0 permutations"},
	} {
		var out, errb bytes.Buffer
		args := append([]string{"run", "--check", "--data-dir", dir, "--no-history"}, c.args...)
		if code := run(&out, &errb, args); code != 1 {
			t.Errorf("%s: exit %d, want 1; stdout:\n%s", c.name, code, out.String())
		}
		if !strings.Contains(errb.String(), c.want) {
			t.Errorf("%s: stderr %q lacks %q", c.name, errb.String(), c.want)
		}
	}
	var out, errb bytes.Buffer
	if code := run(&out, &errb, []string{"run", "--check", "--data-dir", "../../sweep/testdata/small", "--output", filepath.Join(dir, "out"), "--cache-dir", filepath.Join(dir, "cache"), "--history", filepath.Join(dir, "h.csv"), "../../sweep/testdata/small.yaml"}); code != 0 {
		t.Fatalf("good config: exit %d, stderr:\n%s", code, errb.String())
	}
	if want := "dataset     small: 6 documents, 6 queries (4 answerable: "; !strings.Contains(out.String(), want) || !strings.Contains(out.String(), "2 unanswerable), document-level qrels, slices: multi, single, unanswerable\n") {
		t.Errorf("--check output lacks the dataset summary:\n%s", out.String())
	}
	for _, p := range []string{"out", "cache", "h.csv"} {
		if _, err := os.Stat(filepath.Join(dir, p)); !os.IsNotExist(err) {
			t.Errorf("--check left %s behind", p)
		}
	}
}

// TestShownPath: bench run prints an output path inside the working folder
// relative to it, and one outside it absolute, never as "../../tmp/out".
func TestShownPath(t *testing.T) {
	root := t.TempDir()
	wd := filepath.Join(root, "work", "repo")
	if err := os.MkdirAll(wd, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(wd)
	out := filepath.Join(root, "out", "report.md")
	for _, c := range []struct{ in, want string }{
		{filepath.Join(wd, "results", "x", "report.md"), filepath.Join("results", "x", "report.md")},
		{filepath.Join("results", "report.md"), filepath.Join("results", "report.md")},
		{out, out},
		{filepath.Join("..", "..", "out", "report.md"), out},
	} {
		if got := shownPath(c.in); got != c.want {
			t.Errorf("shownPath(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestRunCheckEngines: 'bench run --check' dials an engine retriever's
// node: a node answering /_cluster/health is listed with its cluster and
// status (exit 0); a node nobody listens on fails the check (exit 1) with
// the config's file:line and the node.
func TestRunCheckEngines(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/_cluster/health" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"cluster_name":"team","status":"green","number_of_nodes":3}`))
	}))
	defer srv.Close()
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()
	dir := t.TempDir()
	for _, c := range []struct {
		url, want string
		code      int
	}{
		{srv.URL, "engine      " + srv.URL + " (es, ok): cluster team, status green, 3 nodes\n", 0}, // one connection, both retrievers
		{downURL, `c.yaml:9: retrievers[1].urls: retriever "es": engine: node ` + downURL + " unreachable: ", 1},
		// The node that answered is listed before the error.
		{downURL, "engine      " + srv.URL + " (ok): cluster team, status green, 3 nodes\n", 1},
	} {
		yaml := "dataset:\n  corpus: corpus.jsonl\n  queries: queries.jsonl\nretrievers:\n  - {name: bm25, type: bm25}\n  - name: es\n    type: elasticsearch\n    query: bm25\n    urls: [" + c.url + "]\n  - {name: ok, type: elasticsearch, query: bm25, urls: [" + srv.URL + "]}\nk: [1, 3]\n"
		p := writeConfig(t, dir, yaml)
		var out, errb bytes.Buffer
		code := run(&out, &errb, []string{"run", "--check", "--no-history", "--data-dir", "../../sweep/testdata/small", "--output", filepath.Join(dir, "out"), "--cache-dir", filepath.Join(dir, "cache"), p})
		if code != c.code || !strings.Contains(out.String()+errb.String(), c.want) {
			t.Errorf("node %s: exit %d (want %d), output lacks %q:\n%s%s", c.url, code, c.code, c.want, out.String(), errb.String())
		}
	}
}

// TestRunCheckOffline: --check --offline contacts no engine (a node nobody
// listens on passes), lists each cluster once with its retrievers as not
// contacted, and exits 0; --offline without --check is a usage error (2).
func TestRunCheckOffline(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()
	dir := t.TempDir()
	yaml := "dataset:\n  corpus: corpus.jsonl\n  queries: queries.jsonl\nretrievers:\n  - {name: bm25, type: bm25}\n  - {name: es, type: elasticsearch, query: bm25, urls: [" + downURL + "]}\n  - {name: es2, type: elasticsearch, query: bm25, urls: [" + downURL + "]}\nk: [1, 3]\n"
	p := writeConfig(t, dir, yaml)
	args := []string{"run", "--check", "--offline", "--no-history", "--data-dir", "../../sweep/testdata/small", "--output", filepath.Join(dir, "out"), "--cache-dir", filepath.Join(dir, "cache"), p}
	var out, errb bytes.Buffer
	code := run(&out, &errb, args)
	want := "engine      " + downURL + " (es, es2): not contacted (--offline)\n"
	if code != 0 || strings.Count(out.String(), "engine  ") != 1 || !strings.Contains(out.String(), want) {
		t.Errorf("--check --offline: exit %d, output lacks %q once:\n%s%s", code, want, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := run(&out, &errb, append([]string{"run", "--offline"}, args[3:]...)); code != 2 || !strings.Contains(errb.String(), "--offline goes with --check") {
		t.Errorf("--offline alone: exit %d, stderr %q; want 2 and the usage error", code, errb.String())
	}
}

// TestRunCheckFallbackWarning: when a dense retriever's model folder is
// missing and a fallback_models entry is used, --check prints report.md's
// warning (config's FallbackWarnings), not only the folder it resolved.
func TestRunCheckFallbackWarning(t *testing.T) {
	if os.Getenv("ONNXRUNTIME_LIB") == "" {
		t.Skip("needs ONNXRUNTIME_LIB")
	}
	models, err := filepath.Abs("../../models")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(models, "all-minilm-l6-v2")); err != nil {
		t.Skip("needs models/all-minilm-l6-v2")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "c.yaml")
	yaml := "dataset:\n  corpus: corpus.jsonl\n  queries: queries.jsonl\nretrievers:\n  - name: dense\n    type: dense\n    model: no-such-model\n    fallback_models: [all-minilm-l6-v2]\nk: [1, 3]\n"
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run(&out, &errb, []string{"run", "--check", "--no-history", "--data-dir", "../../sweep/testdata/small", "--models-dir", models, "--output", filepath.Join(dir, "out"), "--cache-dir", filepath.Join(dir, "cache"), p})
	want := "warning     retriever dense: model no-such-model not found; using fallback all-minilm-l6-v2 (" + filepath.Join(models, "all-minilm-l6-v2") + ") — its numbers are not no-such-model's\n"
	if code != 0 || !strings.Contains(out.String(), want) {
		t.Errorf("exit %d, output lacks %q:\n%s%s", code, want, out.String(), errb.String())
	}
}

// TestRunCheckOfflineConnections: --check --offline lists the engine
// connections as --check dials them (sweep.EngineConnections: the same
// URLs and the same credential variables), so two retrievers on one URL
// with different credentials are two lines, as online, not one.
func TestRunCheckOfflineConnections(t *testing.T) {
	t.Setenv("RB_TEST_USER", "u")
	t.Setenv("RB_TEST_PASS", "p")
	dir := t.TempDir()
	yaml := "dataset:\n  corpus: corpus.jsonl\n  queries: queries.jsonl\nretrievers:\n  - {name: es, type: elasticsearch, query: bm25, urls: [\"http://127.0.0.1:1\"]}\n  - {name: es-auth, type: elasticsearch, query: bm25, urls: [\"http://127.0.0.1:1\"], user_env: RB_TEST_USER, password_env: RB_TEST_PASS}\n  - {name: es2, type: elasticsearch, query: bm25, urls: [\"http://127.0.0.1:1\"]}\nk: [1]\n"
	p := writeConfig(t, dir, yaml)
	var out, errb bytes.Buffer
	code := run(&out, &errb, []string{"run", "--check", "--offline", "--no-history", "--data-dir", "../../sweep/testdata/small", "--output", filepath.Join(dir, "out"), "--cache-dir", filepath.Join(dir, "cache"), p})
	want := "engine      http://127.0.0.1:1 (es, es2): not contacted (--offline)\nengine      http://127.0.0.1:1 (es-auth): not contacted (--offline)\n"
	if code != 0 || !strings.HasSuffix(out.String(), want) {
		t.Errorf("exit %d; output does not end with\n%s\ngot:\n%s%s", code, want, out.String(), errb.String())
	}
}

// TestRunCheckOfflineNoCredentials: --check --offline needs no credential
// variables (they are read only to dial, which it does not; a lint job has
// no secrets), while --check without --offline still names the unset one.
func TestRunCheckOfflineNoCredentials(t *testing.T) {
	t.Setenv("RB_TEST_UNSET_KEY", "")
	dir := t.TempDir()
	yaml := "dataset:\n  corpus: corpus.jsonl\n  queries: queries.jsonl\nretrievers:\n  - {name: es, type: elasticsearch, query: bm25, urls: [\"http://127.0.0.1:1\"], api_key_env: RB_TEST_UNSET_KEY}\nk: [1]\n"
	p := writeConfig(t, dir, yaml)
	args := []string{"run", "--check", "--offline", "--no-history", "--data-dir", "../../sweep/testdata/small", "--output", filepath.Join(dir, "out"), "--cache-dir", filepath.Join(dir, "cache"), p}
	var out, errb bytes.Buffer
	if code := run(&out, &errb, args); code != 0 || !strings.Contains(out.String(), "(es): not contacted (--offline)") {
		t.Errorf("--check --offline: exit %d; want 0 and the not-contacted line:\n%s%s", code, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := run(&out, &errb, append([]string{"run", "--check"}, args[3:]...)); code != 1 || !strings.Contains(errb.String(), "c.yaml:5: retrievers[0].api_key_env") || !strings.Contains(errb.String(), "RB_TEST_UNSET_KEY is unset or empty") {
		t.Errorf("--check: exit %d, stderr %q; want 1 naming the line, field and variable", code, errb.String())
	}
}

// writeConfig writes a test config as dir/c.yaml (the name the tests'
// expected file:line errors use) and returns its path.
func writeConfig(t *testing.T, dir, yaml string) string {
	t.Helper()
	p := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRunCheckSamePreflightONNX is issue 25's drift: an elasticsearch
// retriever that names a model needs ONNX Runtime (its vectors), and
// before sweep.Check was the one preflight, --check looked only at dense
// and rerank retrievers and passed a config the run then refused. With no
// library (--onnxruntime naming a missing file) both fail (exit 1) with
// the same error — the run's, from loading the library (encoder.Init) —
// before any work (no output folder).
func TestRunCheckSamePreflightONNX(t *testing.T) {
	model := testenv.Shared(t, "models/use-lite")
	dir := t.TempDir()
	yaml := "dataset:\n  corpus: corpus.jsonl\n  queries: queries.jsonl\nretrievers:\n  - {name: es, type: elasticsearch, query: knn, urls: [\"http://127.0.0.1:1\"], model: " + model + "}\nk: [1, 3]\n"
	p := writeConfig(t, dir, yaml)
	lib := filepath.Join(dir, "no-such-libonnxruntime.so")
	// The cause is encoder.Init's: the missing file, or in a process
	// that loaded another library already, that it cannot switch.
	want := `bench run: retriever "es" needs ONNX Runtime: onnxruntime: `
	var lines []string
	for _, mode := range [][]string{{"--check"}, {"--progress", "none"}} {
		args := append(append([]string{"run"}, mode...), "--onnxruntime", lib, "--no-history", "--data-dir", "../../sweep/testdata/small",
			"--output", filepath.Join(dir, "out"), "--cache-dir", filepath.Join(dir, "cache"), p)
		var out, errb bytes.Buffer
		if code := run(&out, &errb, args); code != 1 {
			t.Fatalf("%v: exit %d, want 1; stdout:\n%s\nstderr:\n%s", mode, code, out.String(), errb.String())
		}
		last := strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n")
		lines = append(lines, last[len(last)-1])
		if !strings.HasPrefix(last[len(last)-1], want) || !strings.Contains(last[len(last)-1], lib) || !strings.HasSuffix(last[len(last)-1], "; run ./scripts/setup.sh (it installs the library) or pass --onnxruntime") {
			t.Errorf("%v: stderr %q lacks %q", mode, errb.String(), want)
		}
		if _, err := os.Stat(filepath.Join(dir, "out")); !os.IsNotExist(err) {
			t.Errorf("%v: output folder written before the preflight failed", mode)
		}
	}
	if lines[0] != lines[1] {
		t.Errorf("--check and run fail differently:\n  %s\n  %s", lines[0], lines[1])
	}
}

// TestRunCheckModelRootsOutsideCheckout is issue 25's model-root case: a
// config outside the repository names a model of the checkout's models/
// (fetched by scripts/fetch-models.sh) and one of the shared data's
// models/. --models-dir adds a root, so naming both folders finds both
// (before, one flag replaced every other root and lost the fetched
// model); without them, the missing model's error names every root
// searched and does not call the config's folder the shared data.
func TestRunCheckModelRootsOutsideCheckout(t *testing.T) {
	shared := filepath.Dir(testenv.Shared(t, "models/ce-scifact-tiny"))
	fetched := filepath.Join(testenv.RepoRoot(), "models")
	if _, err := os.Stat(filepath.Join(fetched, "all-minilm-l6-v2-q")); err != nil {
		t.Skip("needs models/all-minilm-l6-v2-q (scripts/fetch-models.sh)")
	}
	dir := t.TempDir()
	yaml := "dataset:\n  corpus: corpus.jsonl\n  queries: queries.jsonl\nretrievers:\n  - {name: dense, type: dense, model: all-minilm-l6-v2-q}\n  - {name: ce, type: rerank, input: dense, model: ce-scifact-tiny}\nk: [1, 3]\n"
	p := writeConfig(t, dir, yaml)
	base := []string{"run", "--check", "--no-history", "--data-dir", "../../sweep/testdata/small", "--output", filepath.Join(dir, "out"), "--cache-dir", filepath.Join(dir, "cache")}
	var out, errb bytes.Buffer
	code := run(&out, &errb, append(base, "--models-dir", shared, "--models-dir", fetched, p))
	for _, want := range []string{
		"model of dense        " + filepath.Join(fetched, "all-minilm-l6-v2-q") + "\n",
		"model of ce           " + filepath.Join(shared, "ce-scifact-tiny") + "\n",
	} {
		if code != 0 || !strings.Contains(out.String(), want) {
			t.Errorf("both roots: exit %d, output lacks %q:\n%s%s", code, want, out.String(), errb.String())
		}
	}
	out.Reset()
	errb.Reset()
	data := t.TempDir() // a data root without models/
	args := []string{"run", "--check", "--no-history", "--data-dir", data, "--output", filepath.Join(dir, "out"), "--cache-dir", filepath.Join(dir, "cache"), "--models-dir", fetched, p}
	code = run(&out, &errb, args)
	for _, want := range []string{
		`c.yaml:6: retrievers[1].model: retriever "ce": model folder ce-scifact-tiny not found (searched ` + fetched + ", " + filepath.Join(data, "models") + ")",
		"ce-scifact-tiny ships in the shared data's models/, and the data root " + data + " has no such models/ folder",
	} {
		if code != 1 || !strings.Contains(errb.String(), want) {
			t.Errorf("shared model missing: exit %d, stderr lacks %q:\n%s", code, want, errb.String())
		}
	}
}

// TestRunOneCell: a one-cell sweep's lines say "1 chunking", "1 retriever",
// "1 cell" (not "1 cells"), on --check, on the first run and on the second
// (read from the run cache), and the dataset line counts in the singular
// too. testdata/run/one-cell.golden, with the temporary folder as $DIR and
// the durations as Ns.
func TestRunOneCell(t *testing.T) {
	dir := t.TempDir()
	p := writeConfig(t, dir, "dataset:\n  corpus: corpus.jsonl\n  queries: queries.jsonl\nretrievers:\n  - {name: bm25, type: bm25}\nk: [1, 3]\n")
	args := []string{"--no-history", "--progress", "none", "--data-dir", "../../sweep/testdata/small", "--output", filepath.Join(dir, "out"), "--cache-dir", filepath.Join(dir, "cache"), p}
	var all bytes.Buffer
	for _, extra := range [][]string{{"--check", "--offline"}, nil, nil} {
		var out, errb bytes.Buffer
		if code := run(&out, &errb, append(append([]string{"run"}, extra...), args...)); code != 0 {
			t.Fatalf("bench run %v: exit %d\n%s%s", extra, code, out.String(), errb.String())
		}
		fmt.Fprintf(&all, "$ %s\n%s%s", strings.Join(append([]string{"bench", "run"}, extra...), " "), errb.String(), out.String())
	}
	data, err := filepath.Abs("../../sweep/testdata/small")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.NewReplacer(dir, "$DIR", data, "$DATA").Replace(all.String())
	got = regexp.MustCompile(`in [0-9.]+m?s\n`).ReplaceAllString(got, "in Ns\n")
	checkDiagGolden(t, "run/one-cell.golden", got)
}
