package corpus

import "testing"

// TestRuneIndexesOf: a document's index is built once and then reused;
// another document gets its own.
func TestRuneIndexesOf(t *testing.T) {
	xs := RuneIndexes{}
	a := xs.Of("a", "héllo")
	if xs.Of("a", "ignored: the index exists") != a || a.Runes() != 5 || a.Bytes() != 6 {
		t.Errorf("Of(a) not reused or wrong: %d runes, %d bytes", a.Runes(), a.Bytes())
	}
	if b := xs.Of("b", "hi"); b == a || b.Runes() != 2 || len(xs) != 2 {
		t.Errorf("Of(b) = %p (a %p), %d runes, %d entries", b, a, b.Runes(), len(xs))
	}
}
