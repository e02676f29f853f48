// Package anchor locates quoted text in documents: exactly, after folding
// away differences of white space, quote marks, dashes and case, or
// approximately (the nearest passage by edit distance, with its
// similarity), and re-anchors a quote with context (a W3C Web Annotation
// TextQuoteSelector: exact, prefix, suffix) in an edited document as
// unchanged, moved, changed or lost. Span labels (package spans), `bench
// labels check`, passage runs that give chunk text, and the labelling
// workbench all locate text through it, so a passage is found by one rule.
//
// # Units
//
// A document's text is a Go string (UTF-8). Every Range gives both units:
// code points (Start, End: Python's str indexing, what labels and Chroma's
// files hold) and UTF-8 bytes (ByteStart, ByteEnd: Go's string indexing,
// corpus.Chunk's), converted by corpus.RuneIndex. A Position is a 1-based
// line and a 1-based column counted in code points, as editors show them.
//
// # Matching
//
//   - Exact (Doc.Find): byte-equal occurrences, overlapping ones included
//     ("aa" occurs twice in "aaa").
//   - Folded (Doc.FindFolded): equal once both texts are folded by a Fold:
//     FoldSpace turns each run of white space (unicode.IsSpace: spaces,
//     tabs, line ends, no-break spaces) into one space; FoldQuotes maps
//     curly and typographic quote marks to ' and "; FoldDashes maps hyphen
//     and dash characters (‐ ‑ ‒ – — ― −) to -; FoldCase maps each
//     character to its lower case (unicode.ToLower). Each folds one
//     character to at most one, so a folded match maps back to an exact
//     range of the document.
//   - Approximate (Doc.Nearest): the passage of the document with the
//     fewest edits (insertions, deletions, substitutions of code points;
//     Levenshtein distance) from the quote, both folded by FoldAll, found
//     with Myers' bit-vector algorithm ("A fast bit-vector algorithm for
//     approximate string matching based on dynamic programming", J. ACM
//     46(3), 1999), in O(n·⌈m/64⌉) for a document of n and a quote of m code
//     points. Its similarity is 1 − edits/m, in [0, 1], as the Hypothesis
//     client scores a quote match. A Pattern prepares a quote once for
//     many documents; Doc.NearestPattern and Pattern.SimilarityIn search
//     only for passages at least a given similarity, skipping the rows of
//     the table that cannot come within it (Ukkonen's cut-off, Myers'
//     section 5): at DefaultThreshold, 1,500 characters of unrelated text are
//     searched about 6× faster than by Nearest (BenchmarkSimilarityIn),
//     with the same results.
//
// # Re-anchoring
//
// Doc.Anchor classifies a Quote (its text, optional prefix and suffix, and
// optionally the range it was labelled at) against the document as it is
// now: Unchanged (the text is at its range, or, given no range, found once,
// or once given its context), Moved (found exactly, elsewhere, once or once
// given its context), Changed (found only after folding, or several times
// with nothing to choose between them, or only approximately with a
// similarity of at least the threshold, DefaultThreshold: a person must
// look) or Lost. Context decides between repeated occurrences as in the
// Hypothesis client and textanchor (github.com/vloothuis/textanchor): each
// occurrence is scored by how many code points of the prefix and suffix
// the text around it repeats; the occurrence scoring strictly highest wins.
// A position alone never decides: an occurrence near the old place is not
// proof that it is the passage labelled.
//
// # Many documents
//
// Index holds a corpus for locating text whose document is not known (a
// pipeline's chunk text, a label whose doc id is wrong): Index.Locate finds
// it exactly, else folded, across all documents with a suffix array
// (index/suffixarray), in O(m log n) per lookup once built; the first match
// level that finds the text decides, and more than one place there is
// ambiguous.
package anchor
