package retrievers

import (
	"testing"
	"time"
)

// TestPercentile checks nearest-rank percentiles against hand computation
// (the ⌈p·n⌉-th smallest value).
func TestPercentile(t *testing.T) {
	// Nearest rank: n = 20 → p50 is the 10th, p95 the 19th smallest.
	d := make([]time.Duration, 20)
	for i := range d {
		d[i] = time.Duration(20-i) * time.Millisecond
	}
	if p := Percentile(d, 0.5); p != 10*time.Millisecond {
		t.Errorf("p50 %v, want 10ms", p)
	}
	if p := Percentile(d, 0.95); p != 19*time.Millisecond {
		t.Errorf("p95 %v, want 19ms", p)
	}
	if d[0] != 20*time.Millisecond || d[19] != time.Millisecond {
		t.Errorf("Percentile reordered its input: %v", d)
	}
	if p := Percentile(nil, 0.5); p != 0 {
		t.Errorf("empty: %v", p)
	}
}

// TestDefaultPositive: 0 takes the default, a positive value stays, a
// negative one is an error naming the field.
func TestDefaultPositive(t *testing.T) {
	for _, tc := range []struct{ in, want int }{{0, 64}, {1, 1}, {7, 7}} {
		v := tc.in
		if err := DefaultPositive("batch_size", &v, 64); err != nil || v != tc.want {
			t.Errorf("DefaultPositive(%d) = %d, %v; want %d", tc.in, v, err, tc.want)
		}
	}
	v := -3
	if err := DefaultPositive("depth", &v, 100); err == nil || err.Error() != "depth: must be > 0, got -3" {
		t.Errorf("DefaultPositive(-3) error = %v", err)
	}
}
