package passages_test

import (
	"bytes"
	"testing"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/internal/fuzzwatch"
	"github.com/ragbench/ragbench/passages"
)

var fuzzDocs = []corpus.Document{
	{ID: "a", Text: "aaa one  two\u00a0three. Four five.\n\nsix seven ’quote’"},
	{ID: "b/c", Text: "one two three. eight nine. Four five."},
}

// FuzzParse reads arbitrary bytes as a passage run: never a panic or a
// hang; a run read has as many placings as results, each passage inside
// its document (or unmapped with its text's length), and converts for
// scoring with strictly decreasing scores.
func FuzzParse(f *testing.F) {
	for _, s := range handbookStyles {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"qid": 7, "results": [{"doc": "a", "start": 4, "end": 9, "unit": "bytes", "text": "one  ", "id": "x", "score": -1e308}, {"text": " five. ", "score": -1e308}]}`))
	f.Add([]byte("\ufeff{\"qid\": \"q\", \"results\": [{\"text\": \"aa\"}, {\"doc\": \"b/c\", \"text\": \"Four\\u00a0five.\"}]}\r\n"))
	loc := passages.NewLocator(fuzzDocs)
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzwatch.Start(fuzzwatch.Bound)()
		run, err := passages.Parse(bytes.NewReader(data), "fuzz", loc)
		if err != nil {
			return
		}
		n := 0
		for _, c := range run.Placed {
			n += c
		}
		if n != run.Results {
			t.Fatalf("%d placings for %d results", n, run.Results)
		}
		for _, q := range run.Queries {
			for _, p := range q.Passages {
				if p.Placing.Unmapped() {
					if p.Doc != "" || p.Length < 1 {
						t.Fatalf("unmapped passage %+v", p)
					}
					continue
				}
				d, ok := loc.Doc(p.Doc)
				if !ok || p.Start < 0 || p.End <= p.Start || p.End > d.Len() || p.Length != p.End-p.Start {
					t.Fatalf("passage %+v outside its document", p)
				}
			}
		}
		sc, err := run.Scored(fuzzDocs)
		if err != nil {
			return // scores too close to -MaxFloat64
		}
		for _, l := range sc.Run {
			for i := 1; i < len(l); i++ {
				if !(l[i].Score < l[i-1].Score) {
					t.Fatalf("scores not strictly decreasing: %v", l)
				}
			}
		}
	})
}

// FuzzParseChunkMap reads arbitrary bytes as a chunk map: never a panic or
// a hang, every chunk read has an id.
func FuzzParseChunkMap(f *testing.F) {
	f.Add([]byte(`{"id": "c1", "doc": "a", "start": 0, "end": 3}` + "\n" + `{"id": "c2", "text": "eight nine"}`))
	loc := passages.NewLocator(fuzzDocs)
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzwatch.Start(fuzzwatch.Bound)()
		cm, err := passages.ParseChunkMap(bytes.NewReader(data), "fuzz", loc)
		if err != nil {
			return
		}
		for id := range cm.Chunks {
			if id == "" {
				t.Fatal("chunk with an empty id")
			}
		}
	})
}

// FuzzAddAnswer reads arbitrary bytes as a service's answer: never a panic
// or a hang, never more than k results added.
func FuzzAddAnswer(f *testing.F) {
	f.Add([]byte(`{"qid": "q", "results": [{"doc": "a", "start": 0, "end": 3, "score": 1}]}`), 3)
	f.Add([]byte(`{"results": [{"text": "x"}, {"text": "y"}]}`), 1)
	loc := passages.NewLocator(fuzzDocs)
	f.Fuzz(func(t *testing.T, data []byte, k int) {
		defer fuzzwatch.Start(fuzzwatch.Bound)()
		run := passages.NewRun("svc")
		if err := run.AddAnswer("q", data, k, loc); err != nil {
			return
		}
		if q, _ := run.Query("q"); len(q.Passages) > max(k, 0) {
			t.Fatalf("%d results added, k = %d", len(q.Passages), k)
		}
	})
}
