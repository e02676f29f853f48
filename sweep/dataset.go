package sweep

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/diagnose"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/hashkey"
	"github.com/ragbench/ragbench/internal/plural"
	"github.com/ragbench/ragbench/results"
	"github.com/ragbench/ragbench/retrievers"
	"github.com/ragbench/ragbench/spans"
)

// knownDoc reports whether a judged id names a corpus document, or a chunk
// "<doc id>#<n>" of one (chunk-level labels; whether the chunking makes
// that chunk is corpus.CheckLabels' concern).
func knownDoc(id string, docByID *corpus.IDIndex) bool {
	if _, ok := docByID.Get(id); ok {
		return true
	}
	doc, _, ok := corpus.ParseChunkID(id)
	if ok {
		_, ok = docByID.Get(doc)
	}
	return ok
}

// maxListed is how many unknown gold ids an error lists.
const maxListed = 5

// checkGold finds relevant judgements (grade ≥ 1) whose doc id names no
// corpus document (knownDoc) in ds.qrels, read from qrelsPath. With policy
// "error" they are an error listing the first maxListed as
// "file:line: gold: query "q": doc "d" is not in the corpus" plus their
// count; with "ignore" they are dropped from ds.qrels and counted in the
// returned warning. Judgements of grade ≤ 0 change no measure and are
// left alone.
func checkGold(ds *dataset, qrelsPath, corpusPath, policy, cfgPath string) (string, error) {
	var unknown []eval.Judgement
	queries := map[string]bool{}
	for q, m := range ds.qrels {
		for d, g := range m {
			if g >= 1 && !knownDoc(d, ds.docByID) {
				unknown = append(unknown, eval.Judgement{Query: q, Doc: d})
				queries[q] = true
			}
		}
	}
	if len(unknown) == 0 {
		return "", nil
	}
	if policy == "ignore" {
		emptied := 0
		for _, j := range unknown {
			delete(ds.qrels[j.Query], j.Doc)
		}
		for q := range queries {
			answerable := false
			for _, g := range ds.qrels[q] {
				answerable = answerable || g >= 1
			}
			if !answerable {
				emptied++
			}
		}
		w := fmt.Sprintf("dataset.unknown_gold: ignore: dropped %s in %s of %s: their doc ids are not in the corpus %s (recall, MAP and nDCG count only gold documents present in the corpus)", plural.Count(len(unknown), "relevant judgement", "relevant judgements"), plural.Count(len(queries), "query", "queries"), qrelsPath, corpusPath)
		if emptied > 0 {
			w += fmt.Sprintf("; %s no relevant document left and %s reported as unanswerable", plural.Count(emptied, "query has", "queries have"), plural.Word(emptied, "is", "are"))
		}
		return w, nil
	}
	at := ds.judgementLine
	sort.Slice(unknown, func(a, b int) bool {
		la, lb := at[unknown[a]], at[unknown[b]]
		if la != lb {
			return la < lb
		}
		if unknown[a].Query != unknown[b].Query {
			return unknown[a].Query < unknown[b].Query
		}
		return unknown[a].Doc < unknown[b].Doc
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s in %s name no document of the corpus %s (they would silently score as misses)", qrelsPath, plural.Count(len(unknown), "gold doc id", "gold doc ids"), plural.Count(len(queries), "query", "queries"), corpusPath)
	if len(unknown) > maxListed {
		fmt.Fprintf(&b, "; the first %d", maxListed)
	}
	b.WriteString(":")
	for i, j := range unknown {
		if i == maxListed {
			fmt.Fprintf(&b, "\n  … and %d more", len(unknown)-maxListed)
			break
		}
		loc := qrelsPath
		if l := at[j]; l > 0 {
			loc += ":" + strconv.Itoa(l)
		}
		fmt.Fprintf(&b, "\n  %s: gold: query %q: doc %q is not in the corpus", loc, j.Query, j.Doc)
	}
	fmt.Fprintf(&b, "\nfix the ids (or the corpus), or set dataset.unknown_gold: ignore in %s to drop them (counted in the report)", cfgPath)
	return "", fmt.Errorf("%s", b.String())
}

// summary is the dataset's summary for results.json and bench run --check
// alike (Level aside: it depends on the chunkings): counts, and the slice
// labels sorted, with NoSlice when some queries have a label and some do
// not; the warning says when a query's own label is NoSlice.
func (ds *dataset) summary(cfg *Config) (results.DatasetSummary, []string) {
	sum := results.DatasetSummary{Name: cfg.Dataset.Name, Documents: len(ds.docs), Queries: len(ds.queries),
		Answerable: len(ds.answerable), Unanswerable: len(ds.unanswer), Slices: []string{}}
	if ds.spanQueries != nil {
		sum.Labels = results.LabelsSpans
	}
	for _, id := range ds.answerable {
		if ds.heldout[id] {
			sum.HeldOut++
		} else {
			sum.Tuning++
		}
	}
	var warns []string
	labels := map[string]bool{}
	unlabelled := false
	for _, q := range ds.queries {
		if s := ds.slice[q.ID]; s != "" {
			labels[s] = true
		} else {
			unlabelled = true
		}
	}
	if len(labels) > 0 && unlabelled {
		if labels[results.NoSlice] {
			warns = append(warns, fmt.Sprintf("slice label %q is also the slice of the queries without a label: they are reported together", results.NoSlice))
		}
		labels[results.NoSlice] = true
	}
	sum.Slices = append(sum.Slices, slices.Sorted(maps.Keys(labels))...)
	return sum, warns
}

// beirQueriesHint explains err, an error reading a labelled-query file,
// when it is a missing "gold" and the file reads as a BEIR queries.jsonl
// (eval.ReadQueryTexts: {"_id", "text"}): such a file carries no
// judgements, so the config needs dataset.qrels.
func beirQueriesHint(cfg *Config, path string, err error) error {
	var se *eval.SyntaxError
	if !errors.As(err, &se) || se.Field != "gold" || !strings.HasPrefix(se.Msg, "missing") {
		return err
	}
	if _, berr := eval.ReadQueryTexts(path); berr != nil {
		return err
	}
	return cfg.Errf("dataset.queries", "%s is a BEIR queries.jsonl (\"_id\", \"text\"; no \"gold\"): it has no judgements; set dataset.qrels to its qrels file (e.g. qrels/test.tsv), or use dataset.beir for a BEIR folder (reading it as labelled queries: %v)", path, err)
}

// dataset is the loaded data.
type dataset struct {
	docs          []corpus.Document
	texts         *corpus.Texts // where docs' titles and texts are (nil: the heap)
	docByID       *corpus.IDIndex
	queries       []retrievers.Query // evaluated queries (all in qrels), by id
	text          map[string]string
	qrels         eval.Qrels
	judgementLine map[eval.Judgement]int // line of each judgement in its file (0: unknown)
	slice         map[string]string
	answerable    []string // sorted
	unanswer      []string // sorted
	heldout       map[string]bool
	files         map[string]string // role → path, for the manifest
	judged        string            // the file the judgements were read from (qrels, else queries)
	hash          string            // sha256 over corpus, queries, qrels files
	// spanQueries are the span labels (nil for other labels): qrels
	// then hold each query's gold documents, and each chunking derives
	// its chunk judgements from the spans (newSpanCells).
	spanQueries []spans.Query
	// labelNotes count the labels' judgements and the span labels placed
	// at a new place (results.json "labels"); movedNote is the warning
	// saying so ("" when none moved); labelsDigest is spans.Digest of the
	// span labels, for the manifest ("" for other labels). labels.go.
	labelNotes   *results.LabelNotes
	movedNote    string
	labelsDigest string
	// holes remembers the similarity of each item of the chunks starting
	// at holesOf to each gold passage; spanByID indexes spanQueries
	// (judged.go).
	holes    *spans.HoleFinder
	holesOf  corpus.Chunks
	spanByID map[string]spans.Query
}

// sliceOf is the query's slice for the per-slice groups: its label, or
// NoSlice when it has none and labelled (some query has a label); "" when
// no query has one.
func (ds *dataset) sliceOf(id string, labelled bool) string {
	if s := ds.slice[id]; s != "" || !labelled {
		return s
	}
	return results.NoSlice
}

// loadDataset reads and checks cfg's dataset, the corpus's texts on the
// heap.
func loadDataset(cfg *Config, be backend) (*dataset, []string, error) {
	return loadDatasetTexts(cfg, be, false)
}

// loadDatasetTexts is loadDataset with the corpus's texts in a spill file
// in the cache folder when spill is true: the run's own load (check), in
// a process that holds the corpus to its end (corpus.Texts).
func loadDatasetTexts(cfg *Config, be backend, spill bool) (*dataset, []string, error) {
	d := cfg.Dataset
	ds := &dataset{files: map[string]string{}}
	corpusPath, queriesPath, qrelsPath := d.Corpus, d.Queries, d.Qrels
	if d.BEIR != "" {
		corpusPath = filepath.Join(d.BEIR, "corpus.jsonl")
		queriesPath = filepath.Join(d.BEIR, "queries.jsonl")
		qrelsPath = filepath.Join(d.BEIR, "qrels", d.Split+".tsv")
	}
	var warns []string
	var docs []corpus.Document
	var byID *corpus.IDIndex
	var err error
	if spill {
		// The run's process holds the corpus to its end: its texts go to
		// a spill file in the cache folder, mapped (corpus.Texts).
		docs, byID, ds.texts, err = corpus.LoadSpilled(corpusPath, cfg.CacheDir)
		if note := ds.texts.Note(); note != "" {
			warns = append(warns, note)
		}
	} else {
		docs, byID, err = corpus.LoadIndexed(corpusPath)
	}
	if err != nil {
		return nil, nil, err
	}
	ds.docs, ds.docByID = docs, byID
	var sum corpus.Summary
	ds.texts.Paced(func() { sum = corpus.Summarize(docs) }) // a pass over every text
	if w := sum.Warnings(); len(w) > 0 {
		warns = append(warns, w...)
	}
	ds.files["corpus"] = corpusPath
	spanLabels, err := ds.readSpanLabels(cfg, queriesPath, qrelsPath)
	if err != nil {
		return nil, nil, err
	}
	var slices map[string]string
	if f := d.SliceField; f != "" && !spanLabels {
		// The named field only: a typo never falls back to kind/slice.
		labelled := cmp.Or(queriesPath, qrelsPath)
		if slices, err = diagnose.ReadSlices(labelled, f); errors.Is(err, diagnose.ErrNoSliceField) {
			return nil, nil, cfg.Errf("dataset.slice_field", "%v; name one of those, or remove slice_field", err)
		} else if err != nil {
			return nil, nil, err
		}
	}
	if spanLabels {
		// ds.qrels, text and slices come from the spans (readSpanLabels).
	} else if err := ds.readJudgements(cfg, be, queriesPath, qrelsPath); err != nil {
		return nil, nil, err
	}
	if slices != nil {
		ds.slice = slices
	}
	if ds.movedNote != "" {
		warns = append(warns, ds.movedNote)
	}
	if ds.labelNotes == nil {
		ds.labelNotes = ds.idLabelNotes()
	}
	judged := cmp.Or(qrelsPath, queriesPath)
	ds.judged = judged
	if err := checkQueryIDs(ds, judged); err != nil {
		return nil, nil, err
	}
	w, err := checkGold(ds, judged, corpusPath, d.UnknownGold, cfg.Path())
	if err != nil {
		return nil, nil, err
	}
	if w != "" {
		warns = append(warns, w)
	}
	noText, err := ds.splitQueries(cfg, judged, queriesPath)
	if err != nil {
		return nil, nil, err
	}
	if noText > 0 {
		warns = append(warns, fmt.Sprintf("%d queries have empty text (searched as empty queries)", noText))
	}
	if ds.hash, err = ds.filesHash(); err != nil {
		return nil, nil, err
	}
	return ds, warns, nil
}

// readJudgements reads the qrels (qrelsPath, with the query texts of
// queriesPath) or the labelled queries (queriesPath alone) into ds.qrels,
// ds.text and ds.slice (the labels eval reads).
func (ds *dataset) readJudgements(cfg *Config, be backend, queriesPath, qrelsPath string) error {
	ds.slice = map[string]string{}
	ds.text = map[string]string{}
	if qrelsPath == "" {
		ds.files["queries"] = queriesPath
		q, meta, lines, err := be.readQrels(queriesPath) // eval keeps other keys, so slice_field may name any field
		if err != nil {
			return beirQueriesHint(cfg, queriesPath, err)
		}
		ds.qrels, ds.judgementLine = q, lines
		for id, m := range meta {
			ds.slice[id] = m.Slice
			ds.text[id] = m.Text
		}
		return nil
	}
	ds.files["qrels"] = qrelsPath
	q, meta, lines, err := be.readQrels(qrelsPath)
	if err != nil {
		return err
	}
	ds.qrels, ds.judgementLine = q, lines
	for id, m := range meta {
		ds.slice[id] = m.Slice
		ds.text[id] = m.Text
	}
	if queriesPath != "" {
		ds.files["queries"] = queriesPath
		texts, err := be.loadQueries(queriesPath)
		if err != nil {
			return err
		}
		for id, t := range texts {
			if _, ok := ds.qrels[id]; ok {
				ds.text[id] = t
			}
		}
	}
	return nil
}

// splitQueries fills ds.queries (every judged query, by id), the
// answerable and unanswerable ids and the held-out split; it returns how
// many queries have empty text. judged names the file of the judgements
// for errors.
func (ds *dataset) splitQueries(cfg *Config, judged, queriesPath string) (noText int, err error) {
	ids := slices.Sorted(maps.Keys(ds.qrels))
	if len(ids) == 0 {
		return 0, fmt.Errorf("%s: no judged queries", judged)
	}
	ds.heldout = map[string]bool{}
	for _, id := range ids {
		t, ok := ds.text[id]
		if !ok || strings.TrimSpace(t) == "" {
			noText++
			if !ok {
				return 0, fmt.Errorf("%s: query %q has qrels but no text in %s", judged, id, queriesPath)
			}
		}
		ds.queries = append(ds.queries, retrievers.Query{ID: id, Text: t})
		if ds.qrels.Answerable(id) {
			ds.answerable = append(ds.answerable, id)
			ds.heldout[id] = IsHeldOut(id, *cfg.HeldOut.Seed, *cfg.HeldOut.Fraction)
		} else {
			ds.unanswer = append(ds.unanswer, id)
		}
	}
	if len(ds.answerable) == 0 {
		// trec_eval averages only queries with a relevant document (so
		// does bench compare, which refuses the same set): with none, no
		// cell has a mean, and a "best" cell at 0.0000 would be made up.
		all := fmt.Sprintf("all %d judged queries are", len(ds.unanswer))
		if len(ds.unanswer) == 1 {
			all = "the one judged query is"
		}
		return 0, fmt.Errorf("%s: no answerable query: %s unanswerable (no gold passage with a positive grade); bench run's measures average the answerable queries only, as trec_eval does, so no cell can be scored or ranked: label the gold passages of at least one query (unanswerable queries are then reported apart)",
			judged, all)
	}
	return noText, nil
}

// filesHash is the dataset's hash for the history and the manifest: a
// sha256 over the corpus, queries and qrels files' sha256s.
func (ds *dataset) filesHash() (string, error) {
	var hashes []string
	for _, role := range []string{"corpus", "queries", "qrels"} {
		if p := ds.files[role]; p != "" {
			h, _, err := pathHash(p, ds)
			if err != nil {
				return "", err
			}
			hashes = append(hashes, role+":"+h)
		}
	}
	return hashkey.Hex([]byte(strings.Join(hashes, "\n"))), nil
}

func (ds *dataset) sortedIDs() []string {
	ids := make([]string, len(ds.queries))
	for i, q := range ds.queries {
		ids[i] = q.ID
	}
	return ids
}

// chunk cuts the documents by ch (corpus.Spec.ChunkIndexed with the
// documents' index: their ids were checked once, when loaded). For
// whole-document chunking the chunks are a view of ds.docs
// (corpus.DocChunks), not a list: nothing is allocated per document.
func (ds *dataset) chunk(ctx context.Context, ch config.Chunking) (corpus.Chunks, error) {
	return ch.Spec().ChunkIndexed(ctx, ds.docs, ds.docByID)
}

// chunkIndex is chunks' positions by id: the documents' own index when the
// chunks are the documents one for one (whole-document chunking, so a
// million ids are indexed once), else an index of the chunks' ids.
func (ds *dataset) chunkIndex(chunks corpus.Chunks) *corpus.IDIndex {
	if corpus.ChunksAreDocs(chunks, ds.docs) {
		return ds.docByID
	}
	return corpus.IndexChunks(chunks)
}

// snippet is the first n characters (runes) of an item's text: a chunk's
// own text when id is a chunk id, else the document's title and text.
func (ds *dataset) snippet(id string, n int, chunkByID *corpus.IDIndex, chunks corpus.Chunks) string {
	var s string
	if i, ok := chunkByID.Get(id); ok && chunks.ID(i) != chunks.At(i).DocID {
		s = ds.texts.Detach(chunks.At(i).Text)
	} else if i, ok := ds.docByID.Get(id); ok {
		d := ds.docs[i]
		s = strings.TrimSpace(ds.texts.Detach(d.Title) + " " + ds.texts.Detach(d.Text))
	}
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// IsHeldOut reports whether query id qid is held out: the first 8 bytes of
// sha256(decimal seed + "\x00" + qid), read big-endian as u ∈ [0, 2^64),
// satisfy u / 2^64 < fraction. The choice depends only on (seed, qid), so a
// query stays on its side of the split whatever else the dataset holds.
func IsHeldOut(qid string, seed int64, fraction float64) bool {
	h := sha256.Sum256([]byte(strconv.FormatInt(seed, 10) + "\x00" + qid))
	u := binary.BigEndian.Uint64(h[:8])
	return float64(u)/18446744073709551616.0 < fraction
}

// checkQueryIDs refuses, before any cell runs, a judged query id that
// runs/<cell>.trec could not hold (eval.CheckRunQueryID): writing the runs
// is the sweep's last step, so it failed only after the whole sweep. The
// error names judged (the file of the judgements) and the id's first line
// there, when known.
func checkQueryIDs(ds *dataset, judged string) error {
	for _, id := range slices.Sorted(maps.Keys(ds.qrels)) {
		err := eval.CheckRunQueryID(id)
		if err == nil {
			continue
		}
		line := 0
		for j, l := range ds.judgementLine {
			if j.Query == id && l > 0 && (line == 0 || l < line) {
				line = l
			}
		}
		loc := judged
		if line > 0 {
			loc += ":" + strconv.Itoa(line)
		}
		return fmt.Errorf("%s: %v; the sweep writes each cell's run as runs/<cell>.trec: rename the query", loc, err)
	}
	return nil
}

// QueryTexts returns query id → text for the queries of cfg's dataset (the
// judged ones, as the sweep searches them), read as Run reads them. It
// loads the dataset again (corpus included), so call it once, after Run.
func QueryTexts(cfg *Config) (map[string]string, error) {
	ds, _, err := loadDataset(cfg, defaultBackend())
	if err != nil {
		return nil, err
	}
	return ds.text, nil
}
