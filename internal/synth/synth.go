// Package synth writes seeded synthetic retrieval datasets in BEIR's layout
// (corpus.jsonl, queries.jsonl, qrels/test.tsv), the corpus of the scale
// benchmark (scripts/bench-scale.sh, issue 27): any number of documents, each
// 40–160 words drawn from a Zipf-distributed vocabulary, and queries of 3–6
// distinct words drawn from one target document each, judged relevant (grade
// 1) for that target only.
//
// Words are made of the 19 consonants other than s and y, at least three
// letters long ("bbb", "bbc", …; Word gives the word of a rank): no stop
// list (Lucene's, Snowball's, BM25S's) contains one, and the Porter stemmer
// changes none (every suffix it strips holds a vowel, s or y), so Lucene's
// English analysis, bleve's and BM25S's tokenizer all see the same terms, and
// the engines' nDCG can be compared to the third decimal.
//
// The output depends only on the Spec (seed included): the same Spec writes
// the same bytes, on any machine, with math/rand/v2's PCG and Zipf.
package synth

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// Spec describes a synthetic dataset. Zero fields take the defaults of
// DefaultSpec (except Docs, which must be set, and Seed, where 0 is a seed).
type Spec struct {
	Docs       int     // documents, > 0
	Queries    int     // queries (each with one distinct target document), ≤ Docs; 0 selects 1,000
	Vocabulary int     // distinct word ranks the Zipf law draws from; 0 selects 500,000
	Zipf       float64 // the Zipf exponent s (> 1): P(rank r) ∝ r^−s; 0 selects 1.1
	MinWords   int     // words per document, at least; 0 selects 40
	MaxWords   int     // words per document, at most (≥ MinWords); 0 selects 160
	MinTerms   int     // distinct words per query, at least; 0 selects 3
	MaxTerms   int     // distinct words per query, at most (≥ MinTerms); 0 selects 6
	Seed       uint64  // the PCG seed
}

// DefaultSpec returns the defaults as data: 1,000 queries, a 500,000-word
// vocabulary with Zipf exponent 1.1, 40–160 words per document, 3–6 terms per
// query, seed 1 (Docs is left 0: the caller chooses the size).
func DefaultSpec() Spec {
	return Spec{Queries: 1000, Vocabulary: 500000, Zipf: 1.1, MinWords: 40, MaxWords: 160, MinTerms: 3, MaxTerms: 6, Seed: 1}
}

// resolve fills zero fields from DefaultSpec and checks ranges.
func (s Spec) resolve() (Spec, error) {
	d := DefaultSpec()
	fill := func(v *int, def int) {
		if *v == 0 {
			*v = def
		}
	}
	fill(&s.Queries, d.Queries)
	fill(&s.Vocabulary, d.Vocabulary)
	fill(&s.MinWords, d.MinWords)
	fill(&s.MaxWords, d.MaxWords)
	fill(&s.MinTerms, d.MinTerms)
	fill(&s.MaxTerms, d.MaxTerms)
	if s.Zipf == 0 {
		s.Zipf = d.Zipf
	}
	switch {
	case s.Docs <= 0:
		return s, fmt.Errorf("docs: %d, want > 0", s.Docs)
	case s.Queries < 0 || s.Queries > s.Docs:
		return s, fmt.Errorf("queries: %d, want in [1, docs = %d]", s.Queries, s.Docs)
	case s.Vocabulary < 1:
		return s, fmt.Errorf("vocabulary: %d, want > 0", s.Vocabulary)
	case !(s.Zipf > 1):
		return s, fmt.Errorf("zipf: %g, want > 1", s.Zipf)
	case s.MinWords < 1 || s.MaxWords < s.MinWords:
		return s, fmt.Errorf("words per document: [%d, %d], want 1 ≤ min ≤ max", s.MinWords, s.MaxWords)
	case s.MinTerms < 1 || s.MaxTerms < s.MinTerms:
		return s, fmt.Errorf("terms per query: [%d, %d], want 1 ≤ min ≤ max", s.MinTerms, s.MaxTerms)
	}
	return s, nil
}

// letters are the consonants words are spelled with (no vowel, s or y).
const letters = "bcdfghjklmnpqrtvwxz"

// Word returns the word of vocabulary rank r ≥ 0 (rank 0 is the most
// frequent): bijective base-19 over letters, offset so that every word has
// at least three letters; distinct ranks give distinct words.
func Word(r int) string {
	const n = len(letters)
	x := r + n + n*n // skip the 19 one-letter and 361 two-letter words
	var buf [16]byte
	i := len(buf)
	for x >= 0 {
		i--
		buf[i] = letters[x%n]
		x = x/n - 1
	}
	return string(buf[i:])
}

// Write generates the dataset of spec into dir (created if needed):
// corpus.jsonl ({"_id", "title": "", "text"} per line, ids "d" + zero-padded
// index), queries.jsonl ({"_id", "text"}, ids "q" + zero-padded index) and
// qrels/test.tsv (BEIR's header, then "query-id corpus-id 1" per query).
// Each file is written to a temporary name and renamed when complete.
// Errors: an invalid spec (naming the field), file-system failures.
func Write(dir string, spec Spec) error {
	s, err := spec.resolve()
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "qrels"), 0o755); err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	g := newGen(s)
	if err := writeFile(filepath.Join(dir, "corpus.jsonl"), g.corpus); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "queries.jsonl"), g.queries); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, "qrels", "test.tsv"), g.qrels)
}

// writeFile writes path through a buffered temporary file, renamed into
// place when fill succeeds.
func writeFile(path string, fill func(w *bufio.Writer) error) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = fill(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("synth: %s: %w", path, err)
	}
	return nil
}

// gen holds the drawn queries between the corpus pass and the other files.
type gen struct {
	s       Spec
	targets map[int]int // target document → query index
	terms   [][]int     // per query, its word ranks (filled by corpus)
	dw, qw  int         // digits of document and query ids
}

func newGen(s Spec) *gen {
	g := &gen{s: s, targets: make(map[int]int, s.Queries), terms: make([][]int, s.Queries),
		dw: len(strconv.Itoa(s.Docs - 1)), qw: len(strconv.Itoa(s.Queries - 1))}
	// Targets come from their own stream, so the corpus does not depend on
	// the number of queries.
	qr := rand.New(rand.NewPCG(s.Seed, 2))
	for q := 0; q < s.Queries; q++ {
		for {
			d := qr.IntN(s.Docs)
			if _, taken := g.targets[d]; !taken {
				g.targets[d] = q
				break
			}
		}
	}
	return g
}

func (g *gen) docID(i int) string   { return fmt.Sprintf("d%0*d", g.dw, i) }
func (g *gen) queryID(q int) string { return fmt.Sprintf("q%0*d", g.qw, q) }

// corpus writes every document and, for each target, draws its query's
// terms: distinct words picked at uniformly random positions of the
// document (so frequent words are picked as often as they occur), in the
// order drawn; a document with fewer distinct words than drawn gives them all.
func (g *gen) corpus(w *bufio.Writer) error {
	rng := rand.New(rand.NewPCG(g.s.Seed, 1))
	zipf := rand.NewZipf(rng, g.s.Zipf, 1, uint64(g.s.Vocabulary-1))
	qr := rand.New(rand.NewPCG(g.s.Seed, 3))
	words := make([]int, 0, g.s.MaxWords)
	for i := 0; i < g.s.Docs; i++ {
		words = words[:0]
		n := g.s.MinWords + rng.IntN(g.s.MaxWords-g.s.MinWords+1)
		for range n {
			words = append(words, int(zipf.Uint64()))
		}
		if q, ok := g.targets[i]; ok {
			g.terms[q] = pickTerms(qr, words, g.s.MinTerms+qr.IntN(g.s.MaxTerms-g.s.MinTerms+1))
		}
		if err := writeLine(w, `{"_id": "`+g.docID(i)+`", "title": "", "text": "`, words); err != nil {
			return err
		}
	}
	return nil
}

// writeLine writes a JSONL line: prefix, the words of ranks separated by
// spaces, and the closing quote and brace (words need no JSON escaping).
func writeLine(w *bufio.Writer, prefix string, ranks []int) error {
	w.WriteString(prefix)
	for j, r := range ranks {
		if j > 0 {
			w.WriteByte(' ')
		}
		w.WriteString(Word(r))
	}
	_, err := w.WriteString("\"}\n")
	return err
}

// pickTerms draws up to n distinct words of words at random positions.
func pickTerms(rng *rand.Rand, words []int, n int) []int {
	distinct := map[int]bool{}
	for _, r := range words {
		distinct[r] = true
	}
	n = min(n, len(distinct))
	var out []int
	seen := map[int]bool{}
	for len(out) < n {
		r := words[rng.IntN(len(words))]
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}

func (g *gen) queries(w *bufio.Writer) error {
	for q, terms := range g.terms {
		if terms == nil {
			return errors.New("a query without terms (generator bug)")
		}
		if err := writeLine(w, `{"_id": "`+g.queryID(q)+`", "text": "`, terms); err != nil {
			return err
		}
	}
	return nil
}

func (g *gen) qrels(w *bufio.Writer) error {
	byQuery := make([]int, g.s.Queries)
	for d, q := range g.targets {
		byQuery[q] = d
	}
	if _, err := io.WriteString(w, "query-id\tcorpus-id\tscore\n"); err != nil {
		return err
	}
	for q, d := range byQuery {
		if _, err := fmt.Fprintf(w, "%s\t%s\t1\n", g.queryID(q), g.docID(d)); err != nil {
			return err
		}
	}
	return nil
}
