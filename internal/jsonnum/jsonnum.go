// Package jsonnum holds the one rule by which ragbench writes a number that
// may be undefined into JSON: NaN or an infinity becomes null (JSON has
// neither; encoding/json refuses them), any other float64 itself.
package jsonnum

import "math"

// Finite returns a pointer to v, or nil (JSON null) when v is NaN or ±Inf.
func Finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}
