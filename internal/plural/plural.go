// Package plural is the one owner of a count and its noun in ragbench's
// messages: "1 cell", "2 cells", "0 queries". Every command and report
// that writes a count in words goes through it, so none says "1 cells".
package plural

import "strconv"

// Count is n, a space and the noun for n: one when n is 1, else many
// ("1 cell", "0 cells", "3 queries").
func Count(n int, one, many string) string {
	return strconv.Itoa(n) + " " + Word(n, one, many)
}

// Word is one when n is 1, else many: the noun or verb of a count written
// elsewhere ("is"/"are", "query has"/"queries have").
func Word(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
