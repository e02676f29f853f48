package bm25

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"
	_ "github.com/blevesearch/bleve/v2/analysis/analyzer/custom" // registers the "custom" analyzer type
	_ "github.com/blevesearch/bleve/v2/analysis/lang/en"         // registers "en", "possessive_en"
	_ "github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	_ "github.com/blevesearch/bleve/v2/analysis/token/porter"
	_ "github.com/blevesearch/bleve/v2/analysis/token/stop"
	_ "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	_ "github.com/blevesearch/bleve/v2/analysis/tokenmap"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"
	zap "github.com/blevesearch/zapx/v17"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/mapped"
	"github.com/ragbench/ragbench/retrievers"
)

// formatVersion changes whenever the on-disk layout or the analysis
// changes, so stale cached indexes are rebuilt rather than reused (the
// version is part of the cache key, hence of the folder name). Version 3:
// Lucene-scored indexes are zap segments in chunk order, never merged, with
// memory-mapped side files (ids, offsets, lengths, norms); version 2 was one
// merged scorch segment in scorch's document order, version 1 kept ids and
// lengths in the JSON record.
const formatVersion = 3

// metaFile is ragbench's record beside the bleve index in a cache folder.
const metaFile = "ragbench-bm25.json"

// luceneStopWords is Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET.
var luceneStopWords = []string{"a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in",
	"into", "is", "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there",
	"these", "they", "this", "to", "was", "will", "with"}

// Retriever is a BM25 index over chunks. It is safe for concurrent use;
// Close releases the index.
//
// Memory: a Retriever's per-chunk data — id, length per field and Lucene's
// one-byte norm per field — are files memory-mapped read-only (record.go),
// as are bleve's segments; pages are read in as they are used and belong to
// the page cache, so the Go heap holds nothing per chunk, and never the
// chunk texts. Search holds per query of a call its clauses and a k-entry
// heap, per worker one posting iterator per clause, and of the segments'
// pages only those of the segment being read (the others are released
// from the process as the search leaves them, see Search); the retriever
// keeps a document frequency and a float64 per (field, term) ever queried
// (the MaxScore bounds) and a byte per chunk for each of the frequent
// terms queried, within 64 MiB, in one anonymous mapping outside the Go
// heap that Close unmaps (see Search, freqArray).
type Retriever struct {
	opts      Options
	idx       bleve.Index       // layoutScorch: the bleve index (bleve's own scoring)
	reader    index.IndexReader // layoutScorch: one snapshot, held for the retriever's life
	segs      []segRef          // the segments in chunk order
	side      *sideFiles
	analyzer  *textAnalyzer // analyzerNamed(opts.Analyzer): queries go through its bleve analyzer
	fields    []*field
	tmpDir    string // the index folder of an in-memory (Dir "") retriever, removed by Close
	build     time.Duration
	bytes     int64
	stats     sync.Map     // field and term → termStat: MaxScore bound, frequent terms' tf arrays
	freqBytes atomic.Int64 // bytes of tf arrays allotted (≤ freqBudget)
	freqOnce  sync.Once
	freqMem   []byte // the tf arrays' mapping (freqArray); nil until needed

	mu        sync.Mutex // guards latencies
	latencies []time.Duration
}

// segRef is one segment and the ordinals of its chunks: base … end−1
// (document number d is ordinal base + d).
type segRef struct {
	seg       segment.Segment
	base, end uint64
	owned     bool   // closed by Close (layoutSegments); else the bleve index's
	mapped    []byte // the segment file's mapping, the one zap reads (layoutSegments)
}

// release drops the process's page-table entries of the side files (see
// mapped.Release).
func (s *sideFiles) release() {
	for _, m := range s.maps {
		mapped.Release(m)
	}
}

// release drops the process's page-table entries of the segment's file
// mapping (see mapped.Release): its pages leave the process's resident set
// and the next read faults them back in from the page cache.
func (s segRef) release() { mapped.Release(s.mapped) }

// field holds one indexed field's length statistics.
type field struct {
	name     string
	fi, nf   int     // the field's position in fieldNames, and their number
	docCount int     // items with ≥ 1 token (Lucene's docCount)
	avgdl    float64 // Σ lengths / docCount
	k1, b    float64
	side     *sideFiles
	// norms is the side files' ordinal × field → Lucene's one-byte length
	// (SmallFloat.intToByte4) and table the BM25 denominator of each byte
	// value; nil with ExactLengths, where the denominator is computed from
	// the exact length.
	norms []byte
	table [256]float64
}

// denom is k1·(1 − b + b·dl/avgdl) for ordinal o, dl lossy or exact.
func (f *field) denom(o uint64) float64 {
	if f.norms != nil {
		return f.table[f.norms[int(o)*f.nf+f.fi]]
	}
	return f.k1 * (1 - f.b + f.b*float64(f.side.length(int(o), f.fi))/f.avgdl)
}

// length is the token count of ordinal o in the field.
func (f *field) length(o int) int32 { return f.side.length(o, f.fi) }

// New indexes chunks (each chunk's IndexText, or title and text as two
// fields with Fields "multi") with bleve and returns a retriever over them;
// result ids are chunk ids. chunks must be non-empty with unique, non-empty
// ids; chunks with empty text are indexed (they match nothing unless their
// title does). With opts.Dir set, an index built earlier for the same
// chunks, analyzer and field layout is opened instead of rebuilt; a new one
// is built in a temporary folder and renamed into place, so an interrupted
// build never leaves a half index behind (the temporary folder is removed on
// error or cancellation, and by the next New when its process died: see
// RemoveStaleBuilds). Without Dir the index is built in a temporary folder
// (os.TempDir) that Close removes. Errors: invalid options, empty chunks,
// duplicate chunk ids, bleve or file-system failures, cancellation.
// Build does the same for chunks streamed by an iterator.
func New(ctx context.Context, chunks []corpus.Chunk, opts Options) (*Retriever, error) {
	return build(ctx, Chunks(chunks), opts)
}

func build(ctx context.Context, chunks iter.Seq2[corpus.Chunk, error], opts Options) (*Retriever, error) {
	start := time.Now()
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	r := &Retriever{opts: o}
	m, err := newMapping(o)
	if err != nil {
		return nil, err
	}
	if r.analyzer, err = analyzerNamed(o.Analyzer); err != nil {
		return nil, err
	}
	var dir string
	var md *meta
	if o.Dir == "" {
		if r.tmpDir, err = os.MkdirTemp("", "ragbench-bm25-"); err != nil {
			return nil, fmt.Errorf("bm25: %w", err)
		}
		dir = r.tmpDir
		md, err = buildIndex(ctx, dir, chunks, m, r.analyzer, o)
	} else {
		var key string
		var n int
		if key, n, err = cacheKey(ctx, chunks, o); err == nil && n == 0 {
			err = errors.New("bm25: no chunks to index (empty corpus)")
		}
		if err == nil {
			dir, md, err = r.openOrBuild(ctx, chunks, key, m)
		}
	}
	if err == nil {
		err = r.open(dir, md)
	}
	if err != nil {
		r.Close()
		return nil, err
	}
	r.build = time.Since(start)
	return r, nil
}

// buildIndex builds the index of o's layout into the empty folder dir.
func buildIndex(ctx context.Context, dir string, chunks iter.Seq2[corpus.Chunk, error], m *mapping.IndexMappingImpl, a *textAnalyzer, o Options) (*meta, error) {
	if layoutFor(o) == layoutScorch {
		return buildScorch(ctx, dir, chunks, m, o)
	}
	kinds, err := textFieldKinds(m, fieldNames(o.Fields))
	if err != nil {
		return nil, err
	}
	return buildSegments(ctx, dir, chunks, a, kinds, o)
}

// newMapping returns the bleve mapping for o: explicit text fields, not
// stored, no term vectors or doc values (BM25 needs only frequencies).
func newMapping(o Options) (*mapping.IndexMappingImpl, error) {
	m := bleve.NewIndexMapping()
	tokens := make([]any, len(luceneStopWords))
	for i, w := range luceneStopWords {
		tokens[i] = w
	}
	if err := m.AddCustomTokenMap("lucene_en_stop_words", map[string]any{"type": "custom", "tokens": tokens}); err != nil {
		return nil, fmt.Errorf("bm25: analyzer %s: %w", AnalyzerLuceneEn, err)
	}
	if err := m.AddCustomTokenFilter("stop_lucene_en", map[string]any{"type": "stop_tokens", "stop_token_map": "lucene_en_stop_words"}); err != nil {
		return nil, fmt.Errorf("bm25: analyzer %s: %w", AnalyzerLuceneEn, err)
	}
	if err := m.AddCustomAnalyzer(AnalyzerLuceneEn, map[string]any{
		"type":          "custom",
		"tokenizer":     "unicode",
		"token_filters": []any{"possessive_en", "to_lower", "stop_lucene_en", "stemmer_porter"},
	}); err != nil {
		return nil, fmt.Errorf("bm25: analyzer %s: %w", AnalyzerLuceneEn, err)
	}
	m.DefaultAnalyzer = o.Analyzer
	m.ScoringModel = index.BM25Scoring // used by Scoring "bleve" only
	doc := bleve.NewDocumentStaticMapping()
	for _, name := range fieldNames(o.Fields) {
		fm := mapping.NewTextFieldMapping()
		fm.Analyzer = o.Analyzer
		fm.Store = false
		fm.IncludeTermVectors = false
		fm.IncludeInAll = false
		fm.DocValues = false
		doc.AddFieldMappingsAt(name, fm)
	}
	// No "_all" composite field: it would index every chunk id (the _id
	// field is included by default) as a term with its locations, for no
	// query of ours.
	doc.AddSubDocumentMapping("_all", bleve.NewDocumentDisabledMapping())
	m.DefaultMapping = doc
	m.StoreDynamic = false
	m.IndexDynamic = false
	m.DocValuesDynamic = false
	return m, nil
}

func fieldNames(layout string) []string {
	if layout == FieldsMulti {
		return []string{"title", "body"}
	}
	return []string{"text"}
}

// fieldTexts returns c's text per field, in fieldNames order.
func fieldTexts(c corpus.Chunk, layout string) []string {
	if layout == FieldsMulti {
		title := ""
		if c.TitlePrepended {
			title = c.Title
		}
		return []string{title, c.Text}
	}
	return []string{c.IndexText()}
}

// openOrBuild returns the index folder for key under r.opts.Dir and its
// meta, building the index first unless it is cached.
func (r *Retriever) openOrBuild(ctx context.Context, chunks iter.Seq2[corpus.Chunk, error], key string, m *mapping.IndexMappingImpl) (string, *meta, error) {
	final := filepath.Join(r.opts.Dir, "bm25-"+key[:24])
	nf := len(fieldNames(r.opts.Fields))
	// Build folders of interrupted builds (a process killed, or stopped by a
	// second Ctrl-C before its deferred clean-up ran) are removed here.
	if _, err := RemoveStaleBuilds(r.opts.Dir, time.Now()); err != nil {
		return "", nil, fmt.Errorf("bm25: %w", err)
	}
	if md, err := readMeta(final, key, nf); err == nil {
		return final, md, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", nil, err
	}
	if err := os.MkdirAll(r.opts.Dir, 0o755); err != nil {
		return "", nil, fmt.Errorf("bm25: %w", err)
	}
	tmp, release, err := newBuildDir(r.opts.Dir)
	if err != nil {
		return "", nil, fmt.Errorf("bm25: %w", err)
	}
	defer release()
	defer os.RemoveAll(tmp) // on error or cancellation; a no-op after the rename
	md, err := buildIndex(ctx, tmp, chunks, m, r.analyzer, r.opts)
	if err != nil {
		return "", nil, err
	}
	md.Format, md.Key, md.Analyzer, md.Fields = formatVersion, key, r.opts.Analyzer, r.opts.Fields
	if err := writeMeta(tmp, *md); err != nil {
		return "", nil, err
	}
	release() // the lock file must not end up in the index folder
	if err := os.Rename(tmp, final); err != nil {
		// Another process may have finished the same index first: use it.
		if md2, err2 := readMeta(final, key, nf); err2 == nil {
			return final, md2, nil
		}
		return "", nil, fmt.Errorf("bm25: %w", err)
	}
	return final, md, nil
}

// open opens the index in folder dir described by md: the side files, and
// the segments (layoutSegments) or the bleve index (layoutScorch); it
// checks that the segments hold md's chunks in order.
func (r *Retriever) open(dir string, md *meta) error {
	nf := len(fieldNames(r.opts.Fields))
	if md.Layout != layoutFor(r.opts) || len(md.Stats) != nf {
		return fmt.Errorf("bm25: %s: index layout %q with %d fields, want %q with %d; delete the folder", dir, md.Layout, len(md.Stats), layoutFor(r.opts), nf)
	}
	side, err := openSideFiles(dir, md, nf)
	if err != nil {
		return err
	}
	r.side = side
	r.bytes = dirSize(dir)
	// Opening reads every segment's footer and field sections and checks
	// every chunk's id offset: those pages are released as soon as read
	// (see Search), so that opening holds no more than searching.
	side.release()
	switch md.Layout {
	case layoutSegments:
		var base uint64
		for _, sm := range md.Segments {
			seg, err := zapPlugin.Open(filepath.Join(dir, sm.File))
			if err != nil {
				return fmt.Errorf("bm25: open segment %s: %w", filepath.Join(dir, sm.File), err)
			}
			// zap maps the file itself (read-only, shared) and reads
			// every byte of the segment through that mapping; Data is
			// zap's exported accessor to it, which Search releases.
			var data []byte
			if zs, ok := seg.(*zap.Segment); ok {
				data = zs.Data()
			}
			r.segs = append(r.segs, segRef{seg: seg, base: base, end: base + uint64(sm.Docs), owned: true, mapped: data})
			r.segs[len(r.segs)-1].release()
			base += uint64(sm.Docs)
			if seg.Count() != uint64(sm.Docs) {
				return fmt.Errorf("bm25: %s: segment %s holds %d documents, want %d; delete the folder", dir, sm.File, seg.Count(), sm.Docs)
			}
		}
	default:
		idx, err := bleve.OpenUsing(filepath.Join(dir, "index"), map[string]any{"read_only": true})
		if err != nil {
			return fmt.Errorf("bm25: open index %s: %w", dir, err)
		}
		r.idx = idx
		adv, err := r.idx.Advanced()
		if err != nil {
			return fmt.Errorf("bm25: %w", err)
		}
		if r.reader, err = adv.Reader(); err != nil {
			return fmt.Errorf("bm25: open reader: %w", err)
		}
		seg, err := oneSegment(r.idx, dir)
		if err != nil {
			return err
		}
		r.segs = []segRef{{seg: seg, end: seg.Count()}}
	}
	if err := r.checkLayout(dir); err != nil {
		return err
	}
	for _, s := range r.segs {
		s.release()
	}
	side.release()
	for i, name := range fieldNames(r.opts.Fields) {
		r.fields = append(r.fields, newField(name, i, md.Stats[i], side, r.opts))
	}
	return nil
}

// checkLayout checks that the segments hold the side files' chunks in
// order without deletions, comparing the stored _id of every document of
// small indexes and of 1,024 spread over larger ones.
func (r *Retriever) checkLayout(dir string) error {
	n := r.side.n
	if len(r.segs) == 0 || r.segs[len(r.segs)-1].end != uint64(n) {
		return fmt.Errorf("bm25: %s: segments hold %d documents, want %d; delete the folder", dir, r.docs(), n)
	}
	step := max(1, n/1024)
	for o := 0; o < n; o += step {
		if err := r.checkDoc(dir, o); err != nil {
			return err
		}
	}
	return r.checkDoc(dir, n-1)
}

func (r *Retriever) docs() uint64 {
	if len(r.segs) == 0 {
		return 0
	}
	return r.segs[len(r.segs)-1].end
}

// segOf returns the index in r.segs of the segment holding ordinal o.
func (r *Retriever) segOf(o uint64) int {
	i, _ := slices.BinarySearchFunc(r.segs, o, func(s segRef, o uint64) int {
		if s.end <= o {
			return -1
		}
		if s.base > o {
			return 1
		}
		return 0
	})
	return i
}

func (r *Retriever) checkDoc(dir string, o int) error {
	s := r.segs[r.segOf(uint64(o))]
	id, err := s.seg.DocID(uint64(o) - s.base)
	if err != nil {
		return fmt.Errorf("bm25: %s: %w", dir, err)
	}
	if !bytes.Equal(id, r.side.id(o)) {
		return fmt.Errorf("bm25: %s: document %d is %q, out of step with chunk %q; delete the folder", dir, o, id, r.side.id(o))
	}
	return nil
}

// oneSegment returns the one segment of idx, a scorch index without
// deletions (what buildScorch writes).
func oneSegment(idx bleve.Index, dir string) (segment.Segment, error) {
	adv, err := idx.Advanced()
	if err != nil {
		return nil, fmt.Errorf("bm25: %w", err)
	}
	rd, err := adv.Reader()
	if err != nil {
		return nil, fmt.Errorf("bm25: open reader: %w", err)
	}
	defer rd.Close()
	snap, ok := rd.(*scorch.IndexSnapshot)
	if !ok || len(snap.Segments()) != 1 {
		return nil, fmt.Errorf("bm25: %s: not a one-segment scorch index; delete the folder", dir)
	}
	ss := snap.Segments()[0]
	if d := ss.Deleted(); d != nil && !d.IsEmpty() {
		return nil, fmt.Errorf("bm25: %s: index has deleted documents; delete the folder", dir)
	}
	return ss.Segment(), nil
}

// newField sets up field fi's statistics (from the meta) and length table.
func newField(name string, fi int, st fieldStat, side *sideFiles, o Options) *field {
	f := &field{name: name, fi: fi, nf: side.nf, docCount: st.DocCount, k1: o.K1, b: o.B, side: side}
	if f.docCount > 0 {
		f.avgdl = float64(st.SumLength) / float64(f.docCount)
	}
	if o.ExactLengths || f.avgdl == 0 {
		return f
	}
	k1, b := o.K1, o.B
	for c := range f.table {
		dl := float64(byte4ToInt(byte(c)))
		f.table[c] = k1 * (1 - b + b*dl/f.avgdl)
	}
	f.norms = side.norms
	return f
}

func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// Close releases the index (and removes the folder of an in-memory
// retriever). The retriever must not be used afterwards.
func (r *Retriever) Close() error {
	var errs []error
	for _, s := range r.segs {
		if s.owned {
			errs = append(errs, s.seg.Close())
		}
	}
	r.segs = nil
	if r.reader != nil {
		errs = append(errs, r.reader.Close())
		r.reader = nil
	}
	if r.idx != nil {
		errs = append(errs, r.idx.Close())
		r.idx = nil
	}
	if r.side != nil {
		errs = append(errs, r.side.close())
		r.side = nil
	}
	if r.tmpDir != "" {
		errs = append(errs, os.RemoveAll(r.tmpDir))
		r.tmpDir = ""
	}
	r.stats.Clear()          // the tf arrays point into freqMem
	r.freqOnce.Do(func() {}) // no mapping after Close
	mapped.Free(r.freqMem)
	r.freqMem = nil
	return errors.Join(errs...)
}

// Options returns the options in effect, defaults filled in.
func (r *Retriever) Options() Options { return r.opts }

// Len is the number of indexed chunks.
func (r *Retriever) Len() int { return r.side.n }

// Stats reports build (or cache-load) time, index size — bytes on disk with
// Dir, else scorch's in-memory estimate — and per-query latency percentiles
// over all Search calls so far (nearest-rank).
func (r *Retriever) Stats() retrievers.Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return retrievers.Stats{Build: r.build, IndexBytes: r.bytes, Queries: len(r.latencies),
		LatencyP50: retrievers.Percentile(r.latencies, 0.50), LatencyP95: retrievers.Percentile(r.latencies, 0.95)}
}

// Terms returns the analysed terms of text with their counts, sorted by
// term: what Search scores (the index's analyzer; no query syntax).
func (r *Retriever) Terms(text string) []TermCount {
	counts := map[string]int{}
	for _, tok := range r.analyzer.bleve.Analyze([]byte(text)) {
		counts[string(tok.Term)]++
	}
	out := make([]TermCount, 0, len(counts))
	for t, n := range counts {
		out = append(out, TermCount{Term: t, Count: n})
	}
	slices.SortFunc(out, func(a, b TermCount) int { return strings.Compare(a.Term, b.Term) })
	return out
}

// TermCount is an analysed query term and how often it occurs in the query.
type TermCount struct {
	Term  string
	Count int
}

// searchBleve runs a bleve match query (OR of the analysed terms, per field)
// with bleve's native bm25 scoring, sorted by score then id descending
// (eval.CompareRank's order; bleve compares ids as bytes).
func (r *Retriever) searchBleve(ctx context.Context, text string, k int) ([]eval.Result, error) {
	if len(r.Terms(text)) == 0 {
		return []eval.Result{}, nil
	}
	var qs []query.Query
	for _, name := range fieldNames(r.opts.Fields) {
		mq := bleve.NewMatchQuery(text)
		mq.SetField(name)
		mq.Analyzer = r.opts.Analyzer
		qs = append(qs, mq)
	}
	var q query.Query = qs[0]
	if len(qs) > 1 {
		q = bleve.NewDisjunctionQuery(qs...)
	}
	req := bleve.NewSearchRequestOptions(q, k, 0, false)
	req.SortBy([]string{"-_score", "-_id"})
	res, err := r.idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, err
	}
	out := make([]eval.Result, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = eval.Result{DocID: h.ID, Score: h.Score}
	}
	return out, nil
}
