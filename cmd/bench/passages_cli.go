package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/passages"
	"github.com/ragbench/ragbench/spans"
)

// This file is bench eval's and bench compare's side of span labels and
// passage runs (issue 22; docs/pipelines.md): the --corpus flags, reading a
// run as passages (a passage run, or a TREC run placed by a chunk map or a
// ragbench chunking), the span measure names, and the warning of a run
// whose ids are mostly unjudged.

// passageFlags are the flags of span labels and passage runs.
type passageFlags struct {
	corpus      string
	chunkMap    string
	chunking    string
	maxUnmapped float64
	coverShare  float64
}

func (p *passageFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&p.corpus, "corpus", "", "the documents (a folder of .md/.txt files, or a corpus file) that span labels and passage runs name: scores span labels (\"gold_spans\", Chroma's questions.csv) and passage runs (docs/pipelines.md)")
	fs.StringVar(&p.chunkMap, "chunk-map", "", "JSONL `file` placing the chunk ids of TREC runs in the corpus ({\"id\", \"doc\", \"start\", \"end\"} or {\"id\", \"text\"}); needs --corpus")
	fs.StringVar(&p.chunking, "chunking", "", "the ragbench chunking `name` (recursive-1000o150, fixed-128o32…) whose chunk ids TREC runs name; needs --corpus")
	fs.Float64Var(&p.maxUnmapped, "max-unmapped", passages.DefaultMaxUnmapped, "fail (exit 1) when more than this `fraction` of a passage run's results is text found nowhere, or at several places, in the corpus")
	fs.Float64Var(&p.coverShare, "cover-share", spans.DefaultCoverShare, "share of a gold span a passage must hold to cover it, in (0, 1]")
}

// check refuses flags that need --corpus without it, and values out of
// range. Errors: usage errors naming the flag.
func (p *passageFlags) check() error {
	if p.corpus == "" {
		for _, f := range []struct{ name, v string }{{"--chunk-map", p.chunkMap}, {"--chunking", p.chunking}} {
			if f.v != "" {
				return usagef("%s needs --corpus DIR (the documents the passages are in)", f.name)
			}
		}
	}
	if p.chunkMap != "" && p.chunking != "" {
		return usagef("give --chunk-map or --chunking, not both")
	}
	if err := passages.CheckMaxUnmapped(p.maxUnmapped); err != nil {
		return usagef("--max-unmapped: %v", err)
	}
	if !(p.coverShare > 0 && p.coverShare <= 1) {
		return usagef("--cover-share %v: must be in (0, 1]", p.coverShare)
	}
	return nil
}

// isPassageRun reports whether the file at path is a passage run
// (passages.IsRun).
func isPassageRun(path string) bool { return passages.IsRun(path) }

// spanLabels reports whether the labels file at path holds span labels
// (spans.Detect). Errors: the file cannot be read.
func spanLabels(path string) (bool, error) {
	f, err := spans.Detect(path)
	return f != "", err
}

// corpusInput is what --corpus reads once: the documents and their
// locator.
type corpusInput struct {
	docs []corpus.Document
	loc  *passages.Locator
}

func loadCorpus(dir string) (*corpusInput, error) {
	docs, err := corpus.Load(dir)
	if err != nil {
		return nil, err
	}
	return &corpusInput{docs: docs, loc: passages.NewLocator(docs)}, nil
}

// readPassages reads the run at path as passages: a passage run, or a TREC
// (or ranx JSON) run whose ids --chunk-map or --chunking place (ranked with
// tb). ok is false when path is neither a passage run nor placed by a flag
// (an id run, read by eval). The run's unmapped rate is checked against
// --max-unmapped. Errors: the readers', a run of unknown chunk ids, an
// unmapped rate above the limit.
func (p *passageFlags) readPassages(path string, ci *corpusInput, tb eval.TieBreak) (run *passages.Run, ok bool, err error) {
	switch {
	case isPassageRun(path):
		if run, err = passages.Read(path, ci.loc); err != nil {
			return nil, false, err
		}
	case p.chunkMap != "" || p.chunking != "":
		cm, err := p.chunkMapOf(ci)
		if err != nil {
			return nil, false, err
		}
		ids, _, err := eval.ReadRunInfo(path)
		if err != nil {
			return nil, false, err
		}
		if run, err = passages.FromTREC(ids, path, cm, tb); err != nil {
			return nil, false, err
		}
	default:
		return nil, false, nil
	}
	if err := run.CheckUnmapped(p.maxUnmapped, "--max-unmapped"); err != nil {
		return nil, false, err
	}
	return run, true, nil
}

// chunkMapOf is the chunk map of --chunk-map, or the chunks of the
// ragbench chunking --chunking.
func (p *passageFlags) chunkMapOf(ci *corpusInput) (*passages.ChunkMap, error) {
	if p.chunkMap != "" {
		return passages.ReadChunkMap(p.chunkMap, ci.loc)
	}
	spec, err := corpus.ParseSpec(p.chunking)
	if err != nil {
		return nil, usagef("--chunking %s: %v", p.chunking, err)
	}
	chunks, err := spec.Chunk(ci.docs)
	if err != nil {
		return nil, fmt.Errorf("--chunking %s: %w", p.chunking, err)
	}
	return passages.ChunkMapOf("chunking "+p.chunking, ci.docs, chunks)
}

// splitSpanMeasures separates the span measure names of -m values
// ("span_recall@10", "token_recall@1,5,10": family@k or family@k,k,…) from
// the others, which eval parses.
func splitSpanMeasures(values []string) (span, rest []string) {
	for _, v := range values {
		for _, part := range eval.SplitMeasureList(v) {
			fam, ks, found := strings.Cut(part, "@")
			if !found || !slices.Contains(spans.AtK, fam) {
				rest = append(rest, part)
				continue
			}
			for _, k := range strings.Split(ks, ",") {
				span = append(span, fam+"@"+k)
			}
		}
	}
	return span, rest
}

// defaultSpanMeasures are bench eval's span measures with span labels when
// -m names none: every family at k = 1, 5 and 10 (the reference scorer's
// and Chroma's cutoffs).
func defaultSpanMeasures() []string {
	var out []string
	for _, f := range spans.AtK {
		for _, k := range []int{1, 5, 10} {
			out = append(out, spans.MeasureName(f, k))
		}
	}
	return out
}

// checkSpanNames refuses span measure names that do not parse. Errors:
// usage errors naming the measure.
func checkSpanNames(names []string) error {
	for _, n := range names {
		if _, _, ok := passages.ParseSpanMeasure(n); !ok {
			return usagef("-m %s: a span measure is family@k with k ≥ 1 (%s)", n, strings.Join(spans.AtK, ", "))
		}
	}
	return nil
}

// unjudgedThreshold: a run is "mostly unjudged" when at most this share of
// its queries retrieved any judged id (the run's ids and the qrels' do not
// match: chunk ids against document labels). A real system with sparse
// qrels (BEIR: only relevant documents judged) still retrieves a judged
// document for most queries.
const unjudgedThreshold = 0.1

// unjudgedWarning is the warning of a run whose results are mostly
// unjudged ("" when they are not): counts per evaluated query of results
// retrieved and judged (any grade ≥ 0). sample are some of the run's ids,
// and judgedIDs every id the qrels judge, for a hint when the run names
// chunks ("doc#3") of judged documents.
func unjudgedWarning(name string, retrieved, judged []int, sample []string, judgedIDs map[string]bool) string {
	ret, jud, queries, withJudged := 0, 0, 0, 0
	for i := range retrieved {
		if retrieved[i] == 0 {
			continue
		}
		queries++
		ret += retrieved[i]
		jud += judged[i]
		if judged[i] > 0 {
			withJudged++
		}
	}
	if queries == 0 || float64(withJudged) > unjudgedThreshold*float64(queries) {
		return ""
	}
	share := strconv.FormatFloat(100*float64(ret-jud)/float64(ret), 'f', 1, 64)
	msg := fmt.Sprintf("%s: %s%% of the run's %d results are unjudged (not in the qrels for their query), and only %d of its %d queries retrieved any judged id: every measure counts them not relevant, so its numbers say nothing about the retriever",
		name, share, ret, withJudged, queries)
	for _, id := range sample {
		if doc, _, ok := strings.Cut(id, "#"); ok && judgedIDs[doc] {
			return msg + fmt.Sprintf(". The run names chunks (%q) of judged documents (%q): score documents (MaxP: each document's best chunk), or score the chunks as passages: span labels with --corpus and --chunking NAME (ragbench's chunk ids) or --chunk-map FILE (a pipeline's own; docs/pipelines.md)", id, doc)
		}
	}
	return msg + ". Do the run's ids name what the qrels judge (chunk ids against document ids, another corpus's ids)?"
}

// runSample returns up to 20 distinct doc ids of the first lines of the
// TREC run at path (none for stdin or another format), for
// unjudgedWarning's hint.
func runSample(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(io.LimitReader(f, 1<<20))
	for sc.Scan() && len(out) < 20 {
		fs := strings.Fields(sc.Text())
		if len(fs) >= 3 && !slices.Contains(out, fs[2]) {
			out = append(out, fs[2])
		}
	}
	return out
}

// judgedIDs are the ids qrels judge, whatever the query.
func judgedIDs(qrels eval.Qrels) map[string]bool {
	m := map[string]bool{}
	for _, j := range qrels {
		for id := range j {
			m[id] = true
		}
	}
	return m
}

// runJudgedCounts counts, per query of run that qrels has, the results
// retrieved and those judged (grade ≥ 0), for unjudgedWarning.
func runJudgedCounts(qrels eval.Qrels, run eval.Run) (retrieved, judged []int, sample []string) {
	qids := make([]string, 0, len(run))
	for q := range run {
		qids = append(qids, q)
	}
	slices.Sort(qids)
	for _, q := range qids {
		res := run[q]
		j, ok := qrels[q]
		if !ok {
			continue
		}
		n := 0
		for _, r := range res {
			if g, ok := j[r.DocID]; ok && g >= 0 {
				n++
			}
			if len(sample) < 20 {
				sample = append(sample, r.DocID)
			}
		}
		retrieved, judged = append(retrieved, len(res)), append(judged, n)
	}
	return retrieved, judged, sample
}
