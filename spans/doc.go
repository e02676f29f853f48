// Package spans scores retrieval against gold passages given as spans of
// a document's text, so one label set scores every chunking of a sweep.
//
// # Labels
//
// A span label names a document and a range of its characters:
// {"doc": "tenancy-act", "start": 1204, "end": 1388}, or the passage's text
// alone, {"doc": "tenancy-act", "text": "..."}, which is located in the
// document. Offsets count Unicode code points by default (Python's str
// indexing, what Chroma's questions.csv and most labelling tools write);
// "unit": "bytes" gives UTF-8 byte offsets. Both are converted exactly by
// corpus.RuneIndex, the one owner of that conversion. ParseJSONL reads
// labelled-query JSONL rows with "gold_spans" (the rows themselves through
// eval.ReadLabelRows, the one labelled-query row parser); ParseChromaCSV
// reads Chroma's questions.csv as it is. Both check every label against the
// corpus before returning (a span outside its document, a quote that
// differs from the document, a quote found zero or several times, an empty
// quote, a document that does not exist), all problems of the file at once,
// each an *eval.SyntaxError naming file:line, query and doc with a hint
// where one is known (CheckJSONL and CheckChromaCSV return them as
// Problems, with sure Repairs, for bench labels). Quotes are located by
// package anchor; a label whose document was edited is unchanged, moved,
// changed or lost (CheckOptions.AcceptMoved places moved ones), and
// AnchorRecord records the documents' digests beside a labels file. A label
// may carry "prefix"/"suffix" context, "grade": 0 (judged not relevant:
// Query.NonRelevant), or be a group {"any_of": [...]} of alternatives
// (Span.Group). docs/spans.md shows how to write labels by hand,
// docs/labelling.md how to check and repair them.
//
// # Measures
//
// For one query with gold spans G1..Gm and the top k retrieved chunks
// C1..Ck, each chunk's place in its document given by NewChunking:
//
//   - token_recall@k, token_precision@k, token_iou@k: Chroma's token-level
//     measures (Token), lengths in code points, intersection merged, sums
//     of lengths not merged ("Evaluating Chunking Strategies for
//     Retrieval", Smith & Troynikov, Chroma, 2024).
//   - precision_omega: Chroma's precision Ω (PrecisionOmega), the precision
//     of retrieving exactly the chunks holding gold text; it depends on the
//     chunking only, not on the run.
//   - span_recall@k: the share of the query's gold spans covered by a chunk
//     of the top k; span_hit_rate@k: 1 when any is; span_mrr@k: 1/rank of
//     the first covering chunk. A chunk covers a span when it holds at least
//     Options.CoverShare of it (DefaultCoverShare, one half; Covers).
//
// Each is computed per query, then averaged over the queries with at least
// one gold span (Evaluation.Mean); queries with none are unanswerable and
// counted apart, as in package eval. Judgements turns the labels into
// chunk-level eval.Qrels for one chunking (a covering chunk takes its span's
// grade), so eval's trec_eval measures (nDCG, MAP, P) apply at chunk level;
// RunJudgements does so for one run when labels give alternatives, which
// count once in every measure (Query.Passages).
//
// The same measures at a prompt budget in tokens rather than at k
// (EvaluateBudgets): the prompt holds the chunks in rank order while they
// fit, the next one cut to the tokens left (Prompt; the caller counts
// tokens, PromptTokens), so chunkings are compared on the same amount of
// prompt (docs/spans.md, "Prompt budgets").
//
// The flow for one chunking: docs → corpus.Spec.Chunk → NewChunking;
// ReadJSONL or ReadChromaCSV(labels, docs) → queries; a retriever's
// eval.Run over chunk ids → Evaluate(queries, chunking, run, opts), and
// Judgements(queries, chunking, share) → eval.Evaluate for nDCG, MAP, P.
package spans
