package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/ragbench/ragbench/config"
)

// Manifest is manifest.json: what a run read and what ran it.
type Manifest struct {
	Tool      string               `json:"tool"`
	GoVersion string               `json:"go_version"`
	Platform  string               `json:"platform"`
	GitCommit string               `json:"git_commit,omitempty"`
	GitDirty  bool                 `json:"git_dirty,omitempty"`
	Modules   map[string]string    `json:"modules"`
	Seed      int64                `json:"seed"`
	HeldOut   config.HeldOutConfig `json:"heldout"`
	Config    *config.Config       `json:"config"`
	ConfigSHA string               `json:"config_sha256"`
	ConfigRaw string               `json:"config_file"`
	DataDir   string               `json:"data_dir"`
	ModelsDir string               `json:"models_dir"`
	Dataset   string               `json:"dataset_sha256"`
	// LabelsDigest is, with span labels, spans.Digest of the labels as
	// the run placed them (moved labels at their new offsets): a SHA-256
	// of what they say, whatever the file's spelling; "" for other labels.
	LabelsDigest string     `json:"labels_digest,omitempty"`
	Files        []FileHash `json:"files"`
}

// FileHash is one hashed input file of the manifest.
type FileHash struct {
	Role   string `json:"role,omitempty"`
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
}

// ReadResults reads a results.json written by bench run (ResultsJSON) back
// into Results, for tools that compare runs (package gate). The unexported
// fields (chunk-level runs, the compare report) stay empty. Errors name the
// file: unreadable, not JSON, unknown top-level members are tolerated (a
// newer writer), but a file with no "cells" member is refused as not a
// results.json of bench run.
func ReadResults(path string) (*Results, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, fmt.Errorf("%s: not a results.json of bench run: %v", path, err)
	}
	if _, ok := probe["cells"]; !ok {
		return nil, fmt.Errorf("%s: not a results.json of bench run (no \"cells\" member)", path)
	}
	if err := numbers(b); err != "" {
		return nil, fmt.Errorf("%s: %s", path, err)
	}
	var res Results
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&res); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	first := map[string]int{}
	for i, c := range res.Cells {
		if c.Name == "" {
			return nil, fmt.Errorf("%s: cell #%d has no name", path, i+1)
		}
		if j, dup := first[c.Name]; dup {
			return nil, fmt.Errorf("%s: cell #%d: name %q already used by cell #%d", path, i+1, c.Name, j)
		}
		first[c.Name] = i + 1
		for _, part := range []struct {
			field string
			m     map[string]map[string]float64
		}{{"means", c.Means}, {"per_query", c.PerQuery}} {
			if err := proportions(part.m); err != "" {
				return nil, fmt.Errorf("%s: cell %q: %s %s", path, c.Name, part.field, err)
			}
		}
	}
	return &res, nil
}

// numbers checks that every value of the cells' means and per_query is a
// JSON number: encoding/json reads a null as 0 without a word (a baseline
// query's ndcg of 0, silently) and refuses a string without naming the
// cell or the query. It describes the first value that is not (cells in
// file order, then key, then metric order), naming cell, key and metric,
// or returns "" (also when the cells are not shaped as bench run writes
// them: the full decoding says what is wrong).
func numbers(b []byte) string {
	var probe struct {
		Cells []struct {
			Name     string                                `json:"name"`
			Means    map[string]map[string]json.RawMessage `json:"means"`
			PerQuery map[string]map[string]json.RawMessage `json:"per_query"`
		} `json:"cells"`
	}
	if json.Unmarshal(b, &probe) != nil {
		return ""
	}
	for i, c := range probe.Cells {
		cell := fmt.Sprintf("cell %q", c.Name)
		if c.Name == "" {
			cell = fmt.Sprintf("cell #%d", i+1)
		}
		for _, part := range []struct {
			field string
			m     map[string]map[string]json.RawMessage
		}{{"means", c.Means}, {"per_query", c.PerQuery}} {
			for _, k := range slices.Sorted(maps.Keys(part.m)) {
				for _, metric := range slices.Sorted(maps.Keys(part.m[k])) {
					v := bytes.TrimSpace(part.m[k][metric])
					var f float64
					if json.Unmarshal(v, &f) == nil && !bytes.Equal(v, []byte("null")) {
						continue
					}
					what := "is null"
					if !bytes.Equal(v, []byte("null")) {
						what = "= " + string(v)
						if len(what) > 60 {
							what = what[:60] + "…"
						}
					}
					return fmt.Sprintf("%s: %s %q: %s %s, not a number (bench run writes every value as a number: the file was edited or corrupted)", cell, part.field, k, metric, what)
				}
			}
		}
	}
	return ""
}

// proportions checks that every value of a key → metric → value map is in
// [0, 1] (to 1e-9 above 1, for rounding), as every metric family is; it
// describes the first one that is
// not (in key, then metric order), or returns "".
func proportions(m map[string]map[string]float64) string {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		vals := m[k]
		for _, metric := range slices.Sorted(maps.Keys(vals)) {
			if v := vals[metric]; !(v >= 0 && v <= 1+1e-9) {
				return fmt.Sprintf("%q: %s = %v, outside [0, 1] (every metric is a proportion: the file was edited or corrupted)", k, metric, v)
			}
		}
	}
	return ""
}

// ReadManifest reads a manifest.json written by bench run. Errors name the
// file; a JSON object without config_sha256 or dataset_sha256 is refused as
// not a manifest of bench run.
func ReadManifest(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: not a manifest.json of bench run: %v", path, err)
	}
	if m.ConfigSHA == "" || m.Dataset == "" {
		return nil, fmt.Errorf("%s: not a manifest.json of bench run (no config_sha256/dataset_sha256)", path)
	}
	return &m, nil
}
