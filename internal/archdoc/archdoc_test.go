package archdoc

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/internal/testenv"
)

// TestEveryPackageInArchitecture: docs/architecture.md's "Every package"
// table names every package of the module (a folder holding a non-test .go
// file, testdata and hidden folders aside), each in backquotes in the
// table's first column, and names no folder that is not one.
func TestEveryPackageInArchitecture(t *testing.T) {
	root := testenv.RepoRoot()
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	i := strings.Index(text, "Every package")
	if i < 0 {
		t.Fatal(`docs/architecture.md has no "Every package" table`)
	}
	named := map[string]bool{}
	cell := regexp.MustCompile("`([^`]+)`")
	for _, line := range strings.Split(text[i:], "\n")[1:] {
		if line != "" && !strings.HasPrefix(line, "|") {
			if len(named) > 0 {
				break
			}
			continue
		}
		cols := strings.Split(line, "|")
		if len(cols) < 3 {
			continue
		}
		for _, m := range cell.FindAllStringSubmatch(cols[1], -1) {
			named[m[1]] = true
		}
	}
	var pkgs []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "third_party" || name == "models" || name == "node_modules") {
				return filepath.SkipDir
			}
			if d.Type()&fs.ModeSymlink != 0 {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			rel, _ := filepath.Rel(root, filepath.Dir(p))
			if rel != "." && !slices.Contains(pkgs, filepath.ToSlash(rel)) {
				pkgs = append(pkgs, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 20 {
		t.Fatalf("found only %d packages under %s: the walk is wrong", len(pkgs), root)
	}
	for _, p := range pkgs {
		if !named[p] {
			t.Errorf("package %s has no row in docs/architecture.md's \"Every package\" table", p)
		}
	}
	for n := range named {
		if !slices.Contains(pkgs, n) {
			t.Errorf("docs/architecture.md names %s, which is not a package of the module", n)
		}
	}
}
