package sweep

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/fuzzwatch"
)

// TestTuningFollowsTheSplit (issue 26): a tuned config run with
// heldout.seed 3, then 4, into the same cache reports seed 4's split — its
// tuning and held-out counts, means, choice and test — exactly as a run
// with seed 4 into an empty cache does. Before, the split was not part of
// the tuning's cache key and the second run read back seed 3's grid search
// (9 tuning / 3 held out where seed 4 has 7 / 5), a setting possibly
// chosen on queries now held out. The qrels are part of the key too: a
// changed gold id tunes again.
func TestTuningFollowsTheSplit(t *testing.T) {
	a, b := eval.Run{}, eval.Run{}
	gold := map[string][]string{}
	for i := range 12 {
		q := fmt.Sprintf("q%02d", i)
		g, x := "g"+q[1:], "x"+q[1:]
		gold[q] = []string{g}
		right, wrong := []eval.Result{{DocID: g, Score: 2}, {DocID: x, Score: 1}}, []eval.Result{{DocID: x, Score: 2}, {DocID: g, Score: 1}}
		a[q], b[q] = right, wrong
		if i%3 == 0 {
			a[q], b[q] = wrong, right
		}
	}
	rest := `retrievers:
  - {name: a, type: bm25}
  - {name: b, type: bm25, k1: 1.2}
  - name: tuned
    type: hybrid
    inputs: [a, b]
    fusion: [rrf, combsum]
    weights: [[1, 0], [0, 1], [1, 1]]
k: [1, 3]
prompt_k: 3
significance: {permutations: 1000}
heldout: {fraction: 0.5, seed: SEED}
`
	p, be := tuneFixture(t, map[string]eval.Run{"a": a, "b": b}, gold, strings.Replace(rest, "SEED", "3", 1))
	dir := filepath.Dir(p)
	run := func(seed, cache string) *Config {
		t.Helper()
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		text = []byte(strings.NewReplacer("seed: 3}", "seed: "+seed+"}", "seed: 4}", "seed: "+seed+"}").Replace(string(text)))
		if err := os.WriteFile(p, text, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := loadConfig(t, p, dir, filepath.Join(dir, "out-"+seed+"-"+filepath.Base(cache)))
		cfg.CacheDir = cache
		return cfg
	}
	shared := filepath.Join(dir, "shared-cache")
	cfg3 := run("3", shared)
	res3, err := Run(t.Context(), cfg3, Options{NoHistory: true, backend: &be})
	if err != nil {
		t.Fatal(err)
	}
	cfg4 := run("4", shared)
	res4, err := Run(t.Context(), cfg4, Options{NoHistory: true, backend: &be})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := Run(t.Context(), run("4", filepath.Join(dir, "fresh-cache")), Options{NoHistory: true, backend: &be})
	if err != nil {
		t.Fatal(err)
	}
	t3, t4, tf := res3.Cells[2].Tuning, res4.Cells[2].Tuning, fresh.Cells[2].Tuning
	if t3.TuningQueries == tf.TuningQueries {
		t.Fatalf("seeds 3 and 4 split the 12 queries alike (%d tuning): the test needs splits that differ", t3.TuningQueries)
	}
	if d := res4.Dataset; t4.TuningQueries != d.Tuning || t4.HeldOutQueries != d.HeldOut {
		t.Errorf("seed 4 after seed 3: the Tuning section reports %d tuning / %d held out, the dataset %d / %d (seed 3's split read from the cache)",
			t4.TuningQueries, t4.HeldOutQueries, d.Tuning, d.HeldOut)
	}
	if !reflect.DeepEqual(t4, tf) {
		t.Errorf("seed 4 after seed 3 (shared cache):\n%+v\nwant seed 4 into an empty cache:\n%+v", *t4, *tf)
	}
	if !res4.Timings[0].Cached || !res4.Timings[1].Cached {
		t.Errorf("the untuned inputs' runs do not depend on the split: they should come from the cache")
	}
	// Run again with seed 4: the same tuning, now from the cache.
	again, err := Run(t.Context(), run("4", shared), Options{NoHistory: true, backend: &be})
	if err != nil {
		t.Fatal(err)
	}
	if !again.Timings[2].Cached || !reflect.DeepEqual(again.Cells[2].Tuning, tf) {
		t.Errorf("seed 4 twice: cached %v, tuning %+v", again.Timings[2].Cached, again.Cells[2].Tuning)
	}
}

// FuzzTuningKey (issue 26): tuning cache keys are equal exactly when the
// tuning's inputs are — the run-cache key, the metric, depth and level, the
// tuning and held-out id sets (order and repeats aside; none and an empty
// list alike), the qrels and the significance settings. Each input is
// decoded from a string: ids one per line, "*" ending a held-out id, qrels
// lines "query doc grade". Ids and qrels need not be UTF-8 (TREC files);
// the config's strings are.
func FuzzTuningKey(f *testing.F) {
	f.Add("k", "ndcg@10", 100, false, "q1\nq2*\nq3", "q1 d1 1", "t", uint16(1000), "k", "ndcg@10", 100, false, "q1\nq2\nq3*", "q1 d1 1", "t", uint16(1000))
	f.Add("k", "ndcg@10", 100, true, "q1\nq2*", "q1 d1 1\nq2 d2 2", "randomization", uint16(10), "k", "ndcg@10", 100, true, "q2*\nq1\nq1", "q2 d2 2\nq1 d1 1", "randomization", uint16(10))
	f.Add("k", "m", 1, false, "a,b", "", "t", uint16(1), "k", "m", 1, false, "a\nb", "", "t", uint16(1))
	f.Add("k", "m", 1, false, "", "", "t", uint16(1), "k", "m", 1, false, "\n", "", "t", uint16(1))
	f.Add("k", "m", 1, false, "\xff", "\xfe d 1", "t", uint16(1), "k", "m", 1, false, "\xfe", "\xff d 1", "t", uint16(1))
	f.Fuzz(func(t *testing.T, baseA, metricA string, depthA int, docA bool, splitA, qrelsA, testA string, permsA uint16,
		baseB, metricB string, depthB int, docB bool, splitB, qrelsB, testB string, permsB uint16) {
		defer fuzzwatch.Start(fuzzwatch.Bound)()
		for _, s := range []string{baseA, metricA, testA, baseB, metricB, testB} {
			if !utf8.ValidString(s) {
				return // the key (hex), metric and test come from the config: YAML is UTF-8
			}
		}
		a, qa := fuzzTuningInputs(metricA, depthA, docA, splitA, qrelsA, testA, permsA)
		b, qb := fuzzTuningInputs(metricB, depthB, docB, splitB, qrelsB, testB, permsB)
		same := baseA == baseB && a.Metric == b.Metric && a.Depth == b.Depth && a.DocLevel == b.DocLevel &&
			sameSet(a.Tuning, b.Tuning) && sameSet(a.HeldOut, b.HeldOut) && reflect.DeepEqual(qa, qb) &&
			a.Significance.Test == b.Significance.Test && a.Significance.Permutations == b.Significance.Permutations
		ka, kb := tuningKey(baseA, a), tuningKey(baseB, b)
		if (ka == kb) != same {
			t.Fatalf("inputs equal %v, keys equal %v:\n%q %+v\n%q %+v", same, ka == kb, baseA, a, baseB, b)
		}
		// The key is the inputs' alone: order of the id lists aside.
		c := a
		c.Tuning, c.HeldOut = slices.Clone(a.Tuning), slices.Clone(a.HeldOut)
		slices.Reverse(c.Tuning)
		slices.Reverse(c.HeldOut)
		if tuningKey(baseA, c) != ka {
			t.Fatalf("reversed id lists give another key: %+v", a)
		}
	})
}

// fuzzTuningInputs decodes one FuzzTuningKey input, and its qrels.
func fuzzTuningInputs(metric string, depth int, docLevel bool, split, qrels, test string, perms uint16) (tuningInputs, eval.Qrels) {
	in := tuningInputs{Metric: metric, Depth: depth, DocLevel: docLevel,
		Significance: config.SignificanceConfig{Test: test, Permutations: int(perms)}}
	for _, id := range strings.Split(split, "\n") {
		if id == "" {
			continue
		}
		if held, ok := strings.CutSuffix(id, "*"); ok {
			in.HeldOut = append(in.HeldOut, held)
		} else {
			in.Tuning = append(in.Tuning, id)
		}
	}
	q := eval.Qrels{}
	for _, line := range strings.Split(qrels, "\n") {
		if f := strings.Fields(line); len(f) == 3 {
			if q[f[0]] == nil { // a query with no judgement is no query: not kept
				q[f[0]] = map[string]int{}
			}
			q[f[0]][f[1]] = len(f[2])
		}
	}
	in.Qrels = qrelsKey(q)
	return in, q
}

// sameSet reports whether a and b hold the same strings, repeats aside.
func sameSet(a, b []string) bool {
	set := func(s []string) map[string]bool {
		m := map[string]bool{}
		for _, x := range s {
			m[x] = true
		}
		return m
	}
	return maps.Equal(set(a), set(b))
}
