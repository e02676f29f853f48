package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
)

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

// QueryTexts returns query id → text for the queries of cfg's dataset (the
// judged ones, as the sweep searches them), read as Run reads them. It
// loads the dataset again (corpus included), so call it once, after Run.
func QueryTexts(cfg *Config) (map[string]string, error) {
	ds, _, err := loadDataset(cfg, defaultBackend())
	if err != nil {
		return nil, err
	}
	return ds.text, nil
}
