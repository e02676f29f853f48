package srcpos

import (
	"errors"
	"fmt"
	"testing"
)

// TestError: each part is omitted exactly when it is empty or 0, in the
// "file:line: field: message" form of benchfmt.SyntaxError and gcc.
func TestError(t *testing.T) {
	for _, c := range []struct {
		e    Error
		want string
	}{
		{Error{File: "qrels.txt", Line: 3, Field: "grade", Msg: `want an integer, got "x"`}, `qrels.txt:3: grade: want an integer, got "x"`},
		{Error{File: "qrels.txt", Line: 3, Msg: "4 fields, want 3"}, "qrels.txt:3: 4 fields, want 3"},
		{Error{File: "qrels.txt", Field: "grade", Msg: "missing"}, "qrels.txt: grade: missing"},
		{Error{File: "qrels.txt", Msg: "empty file"}, "qrels.txt: empty file"},
		{Error{File: "a.yaml", Line: -1, Msg: "m"}, "a.yaml: m"},
		{Error{Field: "qid", Msg: "empty"}, ": qid: empty"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("%#v: %q, want %q", c.e, got, c.want)
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
