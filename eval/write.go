package eval

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ragbench/ragbench/internal/fileutil"
)

// CheckRunQueryID returns an error unless id can be the query field of a
// TREC run line and be read back unchanged: non-empty, without white space
// (isTrecSpace) and not starting with the '#' of a comment (trecID).
// WriteRunTREC applies it to every query; a caller that writes runs only
// after long work (the sweep) calls it on its query ids first.
func CheckRunQueryID(id string) error {
	if !trecID(id, true) {
		return fmt.Errorf("query id %q cannot be written in TREC format (empty, white space, or a leading '#' that trec_eval reads as a comment)", id)
	}
	return nil
}

// WriteRunTREC writes run in TREC format, one "qid Q0 docid rank score tag"
// line per result, queries in byte order of their ids and results in the
// order of Sort (score descending, ties by doc id descending; rank from 1).
// Scores are printed with the shortest representation that round-trips.
// tag must be non-empty and contain no white space.
func WriteRunTREC(w io.Writer, run Run, tag string) error {
	if tag == "" || strings.ContainsAny(tag, " \t\r\n") {
		return fmt.Errorf("run tag %q must be non-empty and contain no white space", tag)
	}
	bw := bufio.NewWriter(w)
	wrote := false // a line was written
	for _, qid := range slices.Sorted(maps.Keys(run)) {
		if err := CheckRunQueryID(qid); err != nil {
			return err
		}
		if !wrote && len(run[qid]) > 0 && !trecFirstID(qid) {
			return fmt.Errorf("query id %q cannot be written first in a TREC run file (a leading '{' or byte order mark reads as JSON or is dropped)", qid)
		}
		wrote = wrote || len(run[qid]) > 0
		res := append([]Result(nil), run[qid]...)
		Sort(res, TieDocIDDesc)
		for i, r := range res {
			if !trecID(r.DocID, false) {
				return fmt.Errorf("doc id %q cannot be written in TREC format (empty or white space)", r.DocID)
			}
			if math.IsNaN(r.Score) || math.IsInf(r.Score, 0) {
				return fmt.Errorf("query %q doc %q: score %v not finite", qid, r.DocID, r.Score)
			}
			fmt.Fprintf(bw, "%s Q0 %s %d %s %s\n", qid, r.DocID, i+1, strconv.FormatFloat(r.Score, 'g', -1, 64), tag)
		}
	}
	return bw.Flush()
}

// WriteRunFile writes run in TREC format (as WriteRunTREC) to path
// atomically: to a temporary file in the same folder, renamed over path once
// complete, so a reader never sees a partial run. A ".gz" suffix compresses.
func WriteRunFile(path string, run Run, tag string) error {
	return writeAtomic(path, func(w io.Writer) error { return WriteRunTREC(w, run, tag) })
}

// WriteQrelsFile writes qrels in TREC format (as WriteQrelsTREC) to path
// atomically; see WriteRunFile. It returns the number of unanswerable
// queries skipped.
func WriteQrelsFile(path string, qrels Qrels) (skipped int, err error) {
	err = writeAtomic(path, func(w io.Writer) error {
		var e error
		skipped, e = WriteQrelsTREC(w, qrels)
		return e
	})
	return skipped, err
}

// writeAtomic streams write's output (gzip-compressed when path ends in
// ".gz") to a file that atomically replaces path once complete
// (fileutil.WriteStream: pending file beside path, fsync, rename; new files
// get mode 0644).
func writeAtomic(path string, write func(io.Writer) error) error {
	return fileutil.WriteStream(path, func(w io.Writer) error {
		if !strings.HasSuffix(path, ".gz") {
			return write(w)
		}
		zw := gzip.NewWriter(w)
		if err := write(zw); err != nil {
			return err
		}
		return zw.Close()
	})
}

// WriteQrelsTREC writes qrels in TREC format ("qid 0 docid grade"), queries
// and docs in byte order of their ids. Unanswerable queries (no judgement at
// all) cannot be represented in TREC qrels and are skipped; the number
// skipped is returned.
func WriteQrelsTREC(w io.Writer, qrels Qrels) (skipped int, err error) {
	bw := bufio.NewWriter(w)
	wrote := false // a line was written
	for _, qid := range slices.Sorted(maps.Keys(qrels)) {
		m := qrels[qid]
		if len(m) == 0 {
			skipped++
			continue
		}
		if !trecID(qid, true) {
			return skipped, fmt.Errorf("query id %q cannot be written in TREC format (empty, white space, or a leading '#' that trec_eval reads as a comment)", qid)
		}
		if !wrote && !trecFirstID(qid) {
			return skipped, fmt.Errorf("query id %q cannot be written first in a TREC qrels file (a leading '{' or byte order mark reads as JSON or is dropped)", qid)
		}
		wrote = true
		for _, did := range slices.Sorted(maps.Keys(m)) {
			if !trecID(did, false) {
				return skipped, fmt.Errorf("doc id %q cannot be written in TREC format (empty or white space)", did)
			}
			fmt.Fprintf(bw, "%s 0 %s %d\n", qid, did, m[did])
		}
	}
	return skipped, bw.Flush()
}

// trecID reports whether id can be written as a field of a TREC run or
// qrels line and read back unchanged: non-empty, without a field separator
// (isTrecSpace), and, as the line's first field (first), not starting
// with the '#' of a comment line.
func trecID(id string, first bool) bool {
	return id != "" && !strings.ContainsFunc(id, isTrecSpace) && !(first && id[0] == '#')
}

// trecFirstID reports whether id can start a TREC file and be read back as
// it is: the readers take a file starting with '{' for JSON, and drop a
// UTF-8 byte order mark at its start.
func trecFirstID(id string) bool {
	return !strings.HasPrefix(id, "{") && !strings.HasPrefix(id, "\xef\xbb\xbf")
}
