// Package sweep is ragbench's main job, 'bench run CONFIG': it evaluates
// every chunking × retriever cell of a YAML config against the same qrels,
// at every k of a grid, and writes one report.
//
// Data flow (Run):
//
//	Load (strict YAML, numbers as written, defaults, data/model roots) →
//	Validate and CheckWritable (files, models, ONNX Runtime, output folder,
//	history CSV: before any work) → load dataset (corpus.Load, eval.ReadQrels,
//	held-out split by IsHeldOut) → for each chunking (corpus.Spec.Chunk,
//	corpus.CheckLabels): for each retriever in config order, the cell's
//	chunk-level run from the run cache or from bm25 / dense / engine
//	(Elasticsearch, OpenSearch; sweep/engine.go) / hybrid.Fuse / rerank → corpus.MaxP when qrels are document-level → eval.Evaluate at
//	every k → diagnose.Threshold for unanswerable queries → compare.Compare
//	over all cells at prompt_k → outputs (report.md, report.html, results.json,
//	runs/*.trec, misses.jsonl, manifest.json, each written atomically) →
//	history.Append.
//
// Outputs (outdir.go) replace the earlier ones all or nothing: staged in
// the output folder, then moved in, and moved back if any move fails. A
// run holds a lock on the output folder while it writes it: a second run
// writing the same folder waits, and the last to finish wins, whole.
//
// Span labels (dataset.queries with "gold_spans", or Chroma's
// questions.csv; spans.Detect decides): the labels are read and checked
// against the corpus by spans.Read; each chunking then derives its chunk
// judgements (spans.Judgements, dataset.span_cover_share) for eval's
// families, and spans.Evaluate adds the span families on the same run;
// misses are spans.Misses. sweep/spans.go holds this side, one hook in
// loadDataset, cellRunner.chunking and scoreCell each. Chunk-id labels
// with a recorded chunking (corpus.LabelInfo) are checked against every
// chunking of the grid before any work (labelinfo.go).
//
// Caching: bleve indexes (retrievers/bm25, keyed by chunk content, analyzer,
// fields), embeddings (encoder.CachedEmbedder, keyed by model fingerprint and
// text), dense indexes (keyed by model fingerprint and chunk content) and
// each cell's run (keyed by corpus hash, chunking, queries, retriever config,
// model folder hash, depth and the keys of its inputs) live under the cache
// folder and are reused across cells and runs.
//
// Determinism: the same config and seed give byte-identical results.json
// apart from its "timings" member: means are summed in query-id order, the
// significance tests draw from per-comparison seeded streams
// (stats.Stream), maps are written with sorted keys.
//
// Ownership: sweep re-implements no stage. Defaults and ranges of a
// retriever are its package's (bm25, dense, rerank: DefaultOptions,
// Options.Validate, called from options.go); ties are trec_eval's
// (eval.Sort); answerable is eval.Qrels.Answerable; a model folder's kind
// is encoder.FolderKind; chunk ids are corpus.ParseChunkID; runs are
// written by eval.WriteRunTREC; evaluation reaches comparison through
// compare.FromEvaluation; errors are srcpos.Error; tables are texttab's;
// files are written and swapped by fileutil. docs/architecture.md has the
// map of who calls whom.
//
// Tuning: a hybrid or rerank retriever may give grids (lists) in place of
// values (tuning.go); its cell computes every setting from the inputs' runs,
// keeps the best on the tuning queries and tests it against the untuned
// default on the held-out queries (tuningrun.go, tuningreport.go).
//
// The config's fields are documented on Config and in docs/config.md.
package sweep
