package report

import (
	"strconv"
	"strings"
)

// GroupDigits writes n with commas between groups of three digits
// (12345 → "12,345"): the one thousands format of bench run's outputs
// (report.md's chunk counts, the progress lines).
func GroupDigits(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
