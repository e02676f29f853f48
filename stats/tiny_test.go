package stats

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

// tinySamples returns paired samples of n = 0..3 queries covering identical
// systems, constant non-zero differences, ties and mixed signs.
func tinySamples() []Sample {
	var out []Sample
	for n := 0; n <= 3; n++ {
		for _, shape := range []func(i int) (float64, float64){
			func(i int) (float64, float64) { return 0.5, 0.5 },                           // identical
			func(i int) (float64, float64) { return 0.7, 0.2 },                           // constant difference
			func(i int) (float64, float64) { return float64(i) / 3, 0.5 },                // mixed signs
			func(i int) (float64, float64) { return float64(i%2) * 0.4, float64(i) / 4 }, // ties and zeros
		} {
			s := Sample{A: make([]float64, n), B: make([]float64, n)}
			for i := range n {
				s.A[i], s.B[i] = shape(i)
				s.QueryIDs = append(s.QueryIDs, fmt.Sprintf("q%d", i))
			}
			out = append(out, s)
		}
	}
	return out
}

// finite reports the path of the first NaN or infinite float64 in v, or "".
func finite(v reflect.Value, path string) string {
	switch v.Kind() {
	case reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return path
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if p := finite(v.Field(i), path+"."+v.Type().Field(i).Name); p != "" {
				return p
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if p := finite(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			return finite(v.Elem(), path)
		}
	}
	return ""
}

// checkFinite fails t when x holds a NaN or infinite number or does not
// marshal to JSON.
func checkFinite(t *testing.T, label string, x any) {
	t.Helper()
	if p := finite(reflect.ValueOf(x), ""); p != "" {
		t.Errorf("%s: %s is not finite in %+v", label, p, x)
	}
	if _, err := json.Marshal(x); err != nil {
		t.Errorf("%s: %v", label, err)
	}
}

// TestTinySamples is the property test of issue 26: for n = 0..3 queries,
// every paired test, the bootstrap intervals, TOST, the corrections, Tukey
// HSD, MDD and the sample size give finite numbers that marshal to JSON;
// below two queries p = 1, no interval and a warning.
func TestTinySamples(t *testing.T) {
	for _, s := range tinySamples() {
		n := len(s.A)
		label := fmt.Sprintf("n = %d %v−%v", n, s.A, s.B)
		for _, test := range TestNames(true) {
			r, err := Paired(Test(test), s, Options{Seed: 1})
			if err != nil {
				t.Fatalf("%s %s: %v", test, label, err)
			}
			checkFinite(t, test+" "+label, r)
			if !(r.P >= 0 && r.P <= 1) {
				t.Errorf("%s %s: p = %v", test, label, r.P)
			}
			if n < 2 && (r.P != 1 || r.Effect.CIDefined || len(r.Warnings) == 0) {
				t.Errorf("%s %s: p = %v, CI defined %v, warnings %q; want p = 1, no interval, a warning", test, label, r.P, r.Effect.CIDefined, r.Warnings)
			}
		}
		for _, m := range []IntervalMethod{BCa, Percentile} {
			iv, err := BootstrapInterval(s, m, Options{Seed: 1, Resamples: 1000})
			if err != nil {
				t.Fatal(err)
			}
			checkFinite(t, string(m)+" "+label, iv)
			if iv.Defined != (n >= 2) || iv.Defined && iv.Low > iv.High {
				t.Errorf("%s %s: %+v", m, label, iv)
			}
		}
		e, err := TOST(s, 0.05)
		if err != nil {
			t.Fatal(err)
		}
		checkFinite(t, "TOST "+label, e)
		if n < 2 && (e.P != 1 || len(e.Warnings) == 0) {
			t.Errorf("TOST %s: %+v, want p = 1 and a warning", label, e)
		}
		d, _ := s.diffs()
		sd := 0.0
		if n >= 2 {
			sd = stdDev(d, mean(d))
		}
		for _, v := range []float64{MDD(n, sd, 0.05, 0.8), Power(n, 0.1, sd, 0.05)} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%s: MDD/Power %v", label, v)
			}
		}
		if k, ok := SampleSize(0.1, sd, 0.05, 0.8); ok && k < 2 {
			t.Errorf("%s: sample size %d", label, k)
		}
		if n >= 2 {
			h, err := TukeyHSD([]string{"a", "b"}, s.QueryIDs, [][]float64{s.A, s.B}, Options{Seed: 1, Permutations: 100})
			if err != nil {
				t.Fatal(err)
			}
			checkFinite(t, "tukey "+label, h)
		}
	}
	for _, c := range Corrections {
		for n := 0; n <= 3; n++ {
			p := []float64{1, 0, 0.5}[:n]
			adj, err := Adjust(p, c)
			if err != nil || len(adj) != n {
				t.Fatalf("%s n = %d: %v %v", c, n, adj, err)
			}
			checkFinite(t, string(c), adj)
		}
	}
	h, err := TukeyHSD([]string{"a", "b", "c"}, nil, [][]float64{{}, {}, {}}, Options{})
	if err != nil || h.P[0][1] != 1 || len(h.Warnings) == 0 {
		t.Errorf("tukey n = 0: %+v %v, want p = 1 and a warning", h, err)
	}
	checkFinite(t, "tukey n = 0", h)
}

// TestFewResamplesRefused: a bootstrap interval of 2 resamples was
// computed (and could exclude its own point estimate); every count below
// MinResamples is refused by CheckResamples, through Options too.
func TestFewResamplesRefused(t *testing.T) {
	s := Sample{A: []float64{0.1, 0.5, 0.2, 0.3, 0.9, 0.0, 0.4}, B: []float64{0, 0.1, 0.4, 0.3, 0.2, 0.5, 0.1}}
	for _, n := range []int{1, 2, 999} {
		if _, err := BootstrapInterval(s, BCa, Options{Seed: 1, Resamples: n}); err == nil || !strings.Contains(err.Error(), "want ≥ 1000") {
			t.Errorf("%d resamples: err = %v", n, err)
		}
	}
	if err := CheckResamples(MinResamples); err != nil {
		t.Error(err)
	}
}
