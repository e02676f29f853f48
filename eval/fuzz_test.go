package eval

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/internal/fuzzwatch"
)

// qrelsSeeds are one or more inputs of each qrels format: TREC, BEIR TSV,
// labelled JSONL (both shapes) and ranx JSON, with comments, BOM, CRLF.
var qrelsSeeds = []string{
	"q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n",
	"# comment\nq1 0 d1 1\r\n#x\n",
	"\xef\xbb\xbfq1 0 d1 -1\nq1 0 d2 100000\n",
	"query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t2\n",
	`{"id": "q1", "question": "why?", "gold": ["d1", "d2"], "kind": "multi-hop"}` + "\n" + `{"id": 7, "gold": []}` + "\n",
	`{"qid": "q1", "text": "t", "gold": {"d1": 2, "d2": 0}, "slice": "s"}`,
	`{"q1": {"d1": 2, "d2": 0}, "q2": {}}`,
	`{"q\u00e9": {"d\ud83d\ude00": 1}}`,
}

// FuzzParseQrels: ParseQrels never panics and takes bounded time; what it
// accepts, written back in TREC format (WriteQrelsTREC) and read again, is
// the same judgements (unanswerable queries, which TREC qrels cannot hold,
// apart); an id the writer cannot represent is its error, never a changed
// id.
func FuzzParseQrels(f *testing.F) {
	for _, s := range qrelsSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzwatch.Start(fuzzwatch.Bound)()
		q, meta, err := ParseQrels(bytes.NewReader(data), "qrels")
		if err != nil {
			if q != nil || meta != nil {
				t.Fatalf("error %v with a non-nil result", err)
			}
			return
		}
		if len(q) == 0 {
			t.Fatal("accepted qrels with no query")
		}
		var buf bytes.Buffer
		skipped, err := WriteQrelsTREC(&buf, q)
		if err != nil {
			return // an id TREC qrels cannot hold: refused by the writer
		}
		answerable := Qrels{}
		for qid, m := range q {
			if len(m) > 0 {
				answerable[qid] = m
			}
		}
		if skipped != len(q)-len(answerable) {
			t.Fatalf("skipped %d, want %d", skipped, len(q)-len(answerable))
		}
		if len(answerable) == 0 {
			return
		}
		back, _, err := ParseQrels(&buf, "written")
		if err != nil {
			t.Fatalf("written qrels not readable: %v\n%q", err, buf.String())
		}
		if !qrelsEqual(back, answerable) {
			t.Fatalf("round trip changed the qrels:\nread    %v\nwritten %q\nreread  %v", q, buf.String(), back)
		}
	})
}

func qrelsEqual(a, b Qrels) bool {
	if len(a) != len(b) {
		return false
	}
	for q, m := range a {
		n, ok := b[q]
		if !ok || len(m) != len(n) {
			return false
		}
		for d, g := range m {
			if h, ok := n[d]; !ok || h != g {
				return false
			}
		}
	}
	return true
}

// runSeeds are TREC and ranx JSON runs.
var runSeeds = []string{
	"q1 Q0 d1 1 2.5 bm25\nq1 Q0 d2 2 1 bm25\nq2 Q0 d3 1 -0.5 bm25\n",
	"# comment\n  #x\nq1 Q0 d1 1 1e-300 t extra\r\n\nq1 Q0 d2 2 1e300 t",
	"\xef\xbb\xbfq1 Q0 d1 1 0.1234567890123456789 t\nq2 Q0 d1 1 1 other\n",
	`{"q1": {"d1": 0.9, "d2": 0.1}, "q2": {}}`,
	`{"q_1": {}}`,
}

// FuzzParseRun: ParseRun never panics and takes bounded time; what it
// accepts, written back by WriteRunTREC and read again, holds the same
// scores for the same (query, doc) pairs (queries with no result, which a
// TREC run cannot hold, apart); and a TREC run evaluates to the same
// numbers through the streaming reader (EvaluateRunFile, in small chunks)
// as through ParseRun + Evaluate, or fails in both.
func FuzzParseRun(f *testing.F) {
	for _, s := range runSeeds {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	ms, err := ParseMeasures([]string{"map", "ndcg", "P.1,5", "recip_rank", "num_ret", "num_rel_ret"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzwatch.Start(fuzzwatch.Bound)()
		run, info, err := ParseRun(bytes.NewReader(data), "run")
		if err == nil {
			checkRunRoundTrip(t, run, info)
		}
		if bytes.HasPrefix(bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n"), []byte("{")) {
			return // JSON: the streaming reader reads TREC runs only
		}
		// The qrels judge every doc of the run, with grades from its
		// position, so that measures have something to count.
		qrels := Qrels{}
		for qid, res := range run {
			m := map[string]int{}
			for i, r := range res {
				m[r.DocID] = i % 3
			}
			qrels[qid] = m
		}
		if len(qrels) == 0 {
			qrels["q1"] = map[string]int{"d1": 1}
		}
		path := filepath.Join(dir, "run.trec")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		judgedOnly := TrecEvalOptions()
		judgedOnly.JudgedOnly, judgedOnly.MaxResults, judgedOnly.RelevanceLevel = true, 3, 0
		for _, opts := range []Options{TrecEvalOptions(), judgedOnly} {
			old := chunkSize
			chunkSize = 16
			es, _, serr := EvaluateRunFile(qrels, path, ms, opts)
			chunkSize = old
			em, merr := (*Evaluation)(nil), err
			if err == nil {
				em, _, merr = EvaluateReader(qrels, bytes.NewReader(data), "run", ms, opts)
			}
			if (serr == nil) != (merr == nil) {
				t.Fatalf("streaming error %v, in-memory error %v", serr, merr)
			}
			if serr == nil {
				for _, m := range ms {
					a, _ := es.Mean(m.Name)
					b, _ := em.Mean(m.Name)
					if a != b {
						t.Fatalf("%+v: %s: streamed %v, in memory %v", opts, m.Name, a, b)
					}
				}
			}
		}
	})
}

func checkRunRoundTrip(t *testing.T, run Run, info RunInfo) {
	t.Helper()
	if len(run) == 0 {
		t.Fatal("accepted a run with no query")
	}
	n := 0
	for _, res := range run {
		n += len(res)
	}
	if n != info.Results {
		t.Fatalf("info.Results %d, run holds %d", info.Results, n)
	}
	var buf bytes.Buffer
	if err := WriteRunTREC(&buf, run, "t"); err != nil {
		if !strings.Contains(err.Error(), "cannot be written") {
			t.Fatalf("writer: %v", err)
		}
		return
	}
	want := map[string]map[string]float64{}
	for qid, res := range run {
		if len(res) == 0 {
			continue
		}
		m := map[string]float64{}
		for _, r := range res {
			m[r.DocID] = r.Score
		}
		want[qid] = m
	}
	if len(want) == 0 {
		return
	}
	back, _, err := ParseRun(&buf, "written")
	if err != nil {
		t.Fatalf("written run not readable: %v\n%q", err, buf.String())
	}
	if len(back) != len(want) {
		t.Fatalf("round trip: %d queries, want %d", len(back), len(want))
	}
	for qid, res := range back {
		m := want[qid]
		if len(res) != len(m) {
			t.Fatalf("round trip: query %q has %d results, want %d", qid, len(res), len(m))
		}
		for _, r := range res {
			if s, ok := m[r.DocID]; !ok || s != r.Score {
				t.Fatalf("round trip: query %q doc %q score %v, want %v (present %v)", qid, r.DocID, r.Score, s, ok)
			}
		}
	}
}

// FuzzParseQueryTexts: reading any BEIR queries.jsonl never panics and
// takes bounded time; the queries it accepts, written back one
// {"_id": …, "text": …} object per line (encoding/json, sorted by id), read
// to the same id → text map: nothing rewritten, dropped or merged.
func FuzzParseQueryTexts(f *testing.F) {
	for _, s := range []string{
		`{"_id": "q1", "text": "why?"}` + "\n" + `{"_id": 7, "text": "how", "metadata": {}}` + "\n",
		"\xef\xbb\xbf{\"_id\": \"q\u00e9\", \"text\": \"t\"}\r\n\r\n",
		`{"_id": "q1", "text": "a"}` + "\n" + `{"_id": "q1", "text": "b"}`,
		`{"_id": "q1", "_id": "q2"}`,
		`{"_id": "\ud800"}`,
		"{\"_id\": \"q\xff\"}",
		`{"_id": 1e3, "text": 1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzwatch.Start(fuzzwatch.Bound)()
		got, err := parseQueryTexts(bytes.NewReader(data), "queries.jsonl")
		if err != nil {
			if got != nil {
				t.Fatalf("error %v with a non-nil result", err)
			}
			if !strings.Contains(err.Error(), "queries.jsonl:") {
				t.Fatalf("error %q names no file:line", err)
			}
			return
		}
		ids := make([]string, 0, len(got))
		for id := range got {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		var buf bytes.Buffer
		for _, id := range ids {
			b, err := json.Marshal(map[string]string{"_id": id, "text": got[id]})
			if err != nil {
				t.Fatal(err)
			}
			buf.Write(b)
			buf.WriteByte('\n')
		}
		again, err := parseQueryTexts(&buf, "again.jsonl")
		if err != nil {
			t.Fatalf("written back %q: %v", buf.String(), err)
		}
		if !maps.Equal(got, again) {
			t.Fatalf("read %q, written back and read again %q", got, again)
		}
	})
}
