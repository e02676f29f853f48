// Package history keeps the history CSV that 'bench run' appends one run to
// each time it finishes, and reads it back for 'bench history'.
//
// # Format
//
// The file is CSV (RFC 4180, UTF-8, LF line ends) in long format: one line
// per (run, cell, metric), so the schema never changes when a config adds,
// renames or drops cells or metrics. The header is written once, when the
// file is created:
//
//	run,time,config_hash,dataset_hash,cell,metric,value,commit
//	1,2026-11-30T12:00:00Z,3f2a…,9b1c…,whole/bm25,ndcg@10,0.6789,4021c53…
//	1,2026-11-30T12:00:00Z,3f2a…,9b1c…,whole/bm25,recall@100,0.9253,4021c53…
//	2,2026-11-30T13:10:05.5Z,3f2a…,9b1c…,whole/bm25,ndcg@10,0.6801,1ccf394…+modified
//
// Columns:
//   - run: the run number, 1 for the first run in the file, then the largest
//     run number so far + 1 (assigned by Append).
//   - time: when the run finished, RFC 3339 in UTC with as many fractional
//     seconds as needed (time.RFC3339Nano).
//   - config_hash, dataset_hash: opaque strings chosen by the caller
//     (bench run writes hex sha256 of the resolved config and of the
//     corpus+queries+qrels); runs are comparable when dataset_hash agrees.
//   - cell: the sweep cell's name (chunking × retriever), e.g. "whole/bm25".
//   - metric: the metric's name as bench run reports it, e.g. "ndcg@10".
//   - value: the metric's value, formatted with strconv 'g' and the shortest
//     precision that reads back to the same float64.
//   - commit: the commit of the code that ran, as manifest.json's git_commit
//     ("+modified" after it for uncommitted changes, as bench --version
//     says); empty when unknown.
//
// A file created before the commit column (its header the first seven
// columns) is read as well, its runs without a commit, and Append adds to
// it in its seven columns: a file keeps one header, and is never rewritten
// in another format. Move such a file aside to start one with commits.
//
// Lines of one run are contiguous and sorted by cell, then metric. A run
// with no metric at all is stored as one line with empty cell, metric and
// value, so it is not lost.
package history

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ragbench/ragbench/internal/fileutil"
	"github.com/ragbench/ragbench/internal/srcpos"
)

// Header is the history CSV's header line, field by field: that of a file
// Append creates.
var Header = []string{"run", "time", "config_hash", "dataset_hash", "cell", "metric", "value", "commit"}

// headerNoCommit is the header of a file written before the commit column:
// Header less its last column (so every history file's first line starts
// with it: HasHeader).
var headerNoCommit = Header[:7]

// HasHeader reports whether content starts with a history CSV's header (with
// or without the commit column): a file bench run appends its runs to.
func HasHeader(content []byte) bool {
	return bytes.HasPrefix(content, []byte(strings.Join(headerNoCommit, ",")))
}

// Row is one run of 'bench run': when it finished, what it ran on, and its
// headline metrics per cell.
type Row struct {
	// Run is the run number (≥ 1). Append ignores the caller's value and
	// assigns the next number; Read fills it from the file.
	Run int
	// Time is when the run finished; stored in UTC.
	Time time.Time
	// ConfigHash and DatasetHash identify the resolved config and the data
	// (any string without line breaks; typically hex sha256).
	ConfigHash  string
	DatasetHash string
	// Commit is the commit of the code that ran (any string without line
	// breaks; bench run writes manifest.json's git_commit, with "+modified"
	// for uncommitted changes). "" when unknown, or read from a file
	// without the commit column.
	Commit string
	// Metrics maps cell name → metric name → value. Values must be finite.
	Metrics map[string]map[string]float64
}

// Cells returns the row's cell names, sorted.
func (r Row) Cells() []string {
	return slices.Sorted(maps.Keys(r.Metrics))
}

// Value returns the value of metric in cell and whether the row has it.
func (r Row) Value(cell, metric string) (float64, bool) {
	v, ok := r.Metrics[cell][metric]
	return v, ok
}

// Append adds row to the history CSV at path as the next run (number = the
// last line's run number + 1, or 1). The file is created with its header when it does
// not exist. The write is atomic: the existing content and the new lines go
// to a temporary file in the same folder, which is synced and renamed over
// path, so a crash leaves either the old or the new file, never a partial
// one. Concurrent Appends to the same path (from several processes too) are
// serialised by an flock(2) on path+".lock", so no run is lost.
//
// Append checks the existing file's header and last line only, so its cost
// stays that of copying the file; Read validates every line. A file
// without the commit column (written before it) gets its lines without
// row.Commit.
//
// Errors: an existing file whose header is not Header or whose last line
// is malformed or has no line feed (cut short), a cell or metric name that is empty, a hash or name containing a line
// break, a NaN or infinite value, or any I/O error. Nothing is written then.
// Every error starts "history: ", so callers print it as is.
func Append(path string, row Row) error {
	if err := validate(row); err != nil {
		return fmt.Errorf("history: %s: %w", path, err)
	}
	unlock, err := fileutil.Lock(path + ".lock")
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	defer unlock()

	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("history: %w", err)
	}
	last, header, err := lastRun(old, path)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	row.Run = last + 1

	var b strings.Builder
	if len(old) > 0 {
		b.Write(old)
		if old[len(old)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	w := csv.NewWriter(&b)
	if len(old) == 0 {
		w.Write(header)
	}
	for _, rec := range records(row) {
		w.Write(rec[:len(header)]) // a file without the commit column keeps its seven
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return fmt.Errorf("history: %s: %w", path, err)
	}
	if err := fileutil.WriteAtomic(path, []byte(b.String())); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
}

// Read returns the runs stored in the history CSV at path, in file order
// (which is run order for files written by Append). A missing file is an
// error wrapping os.ErrNotExist; an empty file holds no runs.
//
// Errors name the file, the line and the field ("file:line: field:
// message"): a file that is not a history CSV (binary data in its first
// line: "not a history CSV"), a header other than Header, a line with a different number of
// fields, a run number that is not a positive integer, a time that is not
// RFC 3339, a value that is not a finite number, a (cell, metric) repeated
// within a run, lines of one run that are not contiguous or disagree on
// time or hashes, a last line without its line feed (cut short: see
// checkEnd).
func Read(path string) ([]Row, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("history: %w", err)
		}
		return nil, fmt.Errorf("history: %s: %w", path, err)
	}
	header, err := checkHeader(data, path)
	if err != nil {
		return nil, err
	}
	if err := checkEnd(data, path); err != nil {
		return nil, err
	}
	return parse(bytes.NewReader(data), path, header)
}

// checkEnd refuses a non-empty history whose last byte is not a line feed.
// Append always ends the file with one, so its absence means the last line
// was cut short (a copy, a disk or an edit interrupted): "0.6789" cut to
// "0." would otherwise read as 0, a silently different number.
func checkEnd(data []byte, file string) error {
	if len(data) == 0 || data[len(data)-1] == '\n' {
		return nil
	}
	line := bytes.Count(data, []byte("\n")) + 1
	last := data[bytes.LastIndexByte(data, '\n')+1:]
	if len(last) > 60 {
		last = append(bytes.Clone(last[:57]), "..."...)
	}
	return &SyntaxError{File: file, Line: line, Msg: fmt.Sprintf("the last line %q does not end in a line feed: it was probably cut short (bench run always ends its lines); check its value, then end it with a newline or delete it", last)}
}

// SyntaxError is a malformed history line: File:Line: Field: Msg, Field
// the column name or "" for the whole line. It is ragbench's one position
// error, srcpos.Error.
type SyntaxError = srcpos.Error

func validate(row Row) error {
	for _, s := range []struct{ name, v string }{{"config_hash", row.ConfigHash}, {"dataset_hash", row.DatasetHash}, {"commit", row.Commit}} {
		if strings.ContainsAny(s.v, "\r\n") {
			return fmt.Errorf("%s: contains a line break", s.name)
		}
	}
	for cell, ms := range row.Metrics {
		if strings.TrimSpace(cell) == "" {
			return errors.New("cell: empty cell name")
		}
		if strings.ContainsAny(cell, "\r\n") {
			return fmt.Errorf("cell %q: contains a line break", cell)
		}
		for m, v := range ms {
			if strings.TrimSpace(m) == "" {
				return fmt.Errorf("cell %q: empty metric name", cell)
			}
			if strings.ContainsAny(m, "\r\n") {
				return fmt.Errorf("cell %q: metric %q: contains a line break", cell, m)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("cell %q: metric %q: value %v is not finite", cell, m, v)
			}
		}
	}
	return nil
}

// records turns row into CSV records of Header, sorted by cell then
// metric.
func records(row Row) [][]string {
	run := strconv.Itoa(row.Run)
	ts := row.Time.UTC().Format(time.RFC3339Nano)
	var out [][]string
	for _, cell := range row.Cells() {
		ms := row.Metrics[cell]
		for _, m := range slices.Sorted(maps.Keys(ms)) {
			out = append(out, []string{run, ts, row.ConfigHash, row.DatasetHash, cell, m,
				strconv.FormatFloat(ms[m], 'g', -1, 64), row.Commit})
		}
	}
	if len(out) == 0 {
		out = append(out, []string{run, ts, row.ConfigHash, row.DatasetHash, "", "", "", row.Commit})
	}
	return out
}

// parse reads a history CSV whose header checkHeader accepted (header:
// Header, or headerNoCommit): the first record is skipped, every other is
// checked and added to its run.
func parse(r io.Reader, file string, header []string) ([]Row, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	p := parser{file: file, header: header, seen: map[int]bool{}}
	for first := true; ; first = false {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, &SyntaxError{File: file, Line: pe.Line, Msg: pe.Err.Error()}
			}
			return nil, fmt.Errorf("history: %s: %w", file, err)
		}
		if first {
			continue // the header
		}
		line, _ := cr.FieldPos(0) // only valid after a record (it panics after an error)
		if err := p.record(rec, line); err != nil {
			return nil, err
		}
	}
	return p.rows, nil
}

// parser is parse's state: the runs read so far, the run numbers seen, and
// the last time text parsed (the lines of a run share it: parsed once).
type parser struct {
	file         string
	header       []string // the file's columns
	rows         []Row
	seen         map[int]bool
	prevTime     time.Time
	prevTimeText string
}

// record adds one data record, on line line, to its run: a new run, or the
// run of the line before (contiguous, same time and hashes).
func (p *parser) record(rec []string, line int) error {
	if len(rec) != len(p.header) {
		return &SyntaxError{File: p.file, Line: line, Msg: fmt.Sprintf("%d fields, want %d (%s)", len(rec), len(p.header), strings.Join(p.header, ","))}
	}
	commit := ""
	if len(rec) > 7 {
		commit = rec[7]
		if strings.ContainsAny(commit, "\r\n") {
			return &SyntaxError{File: p.file, Line: line, Field: Header[7], Msg: fmt.Sprintf("%q contains a line break", commit)}
		}
	}
	serr := func(i int, format string, a ...any) error {
		return &SyntaxError{File: p.file, Line: line, Field: Header[i], Msg: fmt.Sprintf(format, a...)}
	}
	run, err := strconv.Atoi(rec[0])
	if err != nil || run < 1 {
		return serr(0, "%q is not a positive integer", rec[0])
	}
	ts := p.prevTime
	if rec[1] != p.prevTimeText {
		if ts, err = time.Parse(time.RFC3339Nano, rec[1]); err != nil {
			return serr(1, "%q is not an RFC 3339 time", rec[1])
		}
		p.prevTime, p.prevTimeText = ts, rec[1]
	}
	for i := 2; i <= 5; i++ { // what Append refuses to write (validate)
		if strings.ContainsAny(rec[i], "\r\n") {
			return serr(i, "%q contains a line break", rec[i])
		}
	}
	var cur *Row
	if n := len(p.rows); n > 0 && p.rows[n-1].Run == run {
		cur = &p.rows[n-1]
		switch {
		case !cur.Time.Equal(ts):
			return serr(1, "run %d has time %s on an earlier line", run, cur.Time.Format(time.RFC3339Nano))
		case cur.ConfigHash != rec[2]:
			return serr(2, "run %d has config_hash %q on an earlier line", run, cur.ConfigHash)
		case cur.DatasetHash != rec[3]:
			return serr(3, "run %d has dataset_hash %q on an earlier line", run, cur.DatasetHash)
		case cur.Commit != commit:
			return serr(7, "run %d has commit %q on an earlier line", run, cur.Commit)
		}
	} else {
		if p.seen[run] {
			return serr(0, "run %d appears again after other runs (lines of a run must be contiguous)", run)
		}
		p.seen[run] = true
		p.rows = append(p.rows, Row{Run: run, Time: ts.UTC(), ConfigHash: rec[2], DatasetHash: rec[3], Commit: commit, Metrics: map[string]map[string]float64{}})
		cur = &p.rows[len(p.rows)-1]
	}
	return addValue(cur, rec[4], rec[5], rec[6], serr)
}

// addValue adds metric's value vs in cell to run r; empty cell, metric and
// value are a run without metrics. serr makes the error of a column.
func addValue(r *Row, cell, metric, vs string, serr func(i int, format string, a ...any) error) error {
	if cell == "" && metric == "" && vs == "" {
		return nil // a run without metrics
	}
	if strings.TrimSpace(cell) == "" {
		return serr(4, "empty cell name")
	}
	if strings.TrimSpace(metric) == "" {
		return serr(5, "empty metric name")
	}
	v, err := strconv.ParseFloat(vs, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return serr(6, "%q is not a finite number", vs)
	}
	if !decimalRE.MatchString(vs) { // strconv also reads "0_5" (5) and hex
		return serr(6, "%q is not a decimal number", vs)
	}
	ms := r.Metrics[cell]
	if ms == nil {
		ms = map[string]float64{}
		r.Metrics[cell] = ms
	}
	if _, dup := ms[metric]; dup {
		return serr(5, "run %d: cell %q: metric %q repeated", r.Run, cell, metric)
	}
	ms[metric] = v
	return nil
}

// checkHeader refuses content that is not a history CSV before any other
// check reads its lines (a binary file was called a history "probably cut
// short"): binary data (a first line holding a NUL byte or bytes that are
// not UTF-8), or a first line other than Header or headerNoCommit (after a
// byte order mark and a carriage return; CSV quoting allowed). It returns
// the header found: Header for empty content (no runs yet) or a header cut
// short (checkEnd refuses it).
func checkHeader(data []byte, file string) ([]string, error) {
	if len(data) == 0 {
		return Header, nil
	}
	head, _, more := bytes.Cut(data, []byte("\n"))
	off := bytes.IndexByte(head, 0)
	if off < 0 && !utf8.Valid(head) {
		off = invalidUTF8(head)
	}
	if off >= 0 {
		return nil, &SyntaxError{File: file, Msg: fmt.Sprintf("not a history CSV: it holds binary data (byte 0x%02x at offset %d); bench history reads the CSV file that bench run appends a line per (run, cell, metric) to, bench-history.csv by default", data[off], off)}
	}
	head = bytes.TrimSuffix(bytes.TrimPrefix(head, []byte("\ufeff")), []byte("\r"))
	want := strings.Join(Header, ",")
	if !more && strings.HasPrefix(want, string(head)) {
		return Header, nil // a header cut short (the content's one line): checkEnd says so
	}
	rec, err := csv.NewReader(bytes.NewReader(head)).Read()
	switch got := strings.Join(rec, ","); {
	case err == nil && got == want:
		return Header, nil
	case err == nil && got == strings.Join(headerNoCommit, ","):
		return headerNoCommit, nil
	}
	if len(head) > 80 {
		head = append(bytes.Clone(head[:77]), "..."...)
	}
	return nil, &SyntaxError{File: file, Line: 1, Msg: fmt.Sprintf("header is %q, want %q (not a ragbench history file)", head, want)}
}

// invalidUTF8 is the offset of b's first byte that is not (part of) valid
// UTF-8, or -1.
func invalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}

// lastRun returns the run number on the last non-blank line of a history
// file's content (0 when it holds only a header or nothing) and the file's
// header (Header for a new file), after checking the header.
func lastRun(data []byte, file string) (int, []string, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return 0, Header, nil
	}
	header, err := checkHeader(data, file)
	if err != nil {
		return 0, nil, err
	}
	if err := checkEnd(data, file); err != nil {
		return 0, nil, err
	}
	body := bytes.TrimRight(data, " \t\r\n")
	i := bytes.LastIndexByte(body, '\n')
	if i < 0 {
		return 0, header, nil // header only
	}
	lastLine := body[i+1:]
	rows, err := parse(io.MultiReader(strings.NewReader(strings.Join(header, ",")+"\n"), bytes.NewReader(lastLine)), file, header)
	if err != nil {
		var se *SyntaxError
		if errors.As(err, &se) {
			se.Line = bytes.Count(body[:i+1], []byte("\n")) + 1
		}
		return 0, nil, err
	}
	return rows[0].Run, header, nil
}

// decimalRE is a plain decimal number as bench run writes history values
// (optional sign, digits with an optional fraction, optional exponent).
var decimalRE = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)
