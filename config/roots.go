package config

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ragbench/ragbench/kinds"
	"github.com/ragbench/ragbench/spans"
)

// The roots a config's relative paths are resolved against, each decided
// once, by Load:
//
//   - the data root (dataset paths): --data-dir, else $RAGBENCH_DATA_DIR,
//     else ../shared beside the ragbench checkout holding the config when
//     it exists, else the config's folder;
//   - the model roots (model folders), searched in this order, each once:
//     1. the explicit roots: --models-dir (LoadOptions.ModelsDir), else
//        $RAGBENCH_MODELS_DIR, each a folder or a path list (':'-separated
//        on Unix), so one flag can name several roots;
//     2. the models/ of the ragbench checkout holding the config, then of
//        the one holding the running binary (bin/bench): where
//        scripts/fetch-models.sh puts the standard models, found even for
//        a config kept outside the repository;
//     3. the data root's models/ (the shared data ships use-lite and
//        ce-scifact-tiny there).
//     An explicit root adds to the others, never replaces them, so
//     --models-dir ../shared/models still finds the fetched models.
//   - the config's folder: output, cache_dir, history and an engine's
//     ca_file.

// resolveDataDir is the data root of opts (see above), and whether it was
// named or found (false: the config's folder, by default).
func (c *Config) resolveDataDir(opts LoadOptions) (string, bool) {
	if d := cmp.Or(opts.DataDir, os.Getenv("RAGBENCH_DATA_DIR")); d != "" {
		return d, true
	}
	dir := filepath.Dir(c.path)
	d := defaultDataDir(dir)
	return d, d != dir
}

// detectSpanLabels reports whether the config's dataset.queries holds span
// labels (spans.Detect, as the sweep reads them): only a queries file
// without a qrels file can. A file that cannot be read counts as no span
// labels here; reading the dataset reports it.
func (c *Config) detectSpanLabels(opts LoadOptions) bool {
	d := c.Dataset
	if d.BEIR != "" || d.Queries == "" || d.Qrels != "" {
		return false
	}
	root, _ := c.resolveDataDir(opts)
	format, err := spans.Detect(under(root, d.Queries))
	return err == nil && format != ""
}

// modelRootList is the model roots (see above), absolute, each once, and
// the manifest's models_dir (the first explicit root, else the data
// root's models/).
func (c *Config) modelRootList(opts LoadOptions) (roots []string, modelsDir string, err error) {
	explicit := filepath.SplitList(cmp.Or(opts.ModelsDir, os.Getenv("RAGBENCH_MODELS_DIR")))
	all := slices.Clone(explicit)
	for _, repo := range []string{repoRoot(filepath.Dir(c.path)), exeRepoRoot()} {
		if repo != "" {
			all = append(all, filepath.Join(repo, "models"))
		}
	}
	all = append(all, filepath.Join(c.dataDir, "models"))
	for _, r := range all {
		if r == "" {
			continue
		}
		if r, err = filepath.Abs(r); err != nil {
			return nil, "", err
		}
		if !slices.Contains(roots, r) {
			roots = append(roots, r)
		}
	}
	modelsDir = filepath.Join(c.dataDir, "models")
	if len(explicit) > 0 && explicit[0] != "" {
		if modelsDir, err = filepath.Abs(explicit[0]); err != nil {
			return nil, "", err
		}
	}
	return roots, modelsDir, nil
}

// resolve sets the data and model roots and makes every path absolute.
func (c *Config) resolve(opts LoadOptions) error {
	dir := filepath.Dir(c.path)
	var err error
	c.dataDir, c.dataFound = c.resolveDataDir(opts)
	if c.dataDir, err = filepath.Abs(c.dataDir); err != nil {
		return err
	}
	if c.modelRoots, c.modelsDir, err = c.modelRootList(opts); err != nil {
		return err
	}
	d := &c.Dataset
	for _, p := range []*string{&d.BEIR, &d.Corpus, &d.Queries, &d.Qrels} {
		*p = under(c.dataDir, *p)
	}
	if d.Name == "" {
		if d.BEIR != "" {
			d.Name = filepath.Base(d.BEIR)
		} else {
			d.Name = strings.TrimSuffix(filepath.Base(d.Corpus), filepath.Ext(d.Corpus))
			if d.Name == "corpus" {
				d.Name = filepath.Base(filepath.Dir(d.Corpus))
			}
		}
	}
	for _, r := range c.Retrievers {
		if m, ok := r.Settings.(kinds.Modeled); ok && m.ModelRef().Model != "" {
			ref := m.ModelRef()
			ref.Resolve(c.findModel(append([]string{ref.Model}, ref.FallbackModels...)))
		}
		if p, ok := r.Settings.(kinds.Pathed); ok {
			for _, path := range p.RelativePaths() {
				*path = under(dir, *path)
			}
		}
	}
	// A relative path in the config is the config folder's; one given on
	// the command line or in a variable is the current folder's, as for
	// every command-line tool (--data-dir and --models-dir are too).
	if c.Output, err = flagOrKey(opts.Output, c.Output, filepath.Join("results", c.Name), dir); err != nil {
		return err
	}
	if c.CacheDir == "" && opts.CacheDir == "" {
		opts.CacheDir = os.Getenv("RAGBENCH_CACHE_DIR") // below the config's cache_dir, above the default
	}
	if c.CacheDir, err = flagOrKey(opts.CacheDir, c.CacheDir, ".ragbench-cache", dir); err != nil {
		return err
	}
	c.History, err = flagOrKey(opts.History, c.History, "bench-history.csv", dir)
	return err
}

// flagOrKey is a path given on the command line (flag, or a variable):
// absolute, a relative one taken from the current folder; else the
// config's key, or def when the config has none, relative to the config's
// folder dir.
func flagOrKey(flag, key, def, dir string) (string, error) {
	if flag != "" {
		return filepath.Abs(flag)
	}
	return under(dir, cmp.Or(key, def)), nil
}

// findModel returns the first candidate model folder that exists (relative
// ones searched in each model root in turn), else the first candidate
// resolved against the first root (the preflight then reports it, naming
// every root).
func (c *Config) findModel(cands []string) string {
	for _, m := range cands {
		if filepath.IsAbs(m) {
			if _, err := os.Stat(m); err == nil {
				return m
			}
			continue
		}
		for _, root := range c.modelRoots {
			p := filepath.Join(root, m)
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	return under(c.modelRoots[0], cands[0])
}

// DataRootNamed reports whether the data root was named (--data-dir,
// $RAGBENCH_DATA_DIR) or found (../shared beside the checkout holding the
// config), rather than the config's own folder by default: then its
// models/ is the shared data's.
func (c *Config) DataRootNamed() bool { return c.dataFound }

// executable is os.Executable (tests replace it).
var executable = os.Executable

// exeRepoRoot is the ragbench checkout holding the running binary (e.g.
// bin/bench built by scripts/setup.sh), or "" (go run, go test, an
// installed binary).
func exeRepoRoot() string {
	exe, err := executable()
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return repoRoot(filepath.Dir(exe))
}

// modulePath is the module of the ragbench repository, as go.mod names it.
const modulePath = "github.com/ragbench/ragbench"

// repoRoot is the nearest folder at or above dir holding the ragbench
// repository's go.mod (module github.com/ragbench/ragbench), or "".
func repoRoot(dir string) string {
	for d := dir; ; {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && isRagbenchMod(b) {
			return d
		}
		p := filepath.Dir(d)
		if p == d {
			return ""
		}
		d = p
	}
}

// isRagbenchMod reports whether go.mod content declares modulePath.
func isRagbenchMod(gomod []byte) bool {
	for _, l := range strings.Split(string(gomod), "\n") {
		f := strings.Fields(l)
		if len(f) == 2 && f[0] == "module" && strings.Trim(f[1], `"`) == modulePath {
			return true
		}
	}
	return false
}

// defaultDataDir is ../shared beside the repository (the folder with
// go.mod) holding dir, when it exists; else dir itself.
func defaultDataDir(dir string) string {
	if repo := repoRoot(dir); repo != "" {
		s := filepath.Join(repo, "..", "shared")
		if fi, err := os.Stat(s); err == nil && fi.IsDir() {
			return filepath.Clean(s)
		}
	}
	return dir
}

func under(root, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(root, p)
}

// FallbackWarnings names each retriever whose model was not found and was
// replaced by one of its fallback_models, so neither report.md nor bench
// run --check presents a fallback's numbers as the requested model's; nil
// when every retriever found its own model.
func (c *Config) FallbackWarnings() []string {
	var out []string
	for _, r := range c.Retrievers {
		m, ok := r.Settings.(kinds.Modeled)
		if !ok {
			continue
		}
		ref := m.ModelRef()
		if ref.Requested() == "" || len(ref.FallbackModels) == 0 {
			continue
		}
		if filepath.Base(ref.Model) != filepath.Base(ref.Requested()) {
			out = append(out, fmt.Sprintf("retriever %s: model %s not found; using fallback %s (%s) — its numbers are not %s's",
				r.Name, ref.Requested(), filepath.Base(ref.Model), ref.Model, ref.Requested()))
		}
	}
	return out
}
