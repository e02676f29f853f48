package workbench

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ragbench/ragbench/anchor"
	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/internal/fileutil"
	"github.com/ragbench/ragbench/labels"
	"github.com/ragbench/ragbench/results"
	"github.com/ragbench/ragbench/spans"
)

// This file holds the labels the workbench edits: the file in memory, its
// check, its lock, saving, and the last run's misses and pool.

// state is the session's labels. Its methods lock mu.
type state struct {
	mu      sync.Mutex
	file    *labels.File
	docs    []corpus.Document
	ix      *anchor.Index
	opt     labels.Options
	checked *labels.Checked // the file as it is now, checked
	dirty   int             // edits since the last save

	readOnly    bool
	readOnlyWhy string
	lock        *os.File
	onDisk      [32]byte // SHA-256 of the labels file as last read or written (of nothing when absent)

	runs   []labels.PoolRun // the last run (nil without one)
	misses []missRow        // its span misses
	runErr string           // why the last run could not be read ("" when it was, or none was asked for)
}

// errReadOnly is what an edit gets in a read-only session.
var errReadOnly = errors.New("read-only session")

// testHookSave, when set (tests), is called halfway through writing the
// labels file: the new file is then partly written, the old one in place.
var testHookSave func()

// openState reads the labels at path (a missing file is a new one), locks
// them, checks them, and reads the last run from resultsDir ("" for none).
func openState(path string, docs []corpus.Document, resultsDir string) (*state, error) {
	f, err := labels.ReadFile(path)
	if err != nil {
		return nil, err
	}
	st := &state{file: f, docs: docs, ix: anchor.NewIndex(docs), opt: labels.DefaultOptions()}
	if st.onDisk, err = diskSum(path); err != nil {
		return nil, err
	}
	st.takeLock()
	if err := st.recheck(); err != nil {
		st.close()
		return nil, err
	}
	if resultsDir != "" {
		st.readRun(resultsDir)
	}
	return st, nil
}

// diskSum is the SHA-256 of the file at path (of no bytes when it does not
// exist).
func diskSum(path string) ([32]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return [32]byte{}, err
	}
	return sha256.Sum256(data), nil
}

// ConflictPath is where a session writes its labels when the labels file
// changed on disk since the session read it (another program wrote it: the
// lock keeps out other bench label sessions only): LABELS.bench-label.jsonl,
// for a person to compare and merge.
func ConflictPath(labelsPath string) string {
	return strings.TrimSuffix(labelsPath, ".jsonl") + ".bench-label.jsonl"
}

// LockPath is the lock file of a labels file: LABELS.lock, held (flock(2))
// by the session that may write LABELS. It is left in place (a lock file
// removed while another process opens it would let two sessions hold a
// lock each); the kernel drops the lock when its session ends, however it
// ends.
func LockPath(labelsPath string) string { return labelsPath + ".lock" }

// takeLock takes the labels' lock, or makes the session read-only, saying
// why.
func (st *state) takeLock() {
	lf, err := os.OpenFile(LockPath(st.file.Path), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		st.readOnly, st.readOnlyWhy = true, fmt.Sprintf("cannot create the lock file %s (%v): opened read-only", LockPath(st.file.Path), err)
		return
	}
	if err := fileutil.Flock(lf, false); err != nil {
		holder, _ := io.ReadAll(io.LimitReader(lf, 64))
		lf.Close()
		who := "another bench label session"
		if pid := strings.TrimSpace(string(holder)); pid != "" {
			who += " (process " + pid + ")"
		}
		st.readOnly, st.readOnlyWhy = true, fmt.Sprintf("%s has %s open: this session is read-only (its lock: %s)", who, st.file.Path, LockPath(st.file.Path))
		if !errors.Is(err, fileutil.ErrLocked) {
			st.readOnlyWhy = fmt.Sprintf("cannot lock %s (%v): opened read-only", LockPath(st.file.Path), err)
		}
		return
	}
	lf.Truncate(0)
	lf.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	st.lock = lf
}

// close releases the lock and the check's copy.
func (st *state) close() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.checked != nil {
		st.checked.Close()
		st.checked = nil
	}
	if st.lock != nil {
		st.lock.Close()
		st.lock = nil
	}
}

// recheck checks the file as it is now (labels.Check, the rules bench
// labels check and bench run use), placing its passages.
func (st *state) recheck() error {
	c, err := st.file.Check(st.docs, st.opt)
	if err != nil {
		return err
	}
	if st.checked != nil {
		st.checked.Close()
	}
	st.checked = c
	return nil
}

// problemsOf lists the problems of the row at line.
func (st *state) problemsOf(line int) []spans.Problem {
	var out []spans.Problem
	for _, p := range st.checked.Problems {
		if p.Line == line {
			out = append(out, p)
		}
	}
	return out
}

// readRun reads the last run of the config: its cells' runs and chunkings
// (for the pool) and misses.jsonl's span rows.
func (st *state) readRun(dir string) {
	runs, err := labels.ReadPoolRuns(dir, st.docs)
	if err != nil {
		st.runErr = err.Error()
		return
	}
	st.runs = runs
	data, err := os.ReadFile(filepath.Join(dir, "misses.jsonl"))
	if err != nil {
		st.runErr = err.Error()
		return
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		var m results.SpanMiss
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 || !bytes.Contains(line, []byte(`"doc"`)) {
			continue // a document-level miss: not a passage
		}
		if err := json.Unmarshal(line, &m); err != nil {
			st.runErr = fmt.Sprintf("%s:%d: %v", filepath.Join(dir, "misses.jsonl"), n, err)
			return
		}
		st.addMiss(m)
	}
}

// missRow is one gold passage a run missed, with every cell that missed it
// and what each returned instead.
type missRow struct {
	Query    string     `json:"query"`
	Question string     `json:"question"`
	Doc      string     `json:"doc"`
	Start    int        `json:"start"`
	End      int        `json:"end"`
	Text     string     `json:"text"`
	K        int        `json:"k"`
	Cells    []missCell `json:"cells"`
}

// missCell is one cell's top k for a missed passage.
type missCell struct {
	Cell     string      `json:"cell"`
	Returned []returnHit `json:"returned"`
}

// returnHit is a chunk a cell returned, with its place.
type returnHit struct {
	Rank     int    `json:"rank"`
	Chunk    string `json:"chunk"`
	Relevant bool   `json:"relevant"`
	Doc      string `json:"doc"`
	Start    int    `json:"start"`
	End      int    `json:"end"`
	Snippet  string `json:"snippet"`
}

func (st *state) addMiss(m results.SpanMiss) {
	mc := missCell{Cell: m.Cell}
	for _, h := range m.Returned {
		rh := returnHit{Rank: h.Rank, Chunk: h.ID, Relevant: h.Relevant, Snippet: h.Snippet, Start: -1, End: -1}
		for _, pr := range st.runs {
			if pr.Cell == m.Cell {
				if iv, ok := pr.Chunking.Intervals[h.ID]; ok {
					rh.Doc, rh.Start, rh.End = iv.Doc, iv.Start, iv.End
				}
			}
		}
		mc.Returned = append(mc.Returned, rh)
	}
	for i := range st.misses {
		r := &st.misses[i]
		if r.Query == m.QueryID && r.Doc == m.Doc && r.Start == m.Start && r.End == m.End {
			r.Cells = append(r.Cells, mc)
			return
		}
	}
	st.misses = append(st.misses, missRow{Query: m.QueryID, Question: m.Query, Doc: m.Doc, Start: m.Start, End: m.End, Text: m.Text, K: m.K, Cells: []missCell{mc}})
}

// rowStatus is a row's place in the work lists: "stale" (a label the
// check refuses), "unanswerable" (marked so), "labelled" (a gold passage)
// or "unlabelled".
func (st *state) rowStatus(r *labels.Row) string {
	if len(st.problemsOf(r.Line)) > 0 {
		return "stale"
	}
	if r.Unanswerable {
		return "unanswerable"
	}
	for _, p := range r.Passages() {
		if p.Grade > 0 {
			return "labelled"
		}
	}
	return "unlabelled"
}

// rowItem is a row in a work list.
type rowItem struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	Slice    string `json:"slice"`
	Line     int    `json:"line"`
	Status   string `json:"status"`
	Gold     int    `json:"gold"`
	Edited   bool   `json:"edited"`
}

func (st *state) item(r *labels.Row) rowItem {
	gold := 0
	for _, p := range r.Passages() {
		if p.Grade > 0 {
			gold++
		}
	}
	return rowItem{ID: r.ID, Question: r.Question, Slice: r.Slice, Line: r.Line, Status: st.rowStatus(r), Gold: gold, Edited: r.Edited()}
}

// rowView is a row as the editor shows it.
type rowView struct {
	rowItem
	Note         string        `json:"note"`
	Unanswerable bool          `json:"unanswerable"`
	Passages     []passageView `json:"passages"`
	Problems     []problemView `json:"problems"`
}

// passageView is a passage as the editor shows it; I is its index in the
// row (what an edit's "orig" names).
type passageView struct {
	I       int    `json:"i"`
	Doc     string `json:"doc"`
	Start   int    `json:"start"`
	End     int    `json:"end"`
	Text    string `json:"text"`
	Grade   int    `json:"grade"`
	Group   int    `json:"group"`
	Placed  bool   `json:"placed"`
	Field   string `json:"field"`
	Problem string `json:"problem,omitempty"`
}

func (st *state) view(r *labels.Row) rowView {
	v := rowView{rowItem: st.item(r), Note: r.Note, Unanswerable: r.Unanswerable, Passages: []passageView{}, Problems: []problemView{}}
	for i, p := range r.Passages() {
		pv := passageView{I: i, Doc: p.Doc, Start: p.Start, End: p.End, Text: p.Text, Grade: p.Grade, Group: p.Group, Placed: p.Placed, Field: p.Field}
		if p.Problem != nil {
			pv.Problem = p.Problem.Msg
		}
		v.Passages = append(v.Passages, pv)
	}
	for _, p := range st.problemsOf(r.Line) {
		v.Problems = append(v.Problems, st.problem(r.ID, p))
	}
	return v
}

// problemView is a problem of the labels with its repair: the sure one
// (Repair, what bench labels check --fix writes) or, for a changed label,
// the nearest passage for a person to look at (Suggest).
type problemView struct {
	ID      string        `json:"id"`
	Line    int           `json:"line"`
	Field   string        `json:"field"`
	Message string        `json:"message"`
	Hint    string        `json:"hint,omitempty"`
	Status  string        `json:"status,omitempty"`
	Repair  string        `json:"repair,omitempty"`
	Doc     string        `json:"doc,omitempty"`
	Suggest *suggestView  `json:"suggest,omitempty"`
	Text    string        `json:"text,omitempty"`
	Passage *passageIndex `json:"passage,omitempty"`
}

// suggestView is a place a person should look at.
type suggestView struct {
	Doc        string  `json:"doc"`
	Start      int     `json:"start"`
	End        int     `json:"end"`
	Text       string  `json:"text"`
	Similarity float64 `json:"similarity"`
}

// passageIndex names the passage of a problem in its row.
type passageIndex struct {
	I int `json:"i"`
}

func (st *state) problem(id string, p spans.Problem) problemView {
	pv := problemView{ID: id, Line: p.Line, Field: p.Field, Message: p.Msg, Hint: p.Hint, Doc: p.Doc}
	if p.Anchored {
		pv.Status = p.Status.String()
	}
	if p.Repair != nil {
		pv.Repair = p.Repair.Note
	}
	r, ok := st.file.Row(id)
	if !ok {
		return pv
	}
	for i, ps := range r.Passages() {
		if ps.Field != p.Field {
			continue
		}
		pv.Passage, pv.Text = &passageIndex{I: i}, ps.Text
		d, ok := st.ix.Doc(ps.Doc)
		if !ok || p.Repair != nil || ps.Text == "" {
			break
		}
		a := d.Anchor(anchor.Quote{Text: ps.Text, Prefix: ps.Prefix, Suffix: ps.Suffix}, st.opt.Threshold)
		if a.Status == anchor.Changed || a.Status == anchor.Lost && a.Similarity > 0 {
			pv.Suggest = &suggestView{Doc: d.ID, Start: a.Range.Start, End: a.Range.End, Text: d.Slice(a.Range), Similarity: a.Similarity}
		}
		break
	}
	return pv
}

// stale lists every problem of the labels, in file order: rows the check
// refuses, with their sure repair or a suggestion, and rows that could not
// be read at all.
func (st *state) stale() []problemView {
	out := []problemView{}
	byLine := map[int]string{}
	for _, r := range st.file.Rows() {
		byLine[r.Line] = r.ID
	}
	for _, p := range st.checked.Problems {
		out = append(out, st.problem(byLine[p.Line], p))
	}
	return out
}

// rowEdit is an edit of one row (POST /api/question).
type rowEdit struct {
	ID           string        `json:"id"`
	New          bool          `json:"new"`
	Question     string        `json:"question"`
	Slice        string        `json:"slice"`
	Note         string        `json:"note"`
	Unanswerable bool          `json:"unanswerable"`
	Passages     []passageEdit `json:"passages"`
}

// passageEdit is one passage of an edit: an existing one of the row
// (Orig, its index; only Grade and Group apply) or a new one.
type passageEdit struct {
	Orig  *int   `json:"orig"`
	Doc   string `json:"doc"`
	Start int    `json:"start"`
	End   int    `json:"end"`
	Grade int    `json:"grade"`
	Group int    `json:"group"`
}

// editError is an edit refused: its message, and the check's problems
// with the row as edited.
type editError struct {
	msg      string
	problems []problemView
}

func (e *editError) Error() string { return e.msg }

// edit applies e to its row (a new row with e.New), then checks the file:
// the edit is undone and refused when the row as edited has a problem it
// did not have (the rules bench run applies: a stale passage kept as it
// was stays), or when a passage cannot be placed.
func (st *state) edit(e rowEdit) (rowView, error) {
	if st.readOnly {
		return rowView{}, errReadOnly
	}
	e.ID, e.Question = strings.TrimSpace(e.ID), strings.TrimSpace(e.Question)
	var r *labels.Row
	var undo func()
	if e.New {
		var err error
		if r, err = st.file.AddRow(e.ID, e.Question); err != nil {
			return rowView{}, &editError{msg: err.Error()}
		}
		undo = func() { st.file.DeleteRow(e.ID) }
	} else {
		var ok bool
		if r, ok = st.file.Row(e.ID); !ok {
			return rowView{}, &editError{msg: fmt.Sprintf("no query %q in %s", e.ID, st.file.Path)}
		}
		saved := *r
		undo = func() { *r = saved }
	}
	old := r.Passages()
	var ps []labels.Passage
	for i, pe := range e.Passages {
		if pe.Orig != nil {
			if *pe.Orig < 0 || *pe.Orig >= len(old) {
				undo()
				return rowView{}, &editError{msg: fmt.Sprintf("passage %d: no passage %d in query %q", i, *pe.Orig, e.ID)}
			}
			p := old[*pe.Orig]
			p.Grade, p.Group = pe.Grade, pe.Group
			ps = append(ps, p)
			continue
		}
		d, ok := st.ix.Doc(pe.Doc)
		if !ok {
			undo()
			return rowView{}, &editError{msg: fmt.Sprintf("passage %d: no document %q in the corpus", i, pe.Doc)}
		}
		p, err := labels.NewPassage(d, pe.Start, pe.End, pe.Grade, pe.Group)
		if err != nil {
			undo()
			return rowView{}, &editError{msg: fmt.Sprintf("passage %d: %v", i, err)}
		}
		ps = append(ps, p)
	}
	r.Question, r.Slice, r.Note, r.Unanswerable = e.Question, strings.TrimSpace(e.Slice), e.Note, e.Unanswerable
	r.SetPassages(ps)
	if err := st.recheck(); err != nil {
		undo()
		if rerr := st.recheck(); rerr != nil {
			return rowView{}, rerr
		}
		return rowView{}, &editError{msg: err.Error()}
	}
	if probs := st.introduced(r, old, e.Passages); len(probs) > 0 {
		pv := make([]problemView, len(probs))
		for i, p := range probs {
			pv[i] = st.problem(r.ID, p)
		}
		undo()
		if err := st.recheck(); err != nil {
			return rowView{}, err
		}
		return rowView{}, &editError{msg: fmt.Sprintf("query %q: not changed: the labels check refuses the row as edited (%s)", e.ID, pv[0].Message), problems: pv}
	}
	st.dirty++
	return st.view(r), nil
}

// introduced lists the problems of row r (just checked) that its edit
// brought: every one but those of a passage kept from the row (old, edits
// naming them by Orig) that had that problem already (a stale label left
// as it was may stay while the rest of its row is edited).
func (st *state) introduced(r *labels.Row, old []labels.Passage, edits []passageEdit) []spans.Problem {
	var out []spans.Problem
	ps := r.Passages()
	for _, p := range st.problemsOf(r.Line) {
		kept := false
		for i, q := range ps {
			if q.Field == p.Field && i < len(edits) && edits[i].Orig != nil && old[*edits[i].Orig].Problem != nil {
				kept = true
			}
		}
		if !kept {
			out = append(out, p)
		}
	}
	return out
}

// judge adds a judgement of the passage [start, end) of doc to query id
// (a pooled passage: grade ≥ 1 relevant, 0 not relevant).
func (st *state) judge(id, doc string, start, end, grade int) (rowView, error) {
	r, ok := st.file.Row(id)
	if !ok {
		return rowView{}, &editError{msg: fmt.Sprintf("no query %q in %s", id, st.file.Path)}
	}
	e := rowEdit{ID: id, Question: r.Question, Slice: r.Slice, Note: r.Note, Unanswerable: r.Unanswerable && grade == 0}
	for i, p := range r.Passages() {
		e.Passages = append(e.Passages, passageEdit{Orig: &i, Grade: p.Grade, Group: p.Group})
	}
	e.Passages = append(e.Passages, passageEdit{Doc: doc, Start: start, End: end, Grade: grade})
	return st.edit(e)
}

// deleteRow removes query id.
func (st *state) deleteRow(id string) error {
	if st.readOnly {
		return errReadOnly
	}
	if !st.file.DeleteRow(id) {
		return &editError{msg: fmt.Sprintf("no query %q in %s", id, st.file.Path)}
	}
	st.dirty++
	return st.recheck()
}

// repair applies the sure repair of the problem of query id's field
// exactly as bench labels check --fix writes it: labels.Fix is given the
// check of the file as it is now holding that problem alone, and the line
// it writes replaces the row.
func (st *state) repair(id, field string) (rowView, error) {
	if st.readOnly {
		return rowView{}, errReadOnly
	}
	r, ok := st.file.Row(id)
	if !ok {
		return rowView{}, &editError{msg: fmt.Sprintf("no query %q in %s", id, st.file.Path)}
	}
	var p *spans.Problem
	for _, q := range st.problemsOf(r.Line) {
		if q.Field == field && q.Repair != nil {
			p = &q
			break
		}
	}
	if p == nil {
		return rowView{}, &editError{msg: fmt.Sprintf("query %q: %s has no sure repair", id, field)}
	}
	one := *st.checked.Report
	one.Problems = []spans.Problem{*p}
	out := filepath.Join(filepath.Dir(one.Path), "fixed-"+filepath.Base(one.Path))
	if _, err := labels.Fix(&one, st.docs, out, st.opt); err != nil {
		return rowView{}, err
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return rowView{}, err
	}
	lines := bytes.SplitAfter(bytes.TrimPrefix(data, []byte("\ufeff")), []byte("\n"))
	if p.Line > len(lines) {
		return rowView{}, fmt.Errorf("the repaired file has no line %d (a bug)", p.Line)
	}
	line := bytes.TrimRight(lines[p.Line-1], "\r\n")
	if err := st.file.ReplaceLine(p.Line, line); err != nil {
		return rowView{}, err
	}
	st.dirty++
	if err := st.recheck(); err != nil {
		return rowView{}, err
	}
	return st.view(r), nil
}

// saveResult is what a save wrote.
type saveResult struct {
	Path     string        `json:"path"`
	Conflict string        `json:"conflict,omitempty"`
	Rows     int           `json:"rows"`
	Recorded bool          `json:"recorded"`
	Problems []problemView `json:"problems"`
}

// save writes the labels file: atomically (a pending file beside it,
// fsynced, renamed over it: the previous file stays whole until the new
// one is) — or, when the file changed on disk since the session read or
// last wrote it, to ConflictPath instead (Conflict says so) —, after checking that no passage added since the last save has a
// problem (edits are checked as they are made: this is the last guard);
// then the anchor record when the whole file checks clean.
func (st *state) save() (saveResult, error) {
	if st.readOnly {
		return saveResult{}, errReadOnly
	}
	if err := st.recheck(); err != nil {
		return saveResult{}, err
	}
	var bad []problemView
	for _, r := range st.file.Rows() {
		for _, p := range r.Passages() {
			if p.New() && p.Problem != nil {
				bad = append(bad, st.problem(r.ID, *p.Problem))
			}
		}
	}
	if len(bad) > 0 {
		return saveResult{}, &editError{msg: "not saved: passages added in this session do not check", problems: bad}
	}
	data, err := st.file.Bytes()
	if err != nil {
		return saveResult{}, &editError{msg: err.Error()}
	}
	res := saveResult{Path: st.file.Path, Rows: len(st.file.Rows()), Problems: []problemView{}}
	if _, err := os.Stat(st.file.Path); errors.Is(err, os.ErrNotExist) && len(data) == 0 {
		return res, nil // nothing to write yet
	}
	now, err := diskSum(st.file.Path)
	if err != nil {
		return saveResult{}, err
	}
	if now != st.onDisk { // written by another program since: keep both
		res.Path = ConflictPath(st.file.Path)
		res.Conflict = fmt.Sprintf("%s changed on disk since this session read it (another program wrote it): not overwritten; this session's labels are written to %s to compare and merge by hand", st.file.Path, res.Path)
		return res, fileutil.WriteAtomic(res.Path, data)
	}
	err = fileutil.WriteStream(st.file.Path, func(w io.Writer) error {
		half := len(data) / 2
		if _, err := w.Write(data[:half]); err != nil {
			return err
		}
		if testHookSave != nil {
			testHookSave()
		}
		_, err := w.Write(data[half:])
		return err
	})
	if err != nil {
		return saveResult{}, err
	}
	if err := st.file.Saved(); err != nil {
		return saveResult{}, err
	}
	st.onDisk = sha256.Sum256(data)
	st.dirty = 0
	if err := st.recheck(); err != nil {
		return saveResult{}, err
	}
	res.Problems = st.stale()
	if st.checked.Spans != nil && len(st.checked.Problems) == 0 {
		if err := spans.WriteAnchorRecord(st.file.Path, spans.NewAnchorRecord(data, st.checked.Spans, st.docs)); err != nil {
			return saveResult{}, err
		}
		res.Recorded = true
	}
	return res, nil
}

// pool is the pool of unjudged passages of the last run against the labels
// as they are now (labels.Pool at depth).
func (st *state) pool(depth int) ([]labels.PoolItem, error) {
	if st.runs == nil || st.checked.Spans == nil {
		return []labels.PoolItem{}, nil
	}
	return labels.Pool(st.checked.Spans.Queries, st.docs, st.runs, depth)
}

// rows lists the rows of list name: all, unlabelled (and not marked
// unanswerable), or stale.
func (st *state) rows(name string) []rowItem {
	out := []rowItem{}
	for _, r := range st.file.Rows() {
		it := st.item(r)
		if name == "all" || name == it.Status {
			out = append(out, it)
		}
	}
	return out
}

// slices lists the slices in use, sorted.
func (st *state) slices() []string {
	var out []string
	for _, r := range st.file.Rows() {
		if r.Slice != "" && !slices.Contains(out, r.Slice) {
			out = append(out, r.Slice)
		}
	}
	slices.Sort(out)
	return out
}
