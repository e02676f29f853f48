package sweep

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/ragbench/ragbench/kinds"
	"github.com/ragbench/ragbench/results"
)

func manifest(cfg *Config, ds *dataset) ([]byte, error) {
	m := results.Manifest{Tool: "ragbench", GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH,
		Modules: map[string]string{}, Seed: *cfg.Significance.Seed, HeldOut: cfg.HeldOut, Config: cfg,
		ConfigSHA: cfg.Hash(), ConfigRaw: cfg.Path(), DataDir: cfg.DataDir(), ModelsDir: cfg.ModelsDir(), Dataset: ds.hash, LabelsDigest: ds.labelsDigest}
	if bi, ok := debug.ReadBuildInfo(); ok {
		m.Tool = bi.Main.Path + "@" + bi.Main.Version
		for _, d := range bi.Deps {
			v := d.Version
			if d.Replace != nil {
				v += " => " + d.Replace.Path + "@" + d.Replace.Version
			}
			m.Modules[d.Path] = v
		}
	}
	m.GitCommit, m.GitDirty = buildCommit(cfg)
	files, err := ds.inputFiles()
	if err != nil {
		return nil, err
	}
	m.Files = append(m.Files, files...)
	seen := map[string]bool{}
	for _, rc := range cfg.Retrievers {
		model := rc.Model()
		if model == "" || seen[model] {
			continue
		}
		seen[model] = true
		files, err := kinds.HashFolder(model)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			role := "model " + rc.Name
			if filepath.Base(f.Path) == "tokenizer.json" {
				role = "tokenizer " + rc.Name
			}
			m.Files = append(m.Files, results.FileHash{Role: role, Path: f.Path, SHA256: f.SHA256, Bytes: f.Bytes})
		}
	}
	sort.SliceStable(m.Files, func(i, j int) bool { return m.Files[i].Path < m.Files[j].Path })
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// inputFiles hashes the dataset's files as the manifest lists them: roles
// corpus, queries and qrels, those the dataset read, in that order (a
// folder corpus: its documents' hash, pathHash).
func (ds *dataset) inputFiles() ([]results.FileHash, error) {
	var out []results.FileHash
	for _, role := range []string{"corpus", "queries", "qrels"} {
		p := ds.files[role]
		if p == "" {
			continue
		}
		h, size, err := pathHash(p, ds)
		if err != nil {
			return nil, err
		}
		out = append(out, results.FileHash{Role: role, Path: p, SHA256: h, Bytes: size})
	}
	return out, nil
}

// buildCommit is the commit of the code that runs and whether it had
// uncommitted changes: the binary's (go build's vcs.revision and
// vcs.modified, which bench --version prints), else — a binary built
// without them (go run, go test, -buildvcs=false) — HEAD of the git
// checkout holding the config. The one source of manifest.json's
// git_commit and git_dirty and of the history's commit column
// (commitText).
func buildCommit(cfg *Config) (rev string, dirty bool) {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	if rev == "" {
		rev, dirty = gitCommit(filepath.Dir(cfg.Path()))
	}
	return rev, dirty
}

// commitText is buildCommit as one string, as bench --version writes it:
// the commit, "+modified" after it for uncommitted changes ("" unknown).
func commitText(cfg *Config) string {
	rev, dirty := buildCommit(cfg)
	if rev != "" && dirty {
		rev += "+modified"
	}
	return rev
}

// gitCommit returns HEAD's commit and whether the tree has changes, when dir
// is inside a git checkout ("" otherwise).
func gitCommit(dir string) (string, bool) {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return "", false
	}
	st, _ := exec.Command("git", "-C", dir, "status", "--porcelain", "--untracked-files=no").Output()
	return strings.TrimSpace(string(out)), len(bytes.TrimSpace(st)) > 0
}
