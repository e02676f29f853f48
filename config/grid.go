package config

import "github.com/ragbench/ragbench/corpus"

// Chunking is one point of the chunking grid.
type Chunking struct {
	// Name is corpus.Spec.Name: "doc", "fixed-128o32", "fixed-128" (no
	// overlap), "sent-256", "tokens-cl100k_base-200o100", "recursive-400".
	Name string `json:"name"`
	// Strategy is the config's strategy: doc, fixed, sentence, tokens or
	// recursive.
	Strategy  string `json:"strategy"`
	Tokenizer string `json:"tokenizer"` // tokens, recursive: the BPE sizes count ("" = words, or characters for recursive)
	Size      int    `json:"size"`      // per chunk, in the strategy's unit (0 for doc)
	Overlap   int    `json:"overlap"`   // shared by neighbours, in the strategy's unit
	Title     bool   `json:"title"`     // title prepended to each chunk's indexed text
}

// Chunkings expands the config's chunking grid, in config order, without
// duplicates.
func (c *Config) Chunkings() []Chunking {
	var out []Chunking
	seen := map[string]bool{}
	add := func(ch Chunking) {
		if !seen[ch.Name] {
			seen[ch.Name] = true
			out = append(out, ch)
		}
	}
	for _, g := range c.Chunking {
		if g.Strategy == "doc" {
			add(newChunking("doc", "", 0, 0, *c.Dataset.Title))
			continue
		}
		for _, s := range g.Sizes {
			for _, o := range g.Overlaps {
				add(newChunking(g.Strategy, g.Tokenizer, s, o, *c.Dataset.Title))
			}
		}
	}
	return out
}

// Cell is one (chunking, retriever) pair of the sweep.
type Cell struct {
	// Name is "<chunking>/<retriever>".
	Name      string          `json:"name"`
	Chunking  Chunking        `json:"chunking"`
	Retriever RetrieverConfig `json:"retriever"`
}

// FileName is the cell's name usable as a file name: '/' becomes "__".
func (c Cell) FileName() string { return c.Chunking.Name + "__" + c.Retriever.Name }

// Cells returns every chunking × retriever cell: chunkings in grid order,
// retrievers in config order within each.
func (c *Config) Cells() []Cell {
	var out []Cell
	for _, ch := range c.Chunkings() {
		for _, r := range c.Retrievers {
			out = append(out, Cell{Name: ch.Name + "/" + r.Name, Chunking: ch, Retriever: r})
		}
	}
	return out
}

// Spec is the corpus chunking spec of ch.
func (ch Chunking) Spec() corpus.Spec {
	st := ch.Strategy
	if st == "doc" {
		st = corpus.Whole
	}
	return corpus.Spec{Strategy: st, Tokenizer: ch.Tokenizer, Size: ch.Size, Overlap: ch.Overlap, Title: ch.Title}
}

func newChunking(strategy, tokenizer string, size, overlap int, title bool) Chunking {
	ch := Chunking{Strategy: strategy, Tokenizer: tokenizer, Size: size, Overlap: overlap, Title: title}
	ch.Name = ch.Spec().Name()
	return ch
}
