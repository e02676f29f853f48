package sweep

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ragbench/ragbench/internal/fuzzwatch"
)

// FuzzLoad: loading any YAML config never panics and takes bounded time;
// a config Load accepts holds only finite numbers (every float64 the sweep
// will use), can be hashed and encoded as results.json records it, and
// loading the same file again gives the same config (the same Hash).
// The seeds include the config-value classes of issue 13 (k1: .inf, a NaN
// or negative combsum weight, a fraction in an integer field, a second
// YAML document), which Load refuses.
func FuzzLoad(f *testing.F) {
	for _, p := range []string{"testdata/small.yaml", "../configs/scifact-quick.yaml", "../configs/scifact.yaml"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("name: x\ndataset: {corpus: c.jsonl, queries: q.jsonl}\nretrievers: [{name: b, type: bm25, k1: 1e309}]\n"))
	f.Add([]byte("name: x\ndataset: {corpus: c.jsonl, queries: q.jsonl}\nretrievers: [{name: b, type: bm25}, {name: h, type: hybrid, inputs: [b, b], fusion: combsum, weights: [1, -1]}]\n"))
	f.Add([]byte("name: x\ndataset: {corpus: c.jsonl, queries: q.jsonl}\nretrievers: [{name: b, type: bm25, k1: .inf}]\n"))
	f.Add([]byte("name: x\ndataset: {corpus: c.jsonl, queries: q.jsonl}\nretrievers: [{name: b, type: bm25}, {name: h, type: hybrid, inputs: [b, b], fusion: combsum, weights: [1, .nan]}]\n"))
	f.Add([]byte("name: x\ndataset: {corpus: c.jsonl, queries: q.jsonl}\nretrievers: [{name: b, type: bm25}]\nk: [1, 3.9]\n---\nname: y\n"))
	// YAML merge keys (issue 26): one anchor, a list of anchors, nested
	// merges, a merge bringing a NaN (refused), a merge of a scalar, and
	// an anchor merged exponentially often.
	f.Add([]byte("name: x\ndataset: {corpus: c.jsonl, queries: q.jsonl}\nretrievers:\n  - &r {name: b, type: bm25, k1: 0.5}\n  - {<<: *r, name: c}\n"))
	f.Add([]byte("name: x\ndataset: {corpus: c.jsonl, queries: q.jsonl}\nretrievers:\n  - &r {name: b, type: bm25}\n  - &s {<<: *r, name: c, b: 0.2}\n  - {<<: [*s, *r], name: d}\n"))
	f.Add([]byte("name: x\ndataset: {corpus: c.jsonl, queries: q.jsonl}\nretrievers:\n  - &r {name: b, type: bm25}\n  - {<<: *r, name: c, k1: .nan}\n  - {<<: 1, name: d}\n"))
	f.Add([]byte("name: x\ndataset: {corpus: c.jsonl, queries: q.jsonl}\nretrievers:\n  - &a {name: a, type: bm25}\n  - &b {<<: [*a, *a, *a, *a], name: b}\n  - &c {<<: [*b, *b, *b, *b], name: c}\n  - {<<: [*c, *c, *c, *c], name: d}\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzwatch.Start(fuzzwatch.Bound)()
		path := filepath.Join(dir, "config.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		opts := LoadOptions{DataDir: dir, ModelsDir: dir}
		cfg, err := Load(path, opts)
		if err != nil {
			return
		}
		if bad := nonFinite(reflect.ValueOf(cfg).Elem(), "config"); bad != "" {
			t.Fatalf("accepted a config holding %s", bad)
		}
		h := cfg.Hash()
		if _, err := json.Marshal(cfg); err != nil {
			t.Fatalf("accepted config does not encode: %v", err)
		}
		again, err := Load(path, opts)
		if err != nil || again.Hash() != h {
			t.Fatalf("the same file loads differently the second time: %v", err)
		}
	})
}

// nonFinite returns the path of the first NaN or infinite float64 held in
// v (exported fields, pointers, slices, maps), or "".
func nonFinite(v reflect.Value, path string) string {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Sprintf("%s = %v", path, f)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return nonFinite(v.Elem(), path)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if s := nonFinite(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); s != "" {
				return s
			}
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			if s := nonFinite(v.MapIndex(k), fmt.Sprintf("%s[%v]", path, k)); s != "" {
				return s
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				if s := nonFinite(v.Field(i), path+"."+v.Type().Field(i).Name); s != "" {
					return s
				}
			}
		}
	}
	return ""
}
