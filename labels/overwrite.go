package labels

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"github.com/ragbench/ragbench/spans"
)

// ReplaceFile is the rule for a labels command about to write over an
// existing file at path (bench labels pool --output, bench labels convert
// --output, its own input included): a review file holding grades a
// reviewer set that are not yet in the labels at labelsPath, read as
// labels (a line of WritePool's format with a query whose "grade" is not
// null and whose passage that query does not judge, gold or grade 0, at
// the same offsets; with no labels, every grade)
// is refused, the error naming how many, unless force; otherwise, and with
// force, the current bytes are kept first as path.bak (path.bak.1, … when
// taken), whose name it returns. A path that does not exist, or is not a
// regular file (/dev/stdout), returns "".
func ReplaceFile(path string, force bool, labelsPath string, labels []spans.Query) (backupPath string, err error) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return "", nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if n := unmergedGrades(data, labels); n > 0 && !force {
		what := fmt.Sprintf("%d grade", n)
		if n > 1 {
			what += "s"
		}
		what += " a reviewer set"
		if labelsPath != "" {
			what += ", not yet merged into " + labelsPath + ","
		}
		return "", fmt.Errorf("%s holds %s: writing it again would lose them; merge them first ('bench labels merge --review %s …'), write elsewhere (--output), or give --force to overwrite it (a copy is kept as %s.bak)",
			path, what, path, path)
	}
	return backup(path, data)
}

// unmergedGrades counts the grades set in data read as a review file: the
// queries of its review items whose grade is not null and whose passage
// labels (nil: none) do not judge for that query. Lines of any other shape
// count nothing.
func unmergedGrades(data []byte, labels []spans.Query) int {
	type key struct {
		qid, doc   string
		start, end int
	}
	judged := map[key]bool{}
	for _, q := range labels {
		for _, sp := range append(slices.Clip(q.Gold), q.NonRelevant...) {
			judged[key{q.ID, sp.Doc, sp.Start, sp.End}] = true
		}
	}
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 256<<20)
	for sc.Scan() {
		var it PoolItem
		if json.Unmarshal(bytes.TrimPrefix(sc.Bytes(), []byte("\ufeff")), &it) != nil {
			continue
		}
		for _, q := range it.Queries {
			if q.Grade == nil {
				continue
			}
			if !judged[key{q.ID, it.Doc, it.Start, it.End}] {
				n++
			}
		}
	}
	return n
}
