package kinds

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"

	"github.com/ragbench/ragbench/retrievers"
	"github.com/ragbench/ragbench/retrievers/bm25"
)

// BM25 is a type bm25 retriever: package bm25 over bleve.
type BM25 struct {
	// K1 and B are BM25's parameters (defaults bm25.DefaultOptions: 0.9
	// and 0.4, Anserini's); 0 is a value (binary tf, no length
	// normalisation), never "the default".
	K1 *float64 `yaml:"k1" json:"k1,omitempty"`
	B  *float64 `yaml:"b" json:"b,omitempty"`
	// Scoring is "lucene" (default; Lucene's BM25 formula) or "bleve"
	// (bleve's own scorer, for comparison).
	Scoring string `yaml:"scoring" json:"scoring,omitempty" empty:"empty: lucene or bleve; remove the line to use the default (lucene)"`
	// Fields is "flat" (default: title + text as one field) or "multi"
	// (title and text scored as two fields, scores summed).
	Fields string `yaml:"fields" json:"fields,omitempty" empty:"empty: flat or multi; remove the line to use the default (flat)"`
	// Analyzer is "en" (default: bleve's English analyzer, Snowball stop
	// words, Porter stemming) or "lucene-en" (Lucene's 33 stop words).
	Analyzer string `yaml:"analyzer" json:"analyzer,omitempty" empty:"empty: en or lucene-en; remove the line to use the default (en)"`
	// ExactLengths scores with exact document lengths instead of Lucene's
	// one-byte lengths.
	ExactLengths bool `yaml:"exact_lengths" json:"exact_lengths,omitempty"`
}

// Check fills b from bm25.DefaultOptions and validates it with
// bm25.Options.Validate.
func (b *BM25) Check(c Checker) {
	c.Only(keysOf(b)...)
	d := bm25.DefaultOptions()
	if b.K1 == nil {
		b.K1 = ptr(d.K1)
	}
	if b.B == nil {
		b.B = ptr(d.B)
	}
	b.Scoring = cmp.Or(b.Scoring, d.Scoring)
	b.Fields = cmp.Or(b.Fields, d.Fields)
	b.Analyzer = cmp.Or(b.Analyzer, d.Analyzer)
	if err := b.Options("").Validate(); err != nil {
		key, msg := optionField(err)
		c.Bad(key, "%s", msg)
	}
}

// Options is b's bm25.Options (defaults filled by Check), its index cached
// under dir. k1 = 0 and b = 0 are meaningful values, spelled with bm25's
// explicit flags: bm25 reads a zero K1 or B as "use the default".
func (b *BM25) Options(dir string) bm25.Options {
	return bm25.Options{K1: *b.K1, B: *b.B, BinaryTF: *b.K1 == 0, NoLengthNorm: *b.B == 0, Scoring: b.Scoring,
		Fields: b.Fields, Analyzer: b.Analyzer, ExactLengths: b.ExactLengths, Dir: dir}
}

// Describe is "k1=0.9 b=0.4, lucene scoring, flat fields, en analyzer".
func (b *BM25) Describe() string {
	return fmt.Sprintf("k1=%g b=%g, %s scoring, %s fields, %s analyzer", *b.K1, *b.B, b.Scoring, b.Fields, b.Analyzer)
}

// NeedsRuntime is false: BM25 runs no model.
func (b *BM25) NeedsRuntime() bool { return false }

// Cacheable is true.
func (b *BM25) Cacheable() bool { return true }

// CacheKeyParts marks k1 = 0: ragbench before the explicit-zero fix ran it
// as the default 0.9, so such cells get a run-cache key of their own and
// no run cached by an older binary is read back; every other key is
// unchanged.
func (b *BM25) CacheKeyParts() map[string]string {
	if b.K1 != nil && *b.K1 == 0 {
		return map[string]string{"zero": "explicit"}
	}
	return nil
}

// Run indexes the chunks (stage "index"; the index cached under the cache
// folder's bm25/) and searches every query.
func (b *BM25) Run(ctx context.Context, c *Cell) error {
	return searchCell(ctx, c, b, StageIndex, "", func() (retrievers.Retriever, error) {
		return bm25.Build(ctx, c.Chunks.Stream(), b.Options(filepath.Join(c.Env.CacheDir, "bm25")))
	})
}
