// Package sweep is ragbench's main job, 'bench run CONFIG': it evaluates
// every chunking × retriever cell of a config (package config) against the
// same qrels, at every k of a grid, and writes one report.
//
// Data flow (Run):
//
//	Check, the one preflight (bench run --check prints it): files, models
//	and their kinds, each kind's own preflight (engine credentials), output
//	folder and history CSV writable, ONNX Runtime loaded when a kind needs
//	it, the dataset loaded and checked (corpus.Load, eval.ReadQrels, span
//	labels, gold ids, held-out split by IsHeldOut) → for each chunking
//	(corpus.Spec.Chunk, the label rule chunkingLevel): for each retriever in
//	config order, the cell's chunk-level run from the run cache or from its
//	kind's Run (package kinds: bm25, dense, engines, hybrid, rerank) →
//	corpus.MaxP when qrels are document-level → eval.Evaluate at every k →
//	diagnose.Threshold for unanswerable queries → the cell's misses →
//	compare.Compare over all cells at prompt_k → outputs (results.json and
//	misses.jsonl by package results, report.md and report.html by package
//	report, runs/*.trec, manifest.json) → history.Append.
//
// Outputs (outdir.go) replace the earlier ones all or nothing: staged in
// the output folder, then moved in, and moved back if any move fails. A
// run holds a lock on the output folder while it writes it: a second run
// writing the same folder waits, and the last to finish wins, whole.
//
// Span labels (dataset.queries with "gold_spans", or Chroma's
// questions.csv; spans.Detect decides): the labels are read and checked
// against the corpus by spans.ReadChecked, as bench labels check reads
// them (every problem at once; moved labels placed anew with a counted
// note; labels.go); each chunking then derives its chunk judgements
// (spans.Judgements, dataset.span_cover_share; per run with alternatives,
// spans.RunJudgements) for eval's families, and spans.Evaluate adds the
// span families on the same run; misses are spans.Misses. sweep/spans.go
// holds this side, one hook in loadDataset, cellRunner.chunking and
// scoreCell each. Chunk-id labels are held to their recorded chunking
// before any work (corpus.CheckLabelChunkings, labels.go). Every cell's
// judged coverage (judged@k, holes, and with dataset.judged_only its
// measures on judged results only) is judged.go's.
//
// Caching: bleve indexes (retrievers/bm25, keyed by chunk content, analyzer,
// fields), embeddings (encoder.CachedEmbedder, keyed by model fingerprint and
// text), dense indexes (keyed by model fingerprint and chunk content) and
// each cell's run (keyed by corpus hash, chunking, queries, retriever
// settings, model folder hash, depth and the keys of its inputs; never for
// a kind that is not Cacheable) live under the cache folder and are reused
// across cells and runs.
//
// Determinism: the same config and seed give byte-identical results.json
// apart from its "timings" member: means are summed in query-id order, the
// significance tests draw from per-comparison seeded streams
// (stats.Stream), maps are written with sorted keys.
//
// Ownership: sweep re-implements no stage and tests no retriever type.
// A retriever's defaults, checks and run are its kind's (package kinds,
// through its package's DefaultOptions and Options.Validate); ties are
// trec_eval's (eval.Sort); answerable is eval.Qrels.Answerable; a model
// folder's kind is encoder.FolderKind; chunk ids are corpus.ParseChunkID;
// runs are written by eval.WriteRunTREC; evaluation reaches comparison
// through compare.FromEvaluation; errors are srcpos.Error; the outputs'
// formats are package results' and report's; files are written and
// swapped by fileutil. docs/architecture.md has the map of who calls whom.
//
// Tuning: a hybrid or rerank retriever may give grids (lists) in place of
// values (kinds.Tunable); its cell computes every setting from the inputs'
// runs, keeps the best on the tuning queries and tests it against the
// untuned default on the held-out queries (tuningrun.go).
package sweep
