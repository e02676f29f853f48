// Package report renders bench run's reports from a sweep's Results
// alone (package results): report.md (Markdown: GitHub Markdown that reads
// as plain text in a terminal, its tables texttab's) and report.html (HTML:
// one self-contained page, package htmlreport, with the charts of package
// chart). Everything a report shows is in Results: the numbers and tests,
// the query groups the means were taken over (Results.Groups, for
// report.html's confidence intervals) and the misses (CellResult.Misses
// and SpanMisses, as misses.jsonl holds them); only report.html's history
// chart takes the history rows besides.
//
// A retriever is described by its kind (kinds.Settings.Describe) and the
// findings compare fusion and rerank cells with their inputs
// (kinds.Staged) and the best cell with the best cell of the reference
// kind, plain BM25 (kinds.IsReference): the report tests no retriever
// type. Adding a report section is a method of reportWriter (Markdown) or
// a part of Page (HTML), reading Results.
//
// The misses' diagnoses (results.Diagnosis) are worded by DiagnosisText
// and counted per retriever and slice here (diagnosis.go, misses.go); the
// prompt budgets, cover shares and the chunking verdict at the prompt
// budget are budgets.go's; quality against cost and its Pareto front
// (ParetoFront) cost.go's; report.html's sections for them
// htmlsections.go's.
package report
