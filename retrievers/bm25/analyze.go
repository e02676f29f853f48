package bm25

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/analysis/token/stop"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
)

// Token is one analysed term of a text and the bytes [Start, End) of the
// text it came from.
type Token struct {
	Term       string
	Start, End int
}

// Analyze returns the terms of text under analyzer name (AnalyzerEn or
// AnalyzerLuceneEn) in text order, exactly as an index of that analyzer
// indexes and searches them (the same mapping New builds), with no index:
// for diagnostics such as a miss's vocabulary mismatch (no query term in
// the gold passage). It runs bleve's analyzer, the definition the index
// build's fast path below is held to (TestFastAnalysisEqualsBleve,
// TestAnalyzeIsTheIndexAnalysis). Each analyzer is built once per process.
// Errors: an unknown analyzer.
func Analyze(name, text string) ([]Token, error) {
	a, err := analyzerNamed(name)
	if err != nil {
		return nil, err
	}
	ts := a.bleve.Analyze([]byte(text))
	out := make([]Token, len(ts))
	for i, t := range ts {
		out[i] = Token{Term: string(t.Term), Start: t.Start, End: t.End}
	}
	return out, nil
}

var (
	analyzersMu    sync.Mutex
	namedAnalyzers = map[string]*textAnalyzer{}
)

// analyzerNamed is the package's one analyzer of each name, built once per
// process from the mapping newMapping gives (safe for concurrent use: the
// memo is each caller's). Analyze, the index build and the query analysis
// all use it.
func analyzerNamed(name string) (*textAnalyzer, error) {
	analyzersMu.Lock()
	defer analyzersMu.Unlock()
	if a := namedAnalyzers[name]; a != nil {
		return a, nil
	}
	o := DefaultOptions()
	o.Analyzer = name
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("bm25: %w", err)
	}
	m, err := newMapping(o)
	if err != nil {
		return nil, err
	}
	ba := m.AnalyzerNamed(name)
	if ba == nil {
		return nil, fmt.Errorf("bm25: analyzer %q not found", name)
	}
	a := newTextAnalyzer(ba)
	namedAnalyzers[name] = a
	return a, nil
}

// Index-time analysis (issue 27). bleve's analyzer chain — Unicode word
// segmentation, then per-token filters — is 20–27 % of a build when run on
// every text. The chain's filters (possessive, lower case, stop words,
// Porter) each map one token to zero or one token, independently of the
// other tokens, so their output is memoised per raw token; and the
// segmentation of ASCII text is done here for the cases where UAX #29 (as
// blevesearch/segment implements it) is trivial:
//
//   - In blevesearch/segment's word rules, the only ASCII characters that
//     can be inside a word are letters, digits and _ . ' : , ; " (ALetter,
//     Numeric, ExtendNumLet, MidNumLet, Single_Quote, MidLetter, MidNum,
//     Double_Quote); every other ASCII character (white space, controls, the
//     rest of the punctuation) is a boundary on both sides and never part of
//     a token. So in valid UTF-8 a text splits at those "hard" characters
//     into pieces that are segmented independently.
//   - A piece of ASCII letters and digits only is one token (WB5, WB8–WB10).
//   - A word never starts with . ' : , ; " and, without Hebrew letters
//     (WB7a), never ends with one: such characters at either end of an
//     ASCII piece are dropped before looking at it again.
//
// Every other piece (non-ASCII, or with _ . ' : , ; " inside) goes to
// bleve's own tokenizer, and a text that is not valid UTF-8 to bleve's whole
// analyzer. TestFastAnalysisEqualsBleve and FuzzFastAnalysis compare the
// result with bleve's analyzer token for token (exhaustively over short
// strings, on random text and on SciFact, Cranfield and chunking-chroma).

// charClass of an ASCII byte for the fast segmentation.
const (
	chHard  = iota // a word boundary, never inside a word
	chAlnum        // ASCII letter or digit
	chEdge         // . ' : , ; " — inside words only between letters or digits
	chUnder        // _ (ExtendNumLet: may start or end a word)
	chHigh         // a byte of a multi-byte UTF-8 character
)

var charClass = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case c >= 0x80:
			t[c] = chHigh
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
			t[c] = chAlnum
		case c == '_':
			t[c] = chUnder
		case c == '.', c == '\'', c == ':', c == ',', c == ';', c == '"':
			t[c] = chEdge
		default:
			t[c] = chHard
		}
	}
	return t
}()

// textAnalyzer is one of the package's analyzers (AnalyzerEn,
// AnalyzerLuceneEn) as bleve builds it, with the fast path above when its
// chain allows it (a unicode tokenizer and per-token filters only).
type textAnalyzer struct {
	bleve     analysis.Analyzer
	tokenizer analysis.Tokenizer
	filters   []analysis.TokenFilter
	fast      bool
}

func newTextAnalyzer(a analysis.Analyzer) *textAnalyzer {
	ta := &textAnalyzer{bleve: a}
	da, ok := a.(*analysis.DefaultAnalyzer)
	if !ok || len(da.CharFilters) > 0 {
		return ta
	}
	if _, ok := da.Tokenizer.(*unicode.UnicodeTokenizer); !ok {
		return ta
	}
	for _, f := range da.TokenFilters {
		switch f.(type) {
		case *en.PossessiveFilter, *lowercase.LowerCaseFilter, *stop.StopTokensFilter, *porter.PorterStemmer:
		default:
			return ta // a filter that may look at other tokens
		}
	}
	ta.tokenizer, ta.filters, ta.fast = da.Tokenizer, da.TokenFilters, true
	return ta
}

// rawTokens calls emit with each token bleve's tokenizer gives for text, in
// order, before the token filters (the fast path); it returns false, having
// emitted nothing, when the text must go through bleve's whole analyzer
// (invalid UTF-8, or an analyzer without the fast path).
func (a *textAnalyzer) rawTokens(text string, emit func(raw string)) bool {
	if !a.fast || !utf8.ValidString(text) {
		return false
	}
	for i := 0; i < len(text); {
		if charClass[text[i]] == chHard {
			i++
			continue
		}
		j, mixed, high := i, false, false
	scan:
		for ; j < len(text); j++ {
			switch charClass[text[j]] {
			case chHard:
				break scan
			case chHigh:
				high = true
			case chEdge, chUnder:
				mixed = true
			}
		}
		p := text[i:j]
		i = j
		if !high && mixed {
			p = trimEdges(p)
			mixed = false
			for k := 0; k < len(p) && !mixed; k++ {
				mixed = charClass[p[k]] != chAlnum
			}
		}
		switch {
		case p == "":
		case !high && !mixed:
			emit(p)
		default:
			for _, t := range a.tokenizer.Tokenize([]byte(p)) {
				emit(string(t.Term))
			}
		}
	}
	return true
}

// trimEdges drops the . ' : , ; " at both ends of an ASCII piece.
func trimEdges(p string) string {
	for p != "" && charClass[p[0]] == chEdge {
		p = p[1:]
	}
	for p != "" && charClass[p[len(p)-1]] == chEdge {
		p = p[:len(p)-1]
	}
	return p
}

// filter runs the analyzer's token filters on one raw token and returns the
// terms they leave (none for a stop word).
func (a *textAnalyzer) filter(raw string) []string {
	ts := analysis.TokenStream{&analysis.Token{Term: []byte(raw), Start: 0, End: len(raw), Position: 1, Type: analysis.AlphaNumeric}}
	for _, f := range a.filters {
		ts = f.Filter(ts)
	}
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = string(t.Term)
	}
	return out
}

// analyze calls emit with each term of text after analysis, in order: what
// bleve's analyzer gives (TestFastAnalysisEqualsBleve), through memo.
func (a *textAnalyzer) analyze(text string, memo *termMemo, emit func(e *memoTerm)) {
	if a.rawTokens(text, func(raw string) {
		for _, e := range memo.lookup(a, raw) {
			emit(e)
		}
	}) {
		return
	}
	for _, t := range a.bleve.Analyze([]byte(text)) {
		emit(memo.term(string(t.Term)))
	}
}

// memoMax bounds the raw tokens and the terms a termMemo keeps (about 100
// bytes each); tokens seen once the memo is full are filtered every time.
const memoMax = 1 << 18

// termMemo is one build worker's memo of the token filters' output per raw
// token, and of each output term's number in the worker's current segment
// vocabulary (see segWorker). Not safe for concurrent use.
type termMemo struct {
	raw   map[string][]*memoTerm
	terms map[string]*memoTerm // output terms, within memoMax
	// over holds the terms of the current segment beyond memoMax, so that a
	// term has one memoTerm (one number) per segment.
	over map[string]*memoTerm
}

// memoTerm is an analysed term with its number in a segment vocabulary
// (valid while gen is the vocabulary's generation).
type memoTerm struct {
	term string
	gen  uint32
	id   uint32
	kept bool // in termMemo.terms
}

func newTermMemo() *termMemo {
	return &termMemo{raw: map[string][]*memoTerm{}, terms: map[string]*memoTerm{}, over: map[string]*memoTerm{}}
}

// segment starts a new segment vocabulary.
func (m *termMemo) segment() { clear(m.over) }

// lookup returns the analysed terms of raw token raw.
func (m *termMemo) lookup(a *textAnalyzer, raw string) []*memoTerm {
	if ts, ok := m.raw[raw]; ok {
		return ts
	}
	out := a.filter(raw)
	ts := make([]*memoTerm, len(out))
	keep := len(m.raw) < memoMax
	for i, t := range out {
		ts[i] = m.term(t)
		keep = keep && ts[i].kept
	}
	if keep {
		m.raw[strings.Clone(raw)] = ts // raw may point into a chunk's text
	}
	return ts
}

// term returns the memoTerm of an analysed term.
func (m *termMemo) term(t string) *memoTerm {
	if e, ok := m.terms[t]; ok {
		return e
	}
	if e, ok := m.over[t]; ok {
		return e
	}
	e := &memoTerm{term: t, kept: len(m.terms) < memoMax}
	if e.kept {
		m.terms[t] = e
	} else {
		m.over[t] = e
	}
	return e
}
