// Package diagnose explains where a RAG pipeline fails, from retrieval runs,
// qrels and (optionally) answer verdicts.
//
//   - Attribute joins retrieval with answer verdicts: a 2×2 table of
//     retrieved (a gold doc id in the top Depth results) × answer correct,
//     with hit rate@Depth, answer accuracy, P(correct | retrieved) and
//     P(correct | missed), overall and per slice, and a sentence naming the
//     dominant failure cell (retrieval miss vs. prompt/model misuse).
//   - Threshold compares the top-1 retrieval scores of unanswerable queries
//     (no positive judgement in the qrels) with those of answerable ones and
//     suggests the score below which a retriever should return nothing.
//
// Conventions shared by both, matching trec_eval and the eval package: a
// judgement with grade > 0 is relevant ("gold"), grade ≤ 0 is judged
// non-relevant; a query's results are ranked by score descending with ties
// broken by doc id in descending byte order (trec_eval's order), whatever
// order the run file gave; a query of the qrels that is absent from the run
// retrieved nothing.
package diagnose
