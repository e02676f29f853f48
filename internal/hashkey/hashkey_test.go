package hashkey

import "testing"

// TestKnownDigests: sha256 of "" and of "abc" (FIPS 180-2's test vectors),
// and Of a map is the digest of its JSON with sorted keys.
func TestKnownDigests(t *testing.T) {
	for in, want := range map[string]string{
		"":    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"abc": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	} {
		if got := Hex([]byte(in)); got != want {
			t.Errorf("Hex(%q) = %s, want %s", in, got, want)
		}
	}
	if Of(map[string]int{"b": 2, "a": 1}) != Hex([]byte(`{"a":1,"b":2}`)) {
		t.Error("Of(map) is not the digest of its sorted JSON")
	}
}
