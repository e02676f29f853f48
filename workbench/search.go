package workbench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/ragbench/ragbench/anchor"
	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/kinds"
	"github.com/ragbench/ragbench/retrievers"
	"github.com/ragbench/ragbench/spans"
)

// This file runs the config's retrievers on one question at a time: each
// first stage (bm25, dense) is built once, through its kind's own Run and
// over the sweep's cache folder (so BM25 and dense indexes a bench run
// cached are read back, not rebuilt), and kept; staged kinds (hybrid,
// rerank) are run per question on their inputs' runs.

// Cell states, as /api/state reports them.
const (
	stateBuilding = "building"
	stateReady    = "ready"
	stateSkipped  = "skipped"
	stateFailed   = "failed"
)

// ShowPerCell is how many of each cell's results a search shows (the
// pooled list holds the union).
const ShowPerCell = 10

// searchCell is one chunking × retriever cell of the config.
type searchCell struct {
	Name  string `json:"cell"`
	State string `json:"state"`
	Note  string `json:"note,omitempty"`

	chunking string
	rc       config.RetrieverConfig
	ret      retrievers.Retriever // a first stage's retriever, once built
}

// chunkSet is one chunking's chunks and their places.
type chunkSet struct {
	spec   corpus.Spec
	chunks corpus.Chunks
	places *spans.Chunking
}

// searcher holds the config's cells and their retrievers.
type searcher struct {
	docs  []corpus.Document
	env   *kinds.Env
	depth int

	mu        sync.Mutex // guards the cells' states and chunkings
	cells     []*searchCell
	chunkings map[string]*chunkSet
	order     []string // chunking names, config order

	searchMu sync.Mutex // one search at a time: the kinds' Env loads models into maps of its own
}

// newSearcher lists the cells of cfg over docs; build makes their
// retrievers. ortLib is the ONNX Runtime library ("" = the default).
func newSearcher(cfg *config.Config, docs []corpus.Document, ortLib string) *searcher {
	s := &searcher{docs: docs, env: kinds.NewEnv(cfg.CacheDir, ortLib), depth: max(cfg.Depth, ShowPerCell), chunkings: map[string]*chunkSet{}}
	for _, rc := range cfg.Retrievers {
		if d, ok := rc.Settings.(kinds.Deep); ok {
			s.depth = max(s.depth, d.ChunkDepth())
		}
	}
	for _, ch := range cfg.Chunkings() {
		s.order = append(s.order, ch.Name)
		s.chunkings[ch.Name] = &chunkSet{spec: ch.Spec()}
		for _, rc := range cfg.Retrievers {
			s.cells = append(s.cells, &searchCell{Name: ch.Name + "/" + rc.Name, State: stateBuilding, chunking: ch.Name, rc: rc})
		}
	}
	return s
}

// states is a copy of the cells' states.
func (s *searcher) states() []searchCell {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]searchCell, len(s.cells))
	for i, c := range s.cells {
		out[i] = searchCell{Name: c.Name, State: c.State, Note: c.Note}
	}
	return out
}

func (s *searcher) set(c *searchCell, state, note string) {
	s.mu.Lock()
	c.State, c.Note = state, note
	s.mu.Unlock()
}

// build cuts each chunking and builds each first stage (in config order),
// marking the cells ready, skipped (with why) or failed. Staged cells are
// ready when their inputs are. It returns when every cell is settled (ctx
// done: the cells left fail as stopped). A search runs between two steps.
func (s *searcher) build(ctx context.Context) {
	for _, name := range s.order {
		cs := s.chunkings[name]
		s.searchMu.Lock() // searches wait for a step of the build, not for all of it
		chunks, err := cs.spec.Chunk(s.docs)
		var places *spans.Chunking
		if err == nil {
			places, err = spans.NewChunking(s.docs, chunks)
		}
		s.mu.Lock()
		cs.chunks, cs.places = chunks, places
		s.mu.Unlock()
		s.searchMu.Unlock()
		for _, c := range s.cells {
			if c.chunking != name {
				continue
			}
			switch {
			case err != nil:
				s.set(c, stateFailed, "chunking: "+err.Error())
			case ctx.Err() != nil:
				s.set(c, stateFailed, "stopped")
			default:
				s.searchMu.Lock()
				s.buildCell(ctx, c, cs)
				s.searchMu.Unlock()
			}
		}
	}
}

// buildCell builds one cell's retriever, or says why it is not searched.
func (s *searcher) buildCell(ctx context.Context, c *searchCell, cs *chunkSet) {
	st := c.rc.Settings
	if st == nil {
		s.set(c, stateSkipped, "a retriever type this version does not know")
		return
	}
	if _, ok := st.(kinds.Dialer); ok {
		s.set(c, stateSkipped, "searches a cluster: not asked from the workbench (its index would be loaded or queried over the network)")
		return
	}
	if m := kinds.ModelOf(st); m != "" {
		if _, err := os.Stat(filepath.Join(m, "model.onnx")); err != nil {
			s.set(c, stateSkipped, "model "+filepath.Base(m)+" not present (scripts/fetch-models.sh)")
			return
		}
	}
	if staged, ok := st.(kinds.Staged); ok {
		for _, in := range staged.InputNames() {
			if ic := s.cell(c.chunking, in); ic == nil || !s.isReady(ic) {
				s.set(c, stateSkipped, "input "+in+" is not searched")
				return
			}
		}
		s.set(c, stateReady, "")
		return
	}
	var kept retrievers.Retriever
	s.env.WrapSearch = func(_ *kinds.Cell, _ kinds.Settings, build func() (retrievers.Retriever, error)) (retrievers.Retriever, error) {
		r, err := build()
		if err != nil {
			return nil, err
		}
		kept = r
		return unclosed{r}, nil // the kind's Run closes what it built: keep this one open
	}
	kc := &kinds.Cell{Retriever: c.rc.Name, Chunking: c.chunking, Docs: s.docs, Chunks: cs.chunks, Depth: s.depth,
		Env: s.env, Progress: kinds.NoProgress{}}
	err := st.Run(ctx, kc)
	s.env.WrapSearch = nil
	switch {
	case err != nil:
		s.set(c, stateFailed, err.Error())
	case kept == nil:
		s.set(c, stateSkipped, "its kind makes runs without a retriever to ask (not searched)")
	default:
		s.mu.Lock()
		c.ret, c.State, c.Note = kept, stateReady, ""
		s.mu.Unlock()
	}
}

// isReady reports whether c may be searched.
func (s *searcher) isReady(c *searchCell) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return c.State == stateReady
}

// cell returns the cell of retriever name in chunking ch (nil: none).
func (s *searcher) cell(ch, name string) *searchCell {
	for _, c := range s.cells {
		if c.chunking == ch && c.rc.Name == name {
			return c
		}
	}
	return nil
}

// unclosed hides a retriever's Close from the kind's Run.
type unclosed struct{ retrievers.Retriever }

// close closes the retrievers and models.
func (s *searcher) close() {
	s.searchMu.Lock()
	defer s.searchMu.Unlock()
	for _, c := range s.cells {
		if cl, ok := c.ret.(interface{ Close() error }); ok {
			cl.Close()
		}
		c.ret = nil
	}
	s.env.Close()
}

// Hit is one passage a search returned: its place, the chunk ids that hold
// it, and each cell and rank that returned it (Cells, in config order).
type Hit struct {
	Doc    string    `json:"doc"`
	Start  int       `json:"start"`
	End    int       `json:"end"`
	Text   string    `json:"text"`
	Chunks []string  `json:"chunks"`
	Cells  []CellHit `json:"cells"`
	Score  float64   `json:"-"`
}

// CellHit is a cell's rank of a passage (from 1).
type CellHit struct {
	Cell string `json:"cell"`
	Rank int    `json:"rank"`
}

// search runs question through every ready cell and pools each cell's top
// ShowPerCell: one Hit per text span, ordered by Σ 1/(60 + rank) over the
// cells that returned it (reciprocal rank fusion's order, k = 60), then by
// doc and start. Cells that fail say so in notes.
func (s *searcher) search(ctx context.Context, question string) ([]Hit, []string, error) {
	if strings.TrimSpace(question) == "" {
		return nil, nil, errors.New("empty question")
	}
	s.searchMu.Lock()
	defer s.searchMu.Unlock()
	q := []retrievers.Query{{ID: "q", Text: question}}
	type key struct {
		doc        string
		start, end int
	}
	pooled := map[key]*Hit{}
	var notes []string
	for _, name := range s.order {
		cs := s.chunkings[name]
		runs := map[string]eval.Run{}
		for _, c := range s.cells {
			if c.chunking != name || !s.isReady(c) {
				continue
			}
			run, err := s.runCell(ctx, c, cs, q, runs)
			if err != nil {
				notes = append(notes, fmt.Sprintf("%s: %v", c.Name, err))
				continue
			}
			runs[c.rc.Name] = run
			res := slices.Clone(run["q"])
			eval.Sort(res, eval.TieDocIDDesc)
			for i, r := range res[:min(len(res), ShowPerCell)] {
				iv, ok := cs.places.Intervals[r.DocID]
				if !ok || iv.Len() == 0 {
					continue
				}
				k := key{iv.Doc, iv.Start, iv.End}
				h := pooled[k]
				if h == nil {
					h = &Hit{Doc: iv.Doc, Start: iv.Start, End: iv.End}
					pooled[k] = h
				}
				if !slices.Contains(h.Chunks, r.DocID) {
					h.Chunks = append(h.Chunks, r.DocID)
				}
				h.Cells = append(h.Cells, CellHit{Cell: c.Name, Rank: i + 1})
				h.Score += 1 / float64(60+i+1)
			}
		}
	}
	out := make([]Hit, 0, len(pooled))
	for _, h := range pooled {
		out = append(out, *h)
	}
	// The highest fused score first (a sum of 1/(60+rank), never NaN),
	// then by place.
	slices.SortFunc(out, func(a, b Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.Doc, b.Doc), a.Start-b.Start, a.End-b.End)
	})
	return out, notes, nil
}

// runCell is one cell's run of q: a first stage asks its retriever, a
// staged cell runs its kind on its inputs' runs (a tuned one at its
// untuned default setting).
func (s *searcher) runCell(ctx context.Context, c *searchCell, cs *chunkSet, q []retrievers.Query, runs map[string]eval.Run) (eval.Run, error) {
	if c.ret != nil {
		return c.ret.Search(ctx, q, s.depth)
	}
	staged, ok := c.rc.Settings.(kinds.Staged)
	if !ok {
		return nil, errors.New("no retriever")
	}
	kc := &kinds.Cell{Retriever: c.rc.Name, Chunking: c.chunking, Docs: s.docs, Chunks: cs.chunks, Queries: q, Depth: s.depth,
		Env: s.env, Progress: kinds.NoProgress{}}
	for _, in := range staged.InputNames() {
		run, ok := runs[in]
		if !ok {
			return nil, fmt.Errorf("input %s gave no run", in)
		}
		kc.Inputs = append(kc.Inputs, run)
	}
	if t, ok := c.rc.Settings.(kinds.Tunable); ok && kinds.IsTuned(t) {
		tuner, err := t.Tuner(ctx, kc)
		if err != nil {
			return nil, err
		}
		return tuner.Produce(t.TuneDefault())
	}
	if err := c.rc.Settings.Run(ctx, kc); err != nil {
		return nil, err
	}
	return kc.Run, nil
}

// Found is one place of a plain text search.
type Found struct {
	Doc   string `json:"doc"`
	Start int    `json:"start"`
	End   int    `json:"end"`
	Line  int    `json:"line"`
	// Before, Text and After are the match with up to 60 code points of
	// the document on each side.
	Before string `json:"before"`
	Text   string `json:"text"`
	After  string `json:"after"`
}

// findText is the plain text search: every place of text in the corpus
// once white space, quote marks, dashes and case are folded (anchor.FoldAll:
// what a person types finds what the document spells), in corpus then
// document order, at most limit places.
func findText(ix *anchor.Index, text string, limit int) []Found {
	out := []Found{}
	if strings.TrimSpace(text) == "" {
		return out
	}
	for _, d := range ix.Docs() {
		for _, r := range d.FindFolded(text, anchor.FoldAll, limit-len(out)) {
			before, after := d.Context(r, 60)
			out = append(out, Found{Doc: d.ID, Start: r.Start, End: r.End, Line: d.Position(r.Start).Line, Before: before, Text: d.Slice(r), After: after})
		}
		if len(out) >= limit {
			break
		}
	}
	return out
}
