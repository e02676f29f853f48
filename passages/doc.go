// Package passages reads the results of a retrieval pipeline that is not
// ragbench's — LangChain, LlamaIndex, any service with a splitter and an
// index of its own — as passages of the corpus, so that span labels
// (package spans) score it: its own chunk lengths in the token measures,
// and chunk-level judgements derived from the spans for nDCG, MAP, P,
// recall and MRR. docs/pipelines.md is the contract; this package
// implements it.
//
// # Passage runs
//
// A passage run is UTF-8 JSONL, one query per line (Read, Parse):
//
//	{"qid": "q-019", "results": [{"doc": "leases/act", "start": 1204, "end": 1388, "score": 12.3},
//	                              {"doc": "leases/act", "text": "Rent is due monthly.", "score": 11.0},
//	                              {"text": "The landlord must give 30 days' notice.", "score": 10.1}]}
//
// Each result names one passage: by offsets (doc, start, end in code points,
// or bytes with "unit": "bytes"; "text" beside them must equal the document
// there), by text in a document (doc, text), or by text alone. Text is
// placed by a Locator (package anchor): exactly, else with white space
// normalised; text found nowhere (Absent) or at several places (Ambiguous)
// is unmapped — kept at its rank, never relevant, its length in code points
// counted in the token measures' Σ|Ci| (it reached the prompt) — and
// counted (Run.Unmapped, Run.CheckUnmapped). Results are ranked by score,
// descending, equal scores keeping list order; a line without scores is
// ranked in list order. Every error of a file is reported in one pass, each
// an *srcpos.Error naming file, line, results[i] and the field.
//
// The answer of a retriever service (kinds' type http) is one such object
// and is read by ParseAnswer with the same rules.
//
// # TREC runs of a pipeline's own chunk ids
//
// A TREC run names the pipeline's chunks by its own ids; a chunk map
// (ReadChunkMap: JSONL {"id", "doc", "start", "end"} or {"id", "text"},
// the result shapes above with an id) places each chunk, and FromTREC turns
// the run into a passage Run (ranked as trec_eval ranks, or in run order).
//
// # Scoring
//
// Run.Scored is what the measures see: a spans.Chunking of the distinct
// passages (ids "doc@start-end", unmapped ones "unmapped@<hash>"), and an
// eval.Run over those ids whose scores are strictly decreasing in rank
// order (ties separated by the smallest float64 step, so every tie order
// of ragbench gives the list order). spans.Evaluate then computes the span
// and token measures unchanged; Judgements derives chunk-level judgements
// with spans.Covers' rule and the span-level ideal (R = the query's gold
// passages; see Judgements); Evaluate joins both into one eval.Evaluation,
// which bench eval and bench compare print and test like any other.
// Precision Ω needs the pipeline's whole chunking and is not computed.
package passages
