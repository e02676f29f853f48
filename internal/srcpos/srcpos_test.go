package srcpos

import (
	"errors"
	"fmt"
	"testing"
)

// TestError: each part is omitted exactly when it is empty or 0, in the
// "file:line: field: message" form of benchfmt.SyntaxError and gcc.
func TestError(t *testing.T) {
	want := map[string]*Error{
		`qrels.txt:3: grade: want an integer, got "x"`: {File: "qrels.txt", Line: 3, Field: "grade", Msg: `want an integer, got "x"`},
		"qrels.txt:3: 4 fields, want 3":                {File: "qrels.txt", Line: 3, Msg: "4 fields, want 3"},
		"qrels.txt: grade: missing":                    {File: "qrels.txt", Field: "grade", Msg: "missing"},
		"qrels.txt: empty file":                        {File: "qrels.txt", Msg: "empty file"},
		"a.yaml: m":                                    {File: "a.yaml", Line: -1, Msg: "m"},
		": qid: empty":                                 {Field: "qid", Msg: "empty"},
	}
	for msg, e := range want {
		if got := e.Error(); got != msg {
			t.Errorf("%#v: %q, want %q", *e, got, msg)
		}
	}
}

// TestErrorsAs: a wrapped *Error is found by errors.As with its fields.
func TestErrorsAs(t *testing.T) {
	err := fmt.Errorf("load: %w", &Error{File: "f", Line: 2, Field: "id", Msg: "empty"})
	var pe *Error
	if !errors.As(err, &pe) || pe.Line != 2 || pe.Field != "id" {
		t.Fatalf("errors.As: %v %+v", err, pe)
	}
}
