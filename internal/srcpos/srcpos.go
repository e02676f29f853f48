// Package srcpos holds the one error type for bad input at a place in a
// file, shared by every ragbench reader (qrels and runs in eval, corpora in
// corpus, the history CSV, answers files in diagnose, the sweep config), so
// that each of them reports "file:line: field: message" the same way and a
// caller can find the position with errors.As, whichever reader failed. It
// follows golang.org/x/perf's benchfmt.SyntaxError, with the field (column,
// JSON key or config path) added.
package srcpos

import (
	"strconv"
	"strings"
)

// Error is bad input at a place in a file. File is the path (or the name
// given to a Parse function); Line is 1-based, 0 when the error concerns the
// whole file or the line is unknown; Field names the column, JSON key or
// config field at fault, "" when the whole line is; Msg says what is wrong
// (and, where it helps, what to do). Use it as a pointer (*Error): the
// readers return *Error and errors.As(err, new(*srcpos.Error)) finds it.
type Error struct {
	File  string
	Line  int
	Field string
	Msg   string
}

// Error returns "file:line: field: message", omitting ":line" when Line is
// 0 (or negative) and "field: " when Field is "". File is written as is,
// even when "" (the message then starts with ": ").
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}
