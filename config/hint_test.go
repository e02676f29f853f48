package config

import "testing"

// TestDidYouMean: the unknown-field hint names a key only when one is
// clearly meant: another case, the plural or singular, or the one key
// nearest within two edits (a swap of neighbours is one); none for a key
// as near to two others ("modle": mode and model), far from all, or of
// one letter.
func TestDidYouMean(t *testing.T) {
	for _, c := range []struct {
		key, typ, want string
	}{
		{"size", "config.ChunkingConfig", "sizes"},
		{"overlap", "config.ChunkingConfig", "overlaps"},
		{"Strategy", "config.ChunkingConfig", "strategy"},
		{"stratgey", "config.ChunkingConfig", "strategy"},
		{"promptk", "config.Config", "prompt_k"},
		{"metric", "config.Config", "metrics"},
		{"qrel", "config.DatasetConfig", "qrels"},
		{"fraction_", "config.HeldOutConfig", "fraction"},
		{"fusoin", "config.RetrieverConfig", "fusion"},
		{"modle", "config.RetrieverConfig", ""},
		{"colour", "config.ChunkingConfig", ""},
		{"x", "config.Config", ""},
		{"size", "config.NoSuchType", ""},
	} {
		if got := didYouMean(c.key, fieldNames(c.typ)); got != c.want {
			t.Errorf("didYouMean(%q) in %s = %q, want %q", c.key, c.typ, got, c.want)
		}
	}
}
