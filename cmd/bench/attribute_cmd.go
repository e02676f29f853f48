package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/diagnose"
	"github.com/ragbench/ragbench/eval"
)

const attributeUsage = `usage: bench attribute --run RUN --qrels QRELS --answers ANSWERS [flags]

Join retrieval hits with answer verdicts (RAG failure attribution). For each
query with a verdict, "retrieved" means a gold doc id (grade > 0) is in the
run's top --depth results (trec_eval order: score descending, ties by doc id
descending). Prints the 2×2 table retrieved × answer correct, hit rate@depth,
answer accuracy, P(correct | retrieved) and P(correct | missed), overall and
per slice, and which failure cell dominates. Then the top-1 scores of
answerable vs unanswerable queries (no gold in the qrels) and a suggested
score threshold below which the retriever should return nothing.

ANSWERS is JSONL, one verdict per query: {"qid": "q000", "correct": true}.
RUN is a TREC run or ranx-style JSON; QRELS is TREC or BEIR qrels or a
labelled-query JSONL (its "kind"/"slice" key gives the slices).

Examples:
  bench attribute --run runs/bm25.trec --qrels qrels/test.tsv --answers answers.jsonl
  bench attribute --run run.trec --qrels labelled.jsonl --answers answers.jsonl --depth 5 --format md
  bench attribute --run run.trec --qrels qrels.tsv --queries queries.jsonl --slice-field topic --answers a.jsonl --format json
  bench attribute --run my-rag-chunks.trec --maxp --qrels qrels/test.tsv --answers answers.jsonl   # run of docid#i chunk ids

Flags:
`

// cmdAttribute implements 'bench attribute'.
func cmdAttribute(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("attribute")
	runPath := fs.String("run", "", "run `file` (TREC or JSON)")
	qrelsPath := fs.String("qrels", "", "qrels `file` (TREC, BEIR TSV or labelled-query JSONL)")
	answersPath := fs.String("answers", "", "answer verdicts `file` (JSONL: {\"qid\": ..., \"correct\": true|false})")
	depth := fs.Int("depth", diagnose.DefaultDepth, "top `k` results searched for a gold doc id (the passages the prompt holds)")
	sliceField := fs.String("slice-field", "", "JSONL `field` naming each query's slice (default: the qrels' \"kind\" or \"slice\")")
	queriesPath := fs.String("queries", "", "queries JSONL `file` holding --slice-field (default: the qrels file)")
	format := fs.String("format", "table", "output `format`: table, md or json")
	maxp := fs.Bool("maxp", false, "the run ranks chunks named docid#i: score each document by its best chunk (MaxP) before matching the qrels")
	if err := fs.Parse(args); err != nil {
		return flagErr(fs, stdout, stderr, attributeUsage, err)
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q (all inputs are flags; see --help)", fs.Arg(0))
	}
	var missing []string
	for _, f := range []struct{ name, v string }{{"--run", *runPath}, {"--qrels", *qrelsPath}, {"--answers", *answersPath}} {
		if f.v == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return usagef("missing %s (see --help)", strings.Join(missing, ", "))
	}
	if *depth < 1 {
		return usagef("--depth must be ≥ 1, got %d", *depth)
	}
	if *queriesPath != "" && *sliceField == "" {
		return usagef("--queries is only read for --slice-field")
	}
	var f diagnose.Format
	switch *format {
	case "table":
		f = diagnose.Text
	case "md":
		f = diagnose.Markdown
	case "json":
	default:
		return usagef("--format must be table, md or json, got %q", *format)
	}

	in, err := readAttributeInput(attributeFiles{run: *runPath, qrels: *qrelsPath, answers: *answersPath,
		queries: *queriesPath, sliceField: *sliceField, maxp: *maxp})
	if err != nil {
		return err
	}
	attr, err := diagnose.Attribute(in, diagnose.AttributeOptions{Depth: *depth})
	if err != nil {
		return err
	}
	thr, err := diagnose.Threshold(in.Run, in.Qrels, diagnose.ThresholdOptions{Depth: *depth})
	if err != nil {
		return err
	}

	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Run         string                    `json:"run"`
			Qrels       string                    `json:"qrels"`
			Answers     string                    `json:"answers"`
			Attribution *diagnose.Attribution     `json:"attribution"`
			Threshold   *diagnose.ThresholdReport `json:"threshold"`
		}{*runPath, *qrelsPath, *answersPath, attr, thr})
	}
	if f == diagnose.Markdown {
		fmt.Fprintf(stdout, "## bench attribute\n\nrun `%s`, qrels `%s`, answers `%s`\n\n", *runPath, *qrelsPath, *answersPath)
	} else {
		fmt.Fprintf(stdout, "bench attribute: run %s, qrels %s, answers %s\n\n", *runPath, *qrelsPath, *answersPath)
	}
	if err := attr.Write(stdout, f); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	return thr.Write(stdout, f)
}

// attributeFiles are 'bench attribute's inputs: the run, qrels and answer
// verdict files, the optional queries file holding sliceField, and whether
// the run's chunks are scored per document (MaxP) first.
type attributeFiles struct {
	run, qrels, answers, queries, sliceField string
	maxp                                     bool
}

// readAttributeInput reads files into diagnose's input: the run (MaxP'd
// when asked), the qrels holding every query the qrels file names
// (diagnose.WithQueries), the verdicts, and the slices (the qrels' labels,
// or sliceField of the queries file, else of the qrels file, which must
// match the verdicts' queries: checkSlicesMatch). Errors: the readers',
// naming the file.
func readAttributeInput(files attributeFiles) (diagnose.AttributeInput, error) {
	qrels, meta, err := eval.ReadQrels(files.qrels)
	if err != nil {
		return diagnose.AttributeInput{}, err
	}
	run, err := eval.ReadRun(files.run)
	if err != nil {
		return diagnose.AttributeInput{}, err
	}
	if files.maxp {
		run = corpus.MaxP(run, chunkDoc)
	}
	verdicts, err := diagnose.ReadVerdicts(files.answers)
	if err != nil {
		return diagnose.AttributeInput{}, err
	}
	ids := make([]string, 0, len(meta))
	slices := map[string]string{}
	for q, m := range meta {
		ids = append(ids, q)
		if m.Slice != "" {
			slices[q] = m.Slice
		}
	}
	qrels = diagnose.WithQueries(qrels, ids)
	if files.sliceField != "" {
		src := files.queries
		if src == "" {
			src = files.qrels
		}
		if slices, err = diagnose.ReadSlices(src, files.sliceField); err != nil {
			return diagnose.AttributeInput{}, err
		}
		if err := checkSlicesMatch(slices, verdicts, src, files.sliceField, files.answers); err != nil {
			return diagnose.AttributeInput{}, err
		}
	}
	return diagnose.AttributeInput{Run: run, Qrels: qrels, Slices: slices,
		Verdicts: verdicts, VerdictsFile: files.answers}, nil
}

// chunkDoc maps a chunk id "docid#i" (i a decimal number, the last '#') to
// docid, and any other id to "" (a doc id already), for corpus.MaxP.
func chunkDoc(id string) string {
	i := strings.LastIndexByte(id, '#')
	if i <= 0 || i == len(id)-1 {
		return ""
	}
	for _, c := range id[i+1:] {
		if c < '0' || c > '9' {
			return ""
		}
	}
	return id[:i]
}

// checkSlicesMatch refuses slice labels of which none belongs to a query
// with a verdict: a queries file of another dataset would otherwise leave
// every query silently "(no slice)".
func checkSlicesMatch(slices map[string]string, verdicts []diagnose.Verdict, src, field, answers string) error {
	var labelled []string
	for q, l := range slices {
		if l != "" {
			labelled = append(labelled, q)
		}
	}
	for _, v := range verdicts {
		if slices[v.QueryID] != "" {
			return nil
		}
	}
	sort.Strings(labelled)
	if len(labelled) == 0 {
		return nil // ReadSlices already refuses a file without the field
	}
	return fmt.Errorf("%s: %s: none of the %d labelled queries (e.g. %q) has a verdict in %s: wrong queries file?",
		src, field, len(labelled), labelled[0], answers)
}
