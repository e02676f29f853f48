package jsonnum

import (
	"encoding/json"
	"math"
	"testing"
)

// TestFinite: NaN and ±Inf marshal as null, other numbers as themselves.
func TestFinite(t *testing.T) {
	b, err := json.Marshal([]*float64{Finite(math.NaN()), Finite(math.Inf(1)), Finite(math.Inf(-1)), Finite(0.25), Finite(-3)})
	if err != nil || string(b) != "[null,null,null,0.25,-3]" {
		t.Errorf("got %s, %v", b, err)
	}
}
