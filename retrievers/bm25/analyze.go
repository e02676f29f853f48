package bm25

import (
	"fmt"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
)

// Token is one analysed term of a text and the bytes [Start, End) of the
// text it came from.
type Token struct {
	Term       string
	Start, End int
}

var (
	analyzersMu sync.Mutex
	analyzers   = map[string]analysis.Analyzer{}
)

// Analyze returns the terms of text under analyzer name (AnalyzerEn or
// AnalyzerLuceneEn) in text order, exactly as an index of that analyzer
// indexes and searches them (the same mapping New builds), with no index:
// for diagnostics such as a miss's vocabulary mismatch (no query term in
// the gold passage). Each analyzer is built once per process. Errors: an
// unknown analyzer.
func Analyze(name, text string) ([]Token, error) {
	a, err := analyzerNamed(name)
	if err != nil {
		return nil, err
	}
	ts := a.Analyze([]byte(text))
	out := make([]Token, len(ts))
	for i, t := range ts {
		out[i] = Token{Term: string(t.Term), Start: t.Start, End: t.End}
	}
	return out, nil
}

func analyzerNamed(name string) (analysis.Analyzer, error) {
	analyzersMu.Lock()
	defer analyzersMu.Unlock()
	if a := analyzers[name]; a != nil {
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
	a := m.AnalyzerNamed(name)
	if a == nil {
		return nil, fmt.Errorf("bm25: analyzer %q not found", name)
	}
	analyzers[name] = a
	return a, nil
}
