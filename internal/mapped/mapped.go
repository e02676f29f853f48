// Package mapped releases the pages of a read-only shared file mapping
// from the process's resident set, for the two places that keep large
// files mapped and read them in passes: corpus.Texts (the spilled corpus
// texts) and the bm25 retriever (its segment and side files).
//
// Release calls madvise(MADV_DONTNEED) on the mapping: for a read-only
// shared file mapping this drops only the process's page-table entries —
// nothing is lost, the pages stay in the page cache (which the kernel
// keeps while memory allows and drops under pressure), and the next read
// of the mapping faults the same bytes back in. The process's RSS then
// counts what it reads now, not all it ever read.
//
// Anon maps memory outside the Go heap for a long-lived table holding no
// pointer into it (corpus's documents table and ids): the collector
// neither scans it nor counts it in the live heap that sets its goal.
package mapped
