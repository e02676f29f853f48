package testenv

// LineDiff is one line where two texts differ: its number (from 1) and
// the line of each ("" past the end of the shorter text).
type LineDiff struct {
	Line      int
	Want, Got string
}

// DiffLines compares want and got line by line, to the end of the longer,
// and returns the lines that differ in order (none: the same lines). The
// golden-file, progress-output and trec_eval conformance tests share it,
// each with its own message.
func DiffLines(want, got []string) []LineDiff {
	var out []LineDiff
	for i := 0; i < max(len(want), len(got)); i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			out = append(out, LineDiff{Line: i + 1, Want: w, Got: g})
		}
	}
	return out
}
