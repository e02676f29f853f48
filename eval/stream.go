package eval

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
)

// errNotContiguous reports a TREC run whose lines for one query are not
// contiguous; EvaluateRunFile then reads the whole run into memory instead.
var errNotContiguous = errors.New("eval: run queries not contiguous")

// EvaluateRunFile is Evaluate on the run stored at path (read as ReadRun
// does), giving the same numbers, but for a TREC run whose lines are grouped
// by query (as every retrieval system writes them, in any query order) it
// never holds the whole run in memory: the file is parsed and evaluated in
// chunks by opts.Workers goroutines and only per-query values are kept. Runs
// whose queries are interleaved, and ranx JSON runs, are read into memory and
// passed to Evaluate. Errors are those of ReadRun and Evaluate.
func EvaluateRunFile(qrels Qrels, path string, measures []Measure, opts Options) (*Evaluation, RunInfo, error) {
	if len(measures) == 0 {
		return nil, RunInfo{}, fmt.Errorf("no measure given")
	}
	rc, err := openMaybeGzip(path)
	if err != nil {
		return nil, RunInfo{}, err
	}
	br := bufio.NewReaderSize(rc, 1<<16)
	if startsWithBrace(br) {
		rc.Close()
		return evaluateInMemory(qrels, path, measures, opts)
	}
	e, info, err := streamTREC(qrels, br, path, measures, opts)
	rc.Close()
	if gerr := gzipErr(rc); gerr != nil {
		return nil, RunInfo{}, gerr
	}
	if errors.Is(err, errNotContiguous) {
		return evaluateInMemory(qrels, path, measures, opts)
	}
	return e, info, err
}

func evaluateInMemory(qrels Qrels, path string, measures []Measure, opts Options) (*Evaluation, RunInfo, error) {
	run, info, err := ReadRunInfo(path)
	if err != nil {
		return nil, info, err
	}
	return evaluateParsed(qrels, run, info, measures, opts)
}

// EvaluateReader is EvaluateRunFile on a run read from r (a pipe such as
// stdin: trec_eval's results file "-"), held in memory: a TREC or ranx
// JSON run as ParseRun reads it (not gzip); name is used in error
// messages. The numbers, notes and errors are EvaluateRunFile's.
func EvaluateReader(qrels Qrels, r io.Reader, name string, measures []Measure, opts Options) (*Evaluation, RunInfo, error) {
	if len(measures) == 0 {
		return nil, RunInfo{}, fmt.Errorf("no measure given")
	}
	br := bufio.NewReader(r)
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		return nil, RunInfo{}, &SyntaxError{File: name, Msg: "gzip data: a run read from a pipe is not decompressed; decompress it first (zcat run.gz | ...) or give the file's path"}
	}
	run, info, err := ParseRun(br, name)
	if err != nil {
		return nil, info, err
	}
	return evaluateParsed(qrels, run, info, measures, opts)
}

// evaluateParsed evaluates a run read whole, with its tag (runid) and the
// notes on its file.
func evaluateParsed(qrels Qrels, run Run, info RunInfo, measures []Measure, opts Options) (*Evaluation, RunInfo, error) {
	if opts.RunTag == "" {
		opts.RunTag = info.Tag
	}
	e, err := Evaluate(qrels, run, measures, opts)
	if e != nil {
		e.RunNotes = info.Warnings()
	}
	return e, info, err
}

// firstTag returns the tag (6th field) of the first line of data with at
// least 6 fields, or nil.
func firstTag(data []byte) []byte {
	var sp [6]span
	for len(data) > 0 {
		ln := data
		if nl := bytes.IndexByte(data, '\n'); nl >= 0 {
			ln, data = data[:nl], data[nl+1:]
		} else {
			data = nil
		}
		ln = bytes.TrimSuffix(ln, []byte("\r"))
		if splitFields(ln, sp[:]) >= 6 && !isRunComment(ln) {
			return bytes.Clone(ln[sp[5].start:sp[5].end])
		}
	}
	return nil
}

// record is one parsed run line. It holds no pointer (the doc id is the
// byte range start:end of its block's data), so that the garbage collector
// never scans the millions of records of a large run.
type record struct {
	start, end int32
	line       int64 // line number: chunk-local in a worker, absolute once joined
	score      float64
}

// block is the contiguous lines of one query within a chunk.
type block struct {
	qid  []byte
	recs []record
	data []byte // the bytes the records' doc ranges refer to
}

// chunkOut is what a worker returns for one chunk.
type chunkOut struct {
	seq          int
	first, last  *block     // boundary blocks (first == last when only one)
	interior     []queryRow // blocks wholly inside the chunk, evaluated
	interiorQ    [][]byte   // their query ids, in file order
	notInQrels   [][]byte   // interior query ids without judgements
	lines        int
	results      int
	tag          []byte
	otherTags    int    // result lines whose tag differs from the run's first
	otherTag     string // the first such tag
	otherTagLine int    // its chunk-local line
	lastResult   int    // chunk-local line of the last result line
	err          error  // with a chunk-local line number in errLine
	errLine      int
	errField     string
	data         []byte   // the chunk, recycled once the collector is done with it
	slab         []record // the chunk's records, recycled likewise
}

// Pools of chunk buffers and record slabs: a 100-million-line run passes
// through a few of each instead of allocating gigabytes.
var (
	bufPool  sync.Pool // *[]byte
	slabPool sync.Pool // *[]record
)

func getBuf(n int) []byte {
	if p, ok := bufPool.Get().(*[]byte); ok && cap(*p) >= n {
		return (*p)[:0]
	}
	return make([]byte, 0, max(n, chunkSize+chunkSize/8))
}

func putBuf(b []byte) {
	if cap(b) > 0 {
		bufPool.Put(&b)
	}
}

func getSlab(n int) []record {
	if p, ok := slabPool.Get().(*[]record); ok && cap(*p) >= n {
		return (*p)[:0]
	}
	return make([]record, 0, n+n/8)
}

func putSlab(s []record) {
	if cap(s) > 0 {
		slabPool.Put(&s)
	}
}

// streamer holds the shared, read-only state of one streaming evaluation.
type streamer struct {
	qrels    Qrels
	measures []Measure
	opts     Options
	relLen   int
	name     string
	seed     maphash.Seed
}

// evaluator is a worker's scratch space.
type evaluator struct {
	s     *streamer
	r     ranking
	recs  []record
	table []int32
}

// chunkSize is the size of the pieces a run file is read in (a variable so that
// tests can exercise queries straddling many chunks).
var chunkSize = 4 << 20

func streamTREC(qrels Qrels, r io.Reader, name string, measures []Measure, opts Options) (*Evaluation, RunInfo, error) {
	if err := opts.check(); err != nil {
		return nil, RunInfo{}, err
	}
	if err := checkGrades(qrels, measures); err != nil {
		return nil, RunInfo{}, err
	}
	st := &streamer{qrels: qrels, measures: measures, opts: opts, relLen: relStringLength(measures), name: name, seed: maphash.MakeSeed()}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	rd := &chunkReader{r: r, name: name, in: make(chan chunkIn, workers), stop: make(chan struct{}), done: make(chan error, 1)}
	go rd.run()
	out := make(chan chunkOut, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ev := &evaluator{s: st}
			for c := range rd.in {
				out <- ev.chunk(c.seq, c.data, c.tag)
			}
		}()
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	col := &collector{qrels: qrels, name: name, stop: rd.stop, pending: map[int]chunkOut{}, info: RunInfo{Format: "trec"},
		seen: map[string]bool{}, ev: &evaluator{s: st}}
	for c := range out {
		col.add(c)
	}
	if col.failure == nil {
		col.closeOpen()
	}
	if err := <-rd.done; err != nil && col.failure == nil {
		col.failure = err
	}
	col.info.NoFinalNewline = rd.readBytes > 0 && rd.lastByte != '\n'
	if col.failure != nil {
		return nil, col.info, col.failure
	}
	return col.finish(st, measures, opts)
}

// chunkIn is one chunk of whole lines handed to the workers.
type chunkIn struct {
	seq  int
	data []byte
	tag  []byte // the run tag of the file's first result line (nil until met)
}

// chunkReader reads a run file in chunks of whole lines (chunkSize bytes,
// more for a longer line) into in, in file order, and sends its outcome on
// done: nil at the end of the file or when stop is closed, else a read
// error.
type chunkReader struct {
	r    io.Reader
	name string
	in   chan chunkIn
	stop chan struct{}
	done chan error
	// Written before the outcome is sent on done: whether the file's last
	// byte is a line feed, and how many bytes were read.
	lastByte  byte
	readBytes int64
}

// run is the reader goroutine.
func (rd *chunkReader) run() {
	defer close(rd.in)
	var carry, tag []byte
	seq := 0
	first := true
	for {
		buf := getBuf(chunkSize + len(carry))[:len(carry)]
		copy(buf, carry)
		n, err := io.ReadFull(rd.r, buf[len(carry):cap(buf)])
		buf = buf[:len(carry)+n]
		if n > 0 { // before the BOM is trimmed: buf may hold nothing else
			rd.lastByte = buf[len(buf)-1]
			rd.readBytes += int64(n)
		}
		if first {
			buf = bytes.TrimPrefix(buf, []byte("\xef\xbb\xbf"))
			first = false
		}
		eof := err == io.EOF || err == io.ErrUnexpectedEOF
		if err != nil && !eof {
			rd.done <- &SyntaxError{File: rd.name, Msg: err.Error()}
			return
		}
		if !eof {
			cut := bytes.LastIndexByte(buf, '\n')
			if cut < 0 { // a line longer than the chunk: grow
				carry = buf
				continue
			}
			carry = append([]byte(nil), buf[cut+1:]...)
			buf = buf[:cut+1]
		} else {
			carry = nil
		}
		if len(buf) > 0 {
			if tag == nil {
				tag = firstTag(buf)
			}
			select {
			case rd.in <- chunkIn{seq, buf, tag}:
			case <-rd.stop:
				rd.done <- nil
				return
			}
			seq++
		}
		if eof {
			rd.done <- nil
			return
		}
	}
}

// collector takes the workers' chunks in file order, joining the blocks
// that straddle chunk boundaries, and gathers the query rows and the run's
// facts (RunInfo).
type collector struct {
	qrels      Qrels
	name       string
	stop       chan struct{} // closed on the first failure: the reader stops
	pending    map[int]chunkOut
	next       int
	lineBase   int
	info       RunInfo
	rows       []queryRow
	seen       map[string]bool
	notInQrels []string
	open       *block // the query being continued across chunks
	ev         *evaluator
	failure    error
	gotTag     bool
}

// fail records the first failure and stops the reader.
func (c *collector) fail(err error) {
	if c.failure == nil {
		c.failure = err
		close(c.stop)
	}
}

// addQuery marks qid seen; a query met twice (not contiguous) fails.
func (c *collector) addQuery(qid string) bool {
	if c.seen[qid] {
		c.fail(errNotContiguous)
		return false
	}
	c.seen[qid] = true
	return true
}

// closeOpen evaluates the open block's query (or notes it not in the
// qrels) and closes it.
func (c *collector) closeOpen() {
	if c.open == nil || c.failure != nil {
		return
	}
	qid := string(c.open.qid)
	if c.addQuery(qid) {
		if judg, ok := c.qrels[qid]; ok {
			row, line, err := c.ev.evaluate(qid, judg, c.open.recs, c.open.data)
			if err != nil {
				c.fail(&SyntaxError{File: c.name, Line: line, Field: "doc id", Msg: err.Error()})
			}
			c.rows = append(c.rows, row)
		} else {
			c.notInQrels = append(c.notInQrels, qid)
		}
	}
	c.open = nil
}

// add takes one worker's chunk and processes every chunk now next in file
// order (draining without work after a failure).
func (c *collector) add(ch chunkOut) {
	if c.failure != nil {
		return // drain
	}
	c.pending[ch.seq] = ch
	for c.failure == nil {
		ch, ok := c.pending[c.next]
		if !ok {
			return
		}
		delete(c.pending, c.next)
		c.next++
		if ch.err != nil {
			c.fail(&SyntaxError{File: c.name, Line: c.lineBase + ch.errLine, Field: ch.errField, Msg: ch.err.Error()})
			return
		}
		c.note(ch)
		if ch.first != nil && !c.join(ch) {
			return
		}
		c.lineBase += ch.lines
		// Nothing refers to the chunk's bytes or records any more: the open
		// block and the query ids have been copied.
		putBuf(ch.data)
		putSlab(ch.slab)
	}
}

// note adds a chunk's tag, result and line counts to the run's facts.
func (c *collector) note(ch chunkOut) {
	if !c.gotTag && ch.tag != nil {
		c.info.Tag, c.gotTag = string(ch.tag), true
	}
	c.info.Results += ch.results
	if ch.otherTags > 0 && c.info.OtherTags == 0 {
		c.info.OtherTagLine, c.info.OtherTag = c.lineBase+ch.otherTagLine, ch.otherTag
	}
	c.info.OtherTags += ch.otherTags
	if ch.lastResult > 0 {
		c.info.LastLine = c.lineBase + ch.lastResult
	}
}

// join continues the open block with the chunk's first block (or closes
// it and opens the first), takes the chunk's interior rows, and opens its
// last block. It reports false after a failure.
func (c *collector) join(ch chunkOut) bool {
	if c.open != nil && bytes.Equal(c.open.qid, ch.first.qid) {
		c.open.appendShifted(ch.first, c.lineBase)
	} else {
		c.closeOpen()
		c.open = &block{qid: bytes.Clone(ch.first.qid)}
		c.open.appendShifted(ch.first, c.lineBase)
	}
	if len(c.open.data) > math.MaxInt32 {
		c.fail(&SyntaxError{File: c.name, Msg: fmt.Sprintf("query %q: more than 2 GiB of doc ids", c.open.qid)})
		return false
	}
	if ch.last != ch.first {
		c.closeOpen()
		for _, q := range ch.interiorQ {
			c.addQuery(string(q))
		}
		for _, q := range ch.notInQrels {
			c.notInQrels = append(c.notInQrels, string(q))
		}
		c.rows = append(c.rows, ch.interior...)
		c.open = &block{qid: bytes.Clone(ch.last.qid)}
		c.open.appendShifted(ch.last, c.lineBase)
	}
	return true
}

// finish builds the Evaluation from the collected rows: the qrels queries
// missing from the run (scored under CompleteQueries), the queries not in
// the qrels, the means.
func (c *collector) finish(st *streamer, measures []Measure, opts Options) (*Evaluation, RunInfo, error) {
	info := c.info
	if info.Results == 0 {
		return nil, info, &SyntaxError{File: c.name, Msg: "no results found (empty run file)"}
	}
	e := &Evaluation{Measures: measures, Options: opts}
	rows := c.rows
	for q := range c.qrels {
		if !c.seen[q] {
			e.NotInRun = append(e.NotInRun, q)
			if !answerable(c.qrels[q]) {
				e.NotInRunUnanswerable = append(e.NotInRunUnanswerable, q)
			}
			if opts.CompleteQueries {
				row, _, _ := c.ev.evaluate(q, c.qrels[q], nil, nil)
				rows = append(rows, row)
			}
		}
	}
	sort.Strings(e.NotInRun)
	sort.Strings(e.NotInRunUnanswerable)
	sort.Strings(c.notInQrels)
	e.NotInQrels = c.notInQrels
	if len(c.notInQrels) > 0 && len(c.notInQrels) == len(c.seen) {
		return nil, info, &SyntaxError{File: c.name, Msg: noCommonQuery(c.notInQrels, e.NotInRun).Error()}
	}
	if len(rows) == 0 {
		return nil, info, fmt.Errorf("no query has both qrels and results (run queries not in qrels: %d)", len(c.notInQrels))
	}
	slices.SortFunc(rows, func(a, b queryRow) int { return strings.Compare(a.qid, b.qid) })
	e.finish(rows, st.relLen > 0)
	if e.Options.RunTag == "" {
		e.Options.RunTag = info.Tag
	}
	e.RunNotes = info.Warnings()
	return e, info, nil
}

// chunk parses one chunk of whole lines into blocks, evaluating the blocks
// that lie wholly inside it.
func (ev *evaluator) chunk(seq int, data []byte, runTag []byte) chunkOut {
	out := chunkOut{seq: seq, data: data}
	var sp [6]span
	var blocks []*block
	var cur *block
	line := 0
	// One slab of records for the chunk; each block is a sub-slice of it.
	slab := getSlab(bytes.Count(data, []byte{'\n'}) + 1)
	start := 0
	whole := data // records index into it: offset = cap(whole) − cap(line) + field start
	for len(data) > 0 {
		nl := bytes.IndexByte(data, '\n')
		var ln []byte
		if nl < 0 {
			ln, data = data, nil
		} else {
			ln, data = data[:nl], data[nl+1:]
		}
		line++
		if len(ln) > 0 && ln[len(ln)-1] == '\r' {
			ln = ln[:len(ln)-1]
		}
		nf := splitFields(ln, sp[:])
		if nf == 0 || isRunComment(ln) {
			continue
		}
		sc, field, err := runLineScore(ln, sp[:], nf)
		if err != nil {
			out.err, out.errLine, out.errField = err, line, field
			return out
		}
		tag := ln[sp[5].start:sp[5].end]
		if out.tag == nil {
			out.tag = bytes.Clone(tag)
		}
		if runTag != nil && !bytes.Equal(tag, runTag) {
			if out.otherTags == 0 {
				out.otherTag, out.otherTagLine = string(tag), line
			}
			out.otherTags++
		}
		out.lastResult = line
		qid := ln[sp[0].start:sp[0].end]
		if cur == nil || !bytes.Equal(cur.qid, qid) {
			if cur != nil {
				cur.recs = slab[start:len(slab):len(slab)]
			}
			start = len(slab)
			cur = &block{qid: qid, data: whole}
			blocks = append(blocks, cur)
		}
		off := cap(whole) - cap(ln)
		slab = append(slab, record{start: int32(off + sp[2].start), end: int32(off + sp[2].end), score: sc, line: int64(line)})
		out.results++
	}
	if cur != nil {
		cur.recs = slab[start:len(slab):len(slab)]
	}
	out.slab = slab
	out.lines = line
	if len(blocks) == 0 {
		return out
	}
	out.first, out.last = blocks[0], blocks[len(blocks)-1]
	if len(blocks) > 2 {
		ev.interior(&out, blocks[1:len(blocks)-1])
	}
	return out
}

// runLineScore checks that a run line split into nf fields (sp) has the 6
// of a TREC run line and a finite score, and returns the score; otherwise
// the error and its field ("line" or "score").
func runLineScore(ln []byte, sp []span, nf int) (float64, string, error) {
	if nf < 6 {
		return 0, "line", fmt.Errorf("TREC run line needs 6 fields (qid Q0 docid rank score tag), got %d%s", nf, qrelsLineHint(ln, nf))
	}
	score := ln[sp[4].start:sp[4].end]
	sc, err := parseScore(score)
	if err != nil {
		return 0, "score", fmt.Errorf("not a number: %q", string(score))
	}
	if math.IsNaN(sc) || math.IsInf(sc, 0) {
		return 0, "score", fmt.Errorf("not finite: %q", string(score))
	}
	return sc, "", nil
}

// interior evaluates the blocks wholly inside a chunk into out (the
// queries without judgements noted apart); the first failure is out's
// error.
func (ev *evaluator) interior(out *chunkOut, blocks []*block) {
	for _, b := range blocks {
		out.interiorQ = append(out.interiorQ, b.qid)
		judg, ok := ev.s.qrels[string(b.qid)]
		if !ok {
			out.notInQrels = append(out.notInQrels, b.qid)
			continue
		}
		row, errLine, err := ev.evaluate(string(b.qid), judg, b.recs, b.data)
		if err != nil {
			out.err, out.errLine, out.errField = err, errLine, "doc id"
			return
		}
		out.interior = append(out.interior, row)
	}
}

// evaluate scores one query's records (in file order) as Evaluate does. It
// reports a doc retrieved twice as an error, with the line of its second
// occurrence.
func (ev *evaluator) evaluate(qid string, judg map[string]int, recs []record, data []byte) (queryRow, int, error) {
	opts := ev.s.opts
	if line, err := ev.checkDuplicates(qid, recs, data); err != nil {
		return queryRow{}, line, err
	}
	sorted := ev.recs[:0]
	sorted = append(sorted, recs...)
	ev.recs = sorted
	sortRecords(sorted, data, opts.TieBreak)
	reordered := false
	if opts.TieBreak == TieDocIDDesc {
		// Lines grow in file order within a query: an inversion among equal
		// scores means the tie-break changed the file's order.
		for i := 1; i < len(sorted) && !reordered; i++ {
			reordered = sorted[i].score == sorted[i-1].score && sorted[i].line < sorted[i-1].line
		}
	}
	if opts.MaxResults > 0 && len(sorted) > opts.MaxResults {
		sorted = sorted[:opts.MaxResults]
	}
	r := &ev.r
	r.level = opts.RelevanceLevel
	r.grades = r.grades[:0]
	r.numRelRet = 0
	for _, x := range sorted {
		g, ok := judg[string(data[x.start:x.end])]
		g = gradeOf(g, ok)
		if opts.JudgedOnly && g < 0 {
			continue // trec_eval -J, as ranking.prepare
		}
		if r.isRel(g) {
			r.numRelRet++
		}
		r.grades = append(r.grades, g)
	}
	r.setJudged(judg, opts.RelevanceLevel)
	values := make([]float64, len(ev.s.measures))
	row := r.row(qid, ev.s.measures, values, ev.s.relLen)
	row.tieReordered = reordered
	return row, 0, nil
}

// appendShifted appends src's records to b, copying their doc ids into b's
// own data and moving their line numbers by base.
func (b *block) appendShifted(src *block, base int) {
	for _, x := range src.recs {
		doc := src.data[x.start:x.end]
		x.start = int32(len(b.data))
		b.data = append(b.data, doc...)
		x.end = int32(len(b.data))
		x.line += int64(base)
		b.recs = append(b.recs, x)
	}
}

// checkDuplicates finds a doc id given twice among recs with an
// open-addressing hash set (exact: hash matches are compared byte for byte).
func (ev *evaluator) checkDuplicates(qid string, recs []record, data []byte) (int, error) {
	size := 16
	for size < 2*len(recs) {
		size <<= 1
	}
	if cap(ev.table) < size {
		ev.table = make([]int32, size)
	}
	t := ev.table[:size]
	clear(t)
	mask := uint64(size - 1)
	for i, x := range recs {
		doc := data[x.start:x.end]
		h := maphash.Bytes(ev.s.seed, doc) & mask
		for {
			j := t[h]
			if j == 0 {
				t[h] = int32(i + 1)
				break
			}
			if prev := recs[j-1]; bytes.Equal(data[prev.start:prev.end], doc) {
				return int(x.line), fmt.Errorf("query %q retrieves doc %q twice (trec_eval rejects duplicate docs)", qid, doc)
			}
			h = (h + 1) & mask
		}
	}
	return 0, nil
}

// sortRecords orders records as Sort orders results, skipping the sort when
// they are already in order (the usual case for a run written rank by rank).
func sortRecords(recs []record, data []byte, tb TieBreak) {
	cmp := func(a, b record) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		if tb == TieInputOrder {
			return 0
		}
		return bytes.Compare(data[b.start:b.end], data[a.start:a.end])
	}
	if slices.IsSortedFunc(recs, cmp) {
		return
	}
	if tb == TieInputOrder {
		slices.SortStableFunc(recs, cmp)
		return
	}
	slices.SortFunc(recs, cmp)
}
