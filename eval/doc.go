// Package eval is ragbench's evaluation core: readers and writers for qrels
// and runs, and retrieval measures with trec_eval's exact semantics.
//
// The data flow is: ReadQrels / ReadRun → ParseMeasures → Evaluate →
// Evaluation (per-query matrix, means, counted policies) → WriteTrec,
// WriteTable, WriteJSON or WriteCSV.
//
//	qrels, meta, err := eval.ReadQrels("qrels.tsv")    // TREC, BEIR TSV or JSONL
//	run, err := eval.ReadRun("run.trec")                // TREC or ranx JSON
//	ms, err := eval.ParseMeasures([]string{"map", "ndcg@10", "P.5,10"})
//	e, err := eval.Evaluate(qrels, run, ms, eval.DefaultOptions())
//	ndcg := e.Column("ndcg_cut_10")                     // aligned with e.Queries
//
// Conventions (trec_eval's, see ../shared/conformance/README.md): results are
// re-sorted by score descending with ties broken by doc id in descending
// byte order (Options.TieBreak offers input order instead); the rank column of
// a TREC run is ignored; grades ≤ 0 are non-relevant and a relevance level
// (Options.RelevanceLevel, trec_eval -l) applies to binary measures but not to
// nDCG's gain; Options.MaxResults is trec_eval -M; Options.CompleteQueries is
// trec_eval -c.
//
// ragbench's own defaults (DefaultOptions): qrels queries missing from the run
// score 0, and unanswerable queries (no judged doc with a positive grade,
// whatever the relevance level, e.g. a JSONL query with "gold": []) are
// counted and listed in Evaluation.Unanswerable but not averaged; a query
// relevant only below the relevance level is averaged (binary measures 0,
// as trec_eval) and listed in Evaluation.BelowLevel. TrecEvalOptions
// reproduces trec_eval's defaults.
//
// Measure names are trec_eval's output names (Measure.Name), e.g. "map",
// "P_10", "ndcg_cut_10", "recip_rank", "success_5"; ranx-style names such as
// "ndcg@10" or "hit_rate@5" are parsed to the same measures.
//
// API by stage:
//
//   - read: ReadQrels / ParseQrels (TREC, BEIR TSV, labelled-query JSONL with
//     QueryMeta), ReadRun / ReadRunInfo / ParseRun (TREC, ranx JSON);
//   - write: WriteRunTREC, WriteQrelsTREC, and the atomic WriteRunFile and
//     WriteQrelsFile;
//   - measures: ParseMeasures (trec_eval and ranx-style names),
//     ParseMeasuresTrec (trec_eval's truncation of fractional cutoffs, with
//     warnings), Measure, Kind,
//     OfficialMeasures, TrecOrder, NotImplementedTrecMeasures;
//   - evaluate: Evaluate (in memory), EvaluateRunFile (streams a TREC run
//     file in parallel chunks) and EvaluateReader (a run from a pipe, e.g.
//     stdin), with Options (DefaultOptions, TrecEvalOptions; JudgedOnly is
//     trec_eval -J) and Sort / TieBreak;
//   - results: Evaluation (Queries × Measures matrix, Means, InMean,
//     Unanswerable, BelowLevel, NotInQrels, NotInRun, RunNotes; Column,
//     Mean, PerQuery, Warnings), RunInfo.Warnings (suspect run files);
//   - report: WriteTrec, WriteTable, WriteJSON, WriteCSV.
//
// Bad input gives a *SyntaxError naming file, line and field; it never panics
// (every reader has a fuzz target, run by scripts/fuzz.sh). Comment lines are
// skipped as trec_eval 10 skips them; TREC ids are bytes kept exactly, JSON
// text that encoding/json would rewrite to U+FFFD is refused.
package eval
