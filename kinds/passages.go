package kinds

import (
	"fmt"
	"maps"
	"strings"
	"sync"
	"unicode"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/redaction"
	"github.com/ragbench/ragbench/passages"
)

// This file is what the kinds that bring a pipeline's own passages (run,
// http; docs/pipelines.md) share: reading their results once per sweep,
// and handing them to the sweep as passages.
//
// A pipeline with a splitter of its own is not one of ragbench's
// chunkings. Its cell sits in every chunking row of the grid (the grid is
// chunkings × retrievers, so cell names, history, the gate and the
// significance tests treat it as any cell), but its passages are its own:
// Cell.Passages carries them, the sweep scores the cell on them (the token
// measures with their own lengths, chunk-level judgements with
// passages.Judgements) instead of the row's chunks, and its numbers are
// the same in every row unless the source differs per chunking (a run file
// named with {chunking}). A source that does not depend on the row is read
// (or asked) once per sweep.

// PassageKind is implemented by the kinds whose cells bring passages of
// their own (run, http): their runs are not chunk runs, so no hybrid or
// rerank retriever may take them as input.
type PassageKind interface {
	OwnPassages() bool
}

// passageMemo keeps, for one sweep, the corpus' locator and each source's
// result, so that a source that does not depend on the chunking is read
// or asked once.
type passageMemo struct {
	mu   sync.Mutex
	loc  *passages.Locator
	done map[string]*passageResult
}

// passageResult is one source's result: a passage run (and its scoring),
// or a chunk run of the row's own chunk ids.
type passageResult struct {
	run        *passages.Run
	scored     *passages.Scored
	chunkRun   eval.Run
	stats      Stats
	firstError string // the first query error scored as a miss (http)
	// secrets are the credentials (redaction.Forms) the notes, which quote
	// a service's text (an unmapped result's), are redacted of (http).
	secrets []string
}

// locator is the sweep's locator of docs, built on first use.
func (e *Env) locator(docs []corpus.Document) *passages.Locator {
	m := &e.passages
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.loc == nil {
		m.loc = passages.NewLocator(docs)
	}
	return m.loc
}

// passageSource returns the result of source key, made by get on first
// use; reused says it was made for an earlier cell.
func (e *Env) passageSource(key string, get func() (*passageResult, error)) (res *passageResult, reused bool, err error) {
	m := &e.passages
	m.mu.Lock()
	if r, ok := m.done[key]; ok {
		m.mu.Unlock()
		return r, true, nil
	}
	m.mu.Unlock()
	r, err := get()
	if err != nil {
		return nil, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.done == nil {
		m.done = map[string]*passageResult{}
	}
	m.done[key] = r
	return r, false, nil
}

// set fills c from r: the cell's run (a copy: the sweep adds the queries
// missing from it) and, for a passage run, its passages and notes. A
// reused result gets no timings: nothing was read or asked again.
func (r *passageResult) set(c *Cell, reused bool) {
	if !reused {
		c.Stats = r.stats
	}
	if r.scored == nil {
		c.Run = maps.Clone(r.chunkRun)
		return
	}
	c.Run = maps.Clone(r.scored.Run)
	c.Passages = r.scored
	if r.run.UnmappedCount() > 0 || r.run.OutOfOrder() > 0 {
		c.PassageNotes = r.run.Notes()
		for i, n := range c.PassageNotes {
			c.PassageNotes[i] = redaction.Redact(n, r.secrets)
		}
	}
}

// scorePassages converts a passage run read for cell c, bounding its
// unmapped rate by limit (key names the limit in the message).
func scorePassages(c *Cell, run *passages.Run, limit float64) (*passageResult, error) {
	if err := run.CheckUnmapped(limit, "max_unmapped"); err != nil {
		return nil, wrapName(c.Retriever, err)
	}
	sc, err := run.Scored(c.Docs)
	if err != nil {
		return nil, wrapName(c.Retriever, err)
	}
	return &passageResult{run: run, scored: sc}, nil
}

// checkMaxUnmapped checks a max_unmapped setting (nil: the default).
func checkMaxUnmapped(c Checker, v *float64) {
	if v != nil {
		if err := passages.CheckMaxUnmapped(*v); err != nil {
			c.Bad("max_unmapped", "%v", err)
		}
	}
}

// maxUnmapped is a max_unmapped setting's value (nil: the default).
func maxUnmapped(v *float64) float64 {
	if v == nil {
		return passages.DefaultMaxUnmapped
	}
	return *v
}

// credentialVar checks the environment variable name that config key key
// names, for retriever name: set, not empty, no control character (never
// showing its value). ok is false with the problem otherwise.
func credentialVar(name, key, variable string, get func(string) string) (FieldError, bool) {
	val := get(variable)
	switch {
	case val == "":
		return FieldError{key, fmt.Sprintf("retriever %q: environment variable %s is unset or empty", name, variable)}, false
	case strings.ContainsFunc(val, unicode.IsControl):
		return FieldError{key, fmt.Sprintf("retriever %q: environment variable %s holds a control character (a trailing \\r or \\n read from a file?); its value is not shown", name, variable)}, false
	}
	return FieldError{}, true
}
