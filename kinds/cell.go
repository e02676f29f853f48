package kinds

import (
	"context"
	"fmt"
	"io"
	"maps"
	"time"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/passages"
	"github.com/ragbench/ragbench/retrievers"
)

// Cell is one cell's work for a kind's Run: one retriever over one
// chunking. The sweep fills the inputs; Run fills Run and Stats.
type Cell struct {
	// Retriever is the retriever's name (for errors).
	Retriever string
	// Chunking is the chunking's name (corpus.Spec.Name: "fixed-128o32"),
	// Docs the corpus' documents, Chunks the chunking's chunks (for
	// whole documents a view of Docs, corpus.DocChunks: a kind reads them
	// with At and All, and builds no list or map of every chunk where a
	// position will do): a kind that maps results of its own (passages, a
	// file per chunking) to chunk ids reads them. ChunkByID is Chunks'
	// positions by chunk id (the sweep's, shared by its cells), or nil:
	// ChunkIndex then builds one.
	Chunking  string
	Docs      []corpus.Document
	Chunks    corpus.Chunks
	ChunkByID *corpus.IDIndex
	// Queries are the evaluated queries.
	Queries []retrievers.Query
	// Depth is how many results per query the run keeps (chunk level).
	Depth int
	// Inputs are the runs of a Staged retriever's inputs, in its
	// InputNames order.
	Inputs []eval.Run
	// Env is what the sweep's cells share.
	Env *Env
	// Progress shows the cell's stages.
	Progress Progress

	// Run is the cell's chunk-level run (set by Run).
	Run eval.Run
	// Stats are its timings and counters (set by Run).
	Stats Stats
	// Passages, set by the kinds that bring a pipeline's own passages
	// (PassageKind: run, http), are what Run's ids name: the cell is
	// scored on them instead of the chunking's chunks (passages.go).
	// PassageNotes are what the report should say of them (placing,
	// unmapped results).
	Passages     *passages.Scored
	PassageNotes []string
	// Notes are counted remarks on the run that the report lists as
	// warnings, one line each without the cell's name (the sweep adds it):
	// a fusion's flat lists (hybrid.Notes.Lines). Set by Run (a Noter).
	Notes []string

	embedded func(time.Duration) // set while a first stage is built and searched
}

// AddEmbedTime counts d as time spent embedding (chunks while a first
// stage is built, queries while it searches): the cell's embed_s and
// query_embed_s. Called from one goroutine at a time.
func (c *Cell) AddEmbedTime(d time.Duration) {
	if c.embedded != nil {
		c.embedded(d)
	}
}

// Stats are a cell's timings in seconds (results.json's Timing) and
// counters.
type Stats struct {
	// Build is the index build (or cache load), embedding excluded;
	// Embed the chunks' embedding; Search the queries' search, QueryEmbed
	// the part of it spent embedding queries; Fuse and Rerank the stages
	// of those kinds.
	Build, Embed, Search, QueryEmbed, Fuse, Rerank float64
	// IndexBytes, LatencyP50 and LatencyP95 (milliseconds) are the first
	// stage's retrievers.Stats.
	IndexBytes             int64
	LatencyP50, LatencyP95 float64
	// IndexDocs is the number of documents this cell loaded into an
	// engine index.
	IndexDocs int
	// QueryErrors and FailedQueries: the queries that failed after the
	// retries and were scored as misses (on_query_error: miss).
	QueryErrors   int
	FailedQueries []string
}

// Progress shows a cell's stages (the sweep's progress lines and bars).
type Progress interface {
	// Begin starts stage (StageIndex, StageEmbed, StageSearch,
	// StageFuse, StageRerank) of total items of unit ("chunks",
	// "queries", "pairs").
	Begin(stage string, total int, unit string)
	// Set records done items of the stage; a total > 0 replaces its total.
	Set(done, total int)
	// End ends the stage, with a note for the plain line ("" for none).
	End(note string)
	// Updated reports whether Set was called since Begin.
	Updated() bool
	// Count is a long step's count from inside a build (embedding,
	// scoring pairs): it moves the current stage only when it is stage.
	Count(stage string, done, total int)
}

// The stages of a cell (Progress.Begin), also the names of the timing
// columns of report.md.
const (
	StageIndex  = "index"
	StageEmbed  = "embed"
	StageSearch = "search"
	StageFuse   = "fuse"
	StageRerank = "rerank"
)

// SearchBlock is how many queries a first stage is asked at once: also
// the dense retriever's query batch, so dense query embeddings are
// computed in exactly the batches of a single Search call and runs are
// identical to one call's.
const SearchBlock = 256

// searchCell is the Run of a first-stage kind (one that searches chunks):
// the stage buildStage (StageIndex or StageEmbed, counted in chunks) builds
// the retriever — through Env.WrapSearch when set — and the stage
// StageSearch asks it every query in blocks of SearchBlock. cachedNote ends
// the build stage when nothing was counted during it (a dense index read
// from the cache). A retriever's failed queries (Failing: on_query_error:
// miss) and loaded documents (Loading) go into the stats.
func searchCell(ctx context.Context, c *Cell, s Settings, buildStage, cachedNote string, build func() (retrievers.Retriever, error)) error {
	t0 := time.Now()
	c.Progress.Begin(buildStage, c.Chunks.Len(), "chunks")
	var embed time.Duration
	c.embedded = func(d time.Duration) { embed += d } // builders embed from one goroutine at a time
	defer func() { c.embedded = nil }()
	var ret retrievers.Retriever
	var err error
	if c.Env.WrapSearch != nil {
		ret, err = c.Env.WrapSearch(c, s, build)
	} else {
		ret, err = build()
	}
	if err != nil {
		return err
	}
	if cl, ok := ret.(io.Closer); ok {
		defer cl.Close()
	}
	note := ""
	if cachedNote != "" && !c.Progress.Updated() {
		note = cachedNote
	}
	c.Progress.End(note)
	c.Stats.Embed = embed.Seconds()
	c.Stats.Build = time.Since(t0).Seconds() - c.Stats.Embed
	embed = 0
	t1 := time.Now()
	c.Progress.Begin(StageSearch, len(c.Queries), "queries")
	c.Run, err = searchBlocks(ctx, ret, c.Queries, c.Depth, c.Progress)
	c.Stats.Search = time.Since(t1).Seconds()
	if err != nil {
		return err
	}
	c.Progress.End(c.failures(ret))
	c.Stats.QueryEmbed = embed.Seconds()
	st := ret.Stats()
	c.Stats.IndexBytes = st.IndexBytes
	c.Stats.LatencyP50 = st.LatencyP50.Seconds() * 1000
	c.Stats.LatencyP95 = st.LatencyP95.Seconds() * 1000
	return nil
}

// Failing is implemented by a first stage's retriever that may score a
// query failing after its retries as a miss (on_query_error: miss): the
// failed queries' ids, in query order, and the first error (never a
// credential).
type Failing interface {
	FailedQueries() (ids []string, first string)
}

// Loading is implemented by a first stage's retriever that loaded
// documents into an index of its own for this cell (an engine's managed
// index): how many, 0 when it reused one.
type Loading interface {
	LoadedDocs() int
}

// failures records the documents ret loaded (Loading) and the queries it
// scored as misses after errors (Failing); the note says so for the
// progress line ("" when none failed).
func (c *Cell) failures(ret retrievers.Retriever) string {
	if l, ok := ret.(Loading); ok {
		c.Stats.IndexDocs = l.LoadedDocs()
	}
	f, ok := ret.(Failing)
	if !ok {
		return ""
	}
	ids, first := f.FailedQueries()
	c.Stats.QueryErrors += len(ids)
	c.Stats.FailedQueries = append(c.Stats.FailedQueries, ids...)
	if len(ids) == 0 {
		return ""
	}
	return fmt.Sprintf("%d queries failed after the retries and score as misses (on_query_error: miss); first: %s", len(ids), first)
}

// searchBlocks searches queries in blocks of SearchBlock, reporting the
// queries done after each block. Retrievers accumulate their latency
// statistics across calls, so Stats covers every query.
func searchBlocks(ctx context.Context, r retrievers.Retriever, queries []retrievers.Query, k int, prog Progress) (eval.Run, error) {
	run := make(eval.Run, len(queries))
	for b := 0; b < len(queries); b += SearchBlock {
		e := min(b+SearchBlock, len(queries))
		part, err := r.Search(ctx, queries[b:e], k)
		if err != nil {
			return nil, err
		}
		maps.Copy(run, part)
		prog.Set(e, 0)
	}
	return run, nil
}

// SortResults puts results in trec_eval's order (score descending, ties
// by doc id descending), so run files, truncation at k and evaluation
// agree.
func SortResults(l []eval.Result) { eval.Sort(l, eval.TieDocIDDesc) }

// Truncate cuts each list of run, in trec_eval's rank order
// (SortResults), to k results; run is not changed.
func Truncate(run eval.Run, k int) eval.Run {
	out := make(eval.Run, len(run))
	for q, l := range run {
		l = append([]eval.Result(nil), l...)
		SortResults(l)
		if len(l) > k {
			l = l[:k]
		}
		out[q] = l
	}
	return out
}

// StaticRetriever serves a run computed earlier (a rerank's first stage,
// or a test's hand-made run): each query's list cut to k.
type StaticRetriever struct{ Run eval.Run }

// Search returns each query's list of the run, cut to k.
func (s StaticRetriever) Search(ctx context.Context, queries []retrievers.Query, k int) (eval.Run, error) {
	out := make(eval.Run, len(queries))
	for _, q := range queries {
		l := s.Run[q.ID]
		if len(l) > k {
			l = l[:k]
		}
		out[q.ID] = append([]eval.Result{}, l...)
	}
	return out, nil
}

// Stats is empty: nothing was built or timed.
func (s StaticRetriever) Stats() retrievers.Stats { return retrievers.Stats{} }

// NoProgress is a Progress that shows nothing (a Cell run outside a
// sweep).
type NoProgress struct{}

// Begin does nothing.
func (NoProgress) Begin(stage string, total int, unit string) {}

// Set does nothing.
func (NoProgress) Set(done, total int) {}

// End does nothing.
func (NoProgress) End(note string) {}

// Updated is false: nothing is counted.
func (NoProgress) Updated() bool { return false }

// Count does nothing.
func (NoProgress) Count(stage string, done, total int) {}

// ChunkIndex is the cell's chunks' positions by chunk id: ChunkByID, or
// (when the sweep gave none, as tests do) an index of Chunks made now and
// kept in ChunkByID (corpus.IndexChunks, 5 to 11 bytes per chunk).
func (c *Cell) ChunkIndex() *corpus.IDIndex {
	if c.ChunkByID == nil {
		c.ChunkByID = corpus.IndexChunks(c.Chunks)
	}
	return c.ChunkByID
}
