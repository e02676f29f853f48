package spans

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/ragbench/ragbench/corpus"
)

// Formats of span-label files (Detect).
const (
	FormatJSONL     = "jsonl"      // labelled-query JSONL with "gold_spans" (ParseJSONL)
	FormatChromaCSV = "chroma-csv" // Chroma's questions.csv (ParseChromaCSV)
)

// Detect says whether the file at path holds span labels, and in which
// format: FormatChromaCSV when its first line is a CSV header naming the
// columns question, references and corpus_id; FormatJSONL when its first
// non-blank line is a JSON object with a "gold_spans" key; "" otherwise
// (chunk-id or document labels, TREC or BEIR qrels: package eval reads
// those). Only the first line that decides is read. A file that cannot be
// read is an error.
func Detect(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<16), 64<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(bytes.TrimPrefix(sc.Bytes(), []byte("\ufeff")))
		if len(line) == 0 {
			continue
		}
		if line[0] == '{' {
			var obj map[string]json.RawMessage
			if json.Unmarshal(line, &obj) == nil {
				if _, ok := obj["gold_spans"]; ok {
					return FormatJSONL, nil
				}
			}
			return "", nil
		}
		// A header naming any of the columns, in any case, is meant as
		// Chroma's CSV: ParseChromaCSV then names a missing or misspelt
		// column (a TREC or BEIR reader would call it a bad qrels line).
		for _, c := range strings.Split(string(line), ",") {
			c = strings.ToLower(strings.Trim(strings.TrimSpace(c), `"`))
			if slices.Contains(chromaWant, c) {
				return FormatChromaCSV, nil
			}
		}
		return "", nil
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return "", nil
}

// Read reads span labels from path in the format Detect finds and checks
// them against docs (ReadChecked with DefaultCheckOptions): every problem
// of the file is in the error, joined. A file Detect does not recognise is
// an error saying what span labels look like.
func Read(path string, docs []corpus.Document) ([]Query, error) {
	return checkedQueries(ReadChecked(path, docs, DefaultCheckOptions()))
}

// ReadChecked is Read with options (the sweep's: AcceptMoved, the anchor
// record): it checks the labels at path, in the format Detect finds,
// against docs and returns them with every problem (Checked.Err) instead
// of failing at the first. A file Detect does not recognise, or that cannot
// be read, is an error.
func ReadChecked(path string, docs []corpus.Document, opt CheckOptions) (*Checked, error) {
	format, err := Detect(path)
	if err != nil {
		return nil, err
	}
	check := CheckJSONL
	switch format {
	case FormatJSONL:
	case FormatChromaCSV:
		check = CheckChromaCSV
	default:
		return nil, fmt.Errorf(`%s: not span labels: want JSONL rows with "gold_spans" or Chroma's questions.csv (header question,references,corpus_id)`, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return check(f, path, docs, opt)
}
