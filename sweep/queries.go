package sweep

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/ragbench/ragbench/eval"
)

// scanLines calls fn for each line of a file (BOM and CR stripped).
func scanLines(path string, fn func(n int, line string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r")
		if n == 1 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		if err := fn(n, line); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// loadBEIRQueries reads a BEIR queries.jsonl: query id → text.
func loadBEIRQueries(path string) (map[string]string, error) {
	out := map[string]string{}
	err := scanLines(path, func(n int, line string) error {
		var q struct {
			ID   string `json:"_id"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			return fmt.Errorf("%s:%d: %v", path, n, err)
		}
		if q.ID == "" {
			return fmt.Errorf("%s:%d: _id: missing", path, n)
		}
		out[q.ID] = q.Text
		return nil
	})
	return out, err
}

// sortResults puts results in trec_eval's order (score descending, ties by
// doc id descending), so run files, truncation at k and evaluation agree.
func sortResults(l []eval.Result) { eval.Sort(l, eval.TieDocIDDesc) }
