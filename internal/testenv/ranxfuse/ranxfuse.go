// Package ranxfuse reads the fused runs ranx 0.3.21's fuse() made of the
// SciFact BM25 and all-MiniLM-L6-v2 runs in
// retrievers/hybrid/testdata/scifact (ranx_reference.py there made them), and
// compares a ragbench run with one. Tests of retrievers/hybrid and of
// `bench fuse` share it.
package ranxfuse

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/testenv"
)

// Tolerance is the largest accepted |ragbench − ranx| fused score.
const Tolerance = 1e-9

// Dir is the folder of the inputs (bm25.trec.gz, dense.trec.gz) and the
// reference (ranx-fused.json.gz), relative to the module root.
const Dir = "retrievers/hybrid/testdata/scifact"

// Path returns file's path in Dir under the module root.
func Path(file string) string {
	return filepath.Join(testenv.RepoRoot(), Dir, file)
}

// Inputs reads the two runs ranx fused: BM25's and all-MiniLM-L6-v2's
// (bm25.trec.gz, dense.trec.gz in Dir). Errors: eval.ReadRun's, naming the
// file.
func Inputs() (bm25, dense eval.Run, err error) {
	if bm25, err = eval.ReadRun(Path("bm25.trec.gz")); err != nil {
		return nil, nil, err
	}
	if dense, err = eval.ReadRun(Path("dense.trec.gz")); err != nil {
		return nil, nil, err
	}
	return bm25, dense, nil
}

// Config is one ranx fused run and the ragbench settings that must equal it.
type Config struct {
	Method  string                `json:"method"`  // ragbench's hybrid.Method
	Norm    string                `json:"norm"`    // ragbench's hybrid.Normalization ("" for rrf)
	Weights []float64             `json:"weights"` // nil: all 1
	Run     map[string][]DocScore `json:"run"`     // query id → ranx's fused list, in ranx's order
}

// DocScore is one fused result, [doc id, score] in the file.
type DocScore [2]any

// Load reads ranx-fused.json.gz: config name → Config.
func Load() (map[string]Config, error) {
	f, err := os.Open(Path("ranx-fused.json.gz"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	var out map[string]Config
	if err := json.NewDecoder(zr).Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}

// Queries returns c's query ids in byte order.
func (c Config) Queries() []string {
	q := make([]string, 0, len(c.Run))
	for id := range c.Run {
		q = append(q, id)
	}
	sort.Strings(q)
	return q
}

// Compare checks got against c query by query: the same queries and, per
// query, the same documents with scores within Tolerance, in the same order
// except that documents whose ranx scores are within Tolerance of each other
// may come in either order (ranx orders ties arbitrarily, ragbench by doc id
// descending). It returns the number of such tie positions and every
// difference found (at most 10 listed).
func (c Config) Compare(got eval.Run) (ties int, err error) {
	var diffs []string
	add := func(format string, a ...any) {
		if len(diffs) < 10 {
			diffs = append(diffs, fmt.Sprintf(format, a...))
		}
	}
	if len(got) != len(c.Run) {
		add("%d queries, ranx %d", len(got), len(c.Run))
	}
	for _, q := range c.Queries() {
		want := c.Run[q]
		g := got[q]
		if len(g) != len(want) {
			add("query %s: %d results, ranx %d", q, len(g), len(want))
			continue
		}
		ref := make(map[string]float64, len(want))
		for _, ds := range want {
			ref[ds[0].(string)] = ds[1].(float64)
		}
		for i, r := range g {
			rs, ok := ref[r.DocID]
			if !ok {
				add("query %s rank %d: doc %s not in ranx's run", q, i+1, r.DocID)
				continue
			}
			if math.Abs(r.Score-rs) > Tolerance {
				add("query %s doc %s: score %.17g, ranx %.17g", q, r.DocID, r.Score, rs)
			}
			wd, ws := want[i][0].(string), want[i][1].(float64)
			if wd != r.DocID {
				if math.Abs(rs-ws) > Tolerance {
					add("query %s rank %d: doc %s (ranx %.13g), ranx has %s (%.13g)", q, i+1, r.DocID, rs, wd, ws)
				} else {
					ties++
				}
			}
		}
	}
	if len(diffs) > 0 {
		return ties, fmt.Errorf("%s", strings.Join(diffs, "\n"))
	}
	return ties, nil
}

// Subset returns the queries of run that c fused (ranx fuses runs with equal
// query sets only).
func (c Config) Subset(run eval.Run) eval.Run {
	out := eval.Run{}
	for q := range c.Run {
		if l, ok := run[q]; ok {
			out[q] = l
		}
	}
	return out
}
