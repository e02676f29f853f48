package eval

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestReadLabelRows: one pass reads every row, gold and gold_spans alike,
// and joins one error per bad row in file order.
func TestReadLabelRows(t *testing.T) {
	in := `{"id": "a", "question": "x", "gold_spans": [{"doc": "d", "text": "t", "prefix": "p"}, {"any_of": [{"doc": "d", "start": 1, "end": 2}, {"doc": "e", "start": 0, "end": 1, "unit": "bytes", "grade": 2}]}, {"doc": "d", "text": "n", "grade": 0}], "kind": "k"}
{"id": "b", "gold_spans": [{"doc": "d", "start": "4", "end": 9}]}
{"id": 7, "gold_spans": []}
{"id": "c", "gold": ["x"]}
`
	rows, err := ReadLabelRows(strings.NewReader(in), "l.jsonl", true)
	if len(rows) != 2 || rows[0].ID != "a" || rows[1].ID != "7" || rows[0].Meta.Slice != "k" || !rows[1].HasSpans {
		t.Fatalf("rows %+v", rows)
	}
	sp := rows[0].Spans
	if len(sp) != 4 || sp[0].Prefix != "p" || sp[1].Group != 1 || sp[2].Field != "gold_spans[1].any_of[1]" || sp[2].Unit != UnitBytes || sp[2].Grade != 2 || sp[3].Grade != 0 || sp[3].Item != 2 {
		t.Errorf("spans %+v", sp)
	}
	var errs interface{ Unwrap() []error }
	if !errors.As(err, &errs) || len(errs.Unwrap()) != 2 {
		t.Fatalf("err %v", err)
	}
	for i, want := range []string{
		`l.jsonl:2: gold_spans[0].start: query "b": must be an integer, got "4" (a JSON string: write the number without quotes)`,
		`l.jsonl:4: gold: query "c": a row with "gold" ids in a file of span labels: give every query as "gold_spans"`,
	} {
		if got := errs.Unwrap()[i].Error(); got != want {
			t.Errorf("error %d: %s\nwant %s", i, got, want)
		}
	}
	_, _, err = ParseQrels(strings.NewReader(`{"id": "a", "gold_spans": []}`), "q.jsonl")
	if err == nil || !strings.HasPrefix(err.Error(), `q.jsonl:1: gold: missing (use [] or {} for an unanswerable query); this row gives "gold_spans"`) {
		t.Errorf("span row read as qrels: %v", err)
	}
	_, _, err = ParseQrels(strings.NewReader(`{"id": "a", "gold": {"d": "2"}}`), "q.jsonl")
	if err == nil || err.Error() != `q.jsonl:1: gold: grade of doc "d" must be an integer, got "2" (a JSON string: write the number without quotes)` {
		t.Errorf("quoted grade: %v", err)
	}
}

// FuzzReadLabelRows: any input reads without panic; every row read has a
// non-empty id, no id twice, and passages whose fields hold the rules
// (grade ≥ 0, members of a group grade ≥ 1, a known unit, a field name);
// every error is a *SyntaxError with a line; ReadQrels (first error) reads
// a file of gold rows iff ReadLabelRows finds no bad row.
func FuzzReadLabelRows(f *testing.F) {
	f.Add(`{"id": "a", "gold_spans": [{"doc": "d", "text": "t"}, {"any_of": [{"doc": "d", "start": 1, "end": 2}, {"doc": "e", "text": "x"}]}]}`)
	f.Add(`{"qid": 1, "text": "q", "gold": {"d": 2, "e": 0}, "slice": "s"}` + "\n" + `{"id": "1", "gold": []}`)
	f.Add(`{"id": "a", "gold_spans": [{"doc": "d", "start": "4", "end": 9, "grade": "1"}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		for _, spans := range []bool{true, false} {
			rows, err := ReadLabelRows(strings.NewReader(in), "f.jsonl", spans)
			seen := map[string]bool{}
			for _, r := range rows {
				if r.ID == "" || seen[r.ID] || r.Line < 1 {
					t.Fatalf("row %+v", r)
				}
				seen[r.ID] = true
				for _, sp := range r.Spans {
					if sp.Grade < 0 || sp.Group > 0 && sp.Grade < 1 || sp.Unit != UnitCodePoints && sp.Unit != UnitBytes || sp.Field == "" || sp.Doc == "" {
						t.Fatalf("span %+v", sp)
					}
				}
			}
			if err != nil {
				list := []error{err}
				if j, ok := err.(interface{ Unwrap() []error }); ok {
					list = j.Unwrap()
				}
				for _, e := range list {
					var se *SyntaxError
					if !errors.As(e, &se) {
						t.Fatalf("not a SyntaxError: %v", e)
					}
				}
			}
			if !spans && strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(in, "\ufeff")), "{") && !isRanxQrels([]byte(in)) && checkJSONText([]byte(in), "f") == nil {
				if _, _, qerr := ParseQrels(strings.NewReader(in), "f.jsonl"); (qerr == nil) != (err == nil) {
					t.Fatalf("ParseQrels %v, ReadLabelRows %v", qerr, err)
				}
			}
		}
	})
}

// TestGoldSlots: lone passages keep their places and a group stands where
// its first member does, its members in order (worked by hand).
func TestGoldSlots(t *testing.T) {
	groups := []int{0, 2, 0, 1, 2, 1, 0}
	got := GoldSlots(len(groups), func(i int) int { return groups[i] })
	want := [][]int{{0}, {1, 4}, {2}, {3, 5}, {6}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("GoldSlots = %v, want %v", got, want)
	}
	if got := GoldSlots(0, func(int) int { return 0 }); got != nil {
		t.Errorf("GoldSlots(0) = %v, want nil", got)
	}
}
