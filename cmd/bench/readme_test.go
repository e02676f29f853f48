package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/internal/testenv"
)

// readmeBlock returns the fenced code blocks of README.md between the
// comment markers <!-- name:begin --> and <!-- name:end -->, each as its
// lines without the fences.
func readmeBlock(t *testing.T, readme, name string) [][]string {
	t.Helper()
	begin, end := "<!-- "+name+":begin -->", "<!-- "+name+":end -->"
	i, j := strings.Index(readme, begin), strings.Index(readme, end)
	if i < 0 || j < i {
		t.Fatalf("README.md: markers %s … %s not found", begin, end)
	}
	var blocks [][]string
	var cur []string
	in := false
	for _, line := range strings.Split(readme[i+len(begin):j], "\n") {
		switch {
		case strings.HasPrefix(line, "```") && !in:
			in, cur = true, nil
		case strings.HasPrefix(line, "```"):
			in = false
			blocks = append(blocks, cur)
		case in:
			cur = append(cur, line)
		}
	}
	return blocks
}

// TestREADMETry runs the README's 30-second try exactly as printed (the
// command between its try markers, on a copy of examples/sotu) and checks
// that what the README shows is what the command prints and writes: its
// standard output line for line (the elapsed time aside), and each line of
// the report excerpts in out/try/report.md. A change to the try's numbers
// or messages fails here until the README is refreshed.
func TestREADMETry(t *testing.T) {
	root := testenv.RepoRoot()
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	try := readmeBlock(t, readme, "try")
	if len(try) != 2 || len(try[0]) != 1 {
		t.Fatalf("README.md try block: want a one-line command block and an output block, got %q", try)
	}
	args := strings.Fields(try[0][0])
	if len(args) < 2 || args[0] != "bin/bench" {
		t.Fatalf("README.md try command %q does not start with bin/bench", try[0][0])
	}
	work := t.TempDir()
	if err := os.CopyFS(filepath.Join(work, "examples", "sotu"), os.DirFS(filepath.Join(root, "examples", "sotu"))); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	code, stdout, stderr := runBench(args[1:]...)
	if code != 0 {
		t.Fatalf("%s: exit %d\n%s", try[0][0], code, stderr)
	}
	elapsed := regexp.MustCompile(` in [0-9.]+(ms|s|m[0-9.]+s)$`)
	got := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
	want := try[1]
	if len(got) != len(want) {
		t.Errorf("stdout has %d lines, the README shows %d:\n%s", len(got), len(want), stdout)
	}
	for i := range min(len(got), len(want)) {
		g, w := elapsed.ReplaceAllString(got[i], " in T"), elapsed.ReplaceAllString(want[i], " in T")
		if g != w {
			t.Errorf("stdout line %d:\n got  %s\n README %s", i+1, got[i], want[i])
		}
	}
	report, err := os.ReadFile(filepath.Join(work, "out", "try", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]bool{}
	for _, l := range strings.Split(string(report), "\n") {
		lines[l] = true
	}
	for _, name := range []string{"try-report", "try-budget"} {
		for _, block := range readmeBlock(t, readme, name) {
			for _, l := range block {
				if !lines[l] {
					t.Errorf("README.md %s line not in report.md: %s", name, l)
				}
			}
		}
	}
}

// TestDocLinks checks that every relative link of README.md and docs/*.md
// names a file of the repository (anchors aside): a manual moved or renamed
// leaves no dead link behind.
func TestDocLinks(t *testing.T) {
	root := testenv.RepoRoot()
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join(root, "README.md"), filepath.Join(root, "BENCHMARKS.md"))
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			if _, err := os.Stat(filepath.Join(filepath.Dir(f), filepath.FromSlash(target))); err != nil {
				rel, _ := filepath.Rel(root, f)
				t.Errorf("%s: link %s: no such file", rel, m[1])
			}
		}
	}
}
