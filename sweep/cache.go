package sweep

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/fileutil"
	"github.com/ragbench/ragbench/internal/hashkey"
	"github.com/ragbench/ragbench/kinds"
)

// withoutName is rc as the run cache keys it: without its name and its
// inputs' names (the key holds the inputs' own keys instead).
func withoutName(rc config.RetrieverConfig) config.RetrieverConfig {
	rc.Name = ""
	rc.Settings = kinds.WithoutInputs(rc.Settings)
	return rc
}

// cachedRun is a run's on-disk form in the run cache: query id → [[id,
// score]...]. Scores survive JSON exactly (shortest round-trip form).
func cachedRun(run eval.Run) map[string][][2]any {
	out := make(map[string][][2]any, len(run))
	for q, l := range run {
		rows := make([][2]any, len(l))
		for i, r := range l {
			rows[i] = [2]any{r.DocID, r.Score}
		}
		out[q] = rows
	}
	return out
}

// writeCacheJSON writes v's JSON to the run-cache file path, atomically;
// a value JSON cannot hold (NaN) is an error, not a panic.
func writeCacheJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err == nil {
		err = fileutil.WriteAtomic(path, b)
	}
	if err != nil {
		return fmt.Errorf("run cache: %w", err)
	}
	return nil
}

// notesPath is the file beside a run-cache file that holds its run's
// notes (kinds.Cell.Notes): <key>.notes.json, a JSON list of lines.
func notesPath(runPath string) string {
	return strings.TrimSuffix(runPath, ".json") + ".notes.json"
}

// writeNotes writes the notes of the run cached at runPath when its kind
// is a kinds.Noter (an empty list too: "no note" is known).
func writeNotes(runPath string, noter bool, notes []string) error {
	if !noter {
		return nil
	}
	if notes == nil {
		notes = []string{}
	}
	return writeCacheJSON(notesPath(runPath), notes)
}

// readNotes reads the notes of the run cached at runPath; ok is false
// when a Noter's are missing or unreadable (a run cached before notes
// were: the caller makes it again). A kind that notes nothing has none.
func readNotes(runPath string, noter bool) (notes []string, ok bool) {
	if !noter {
		return nil, true
	}
	b, err := os.ReadFile(notesPath(runPath))
	if err != nil || json.Unmarshal(b, &notes) != nil {
		return nil, false
	}
	return notes, true
}

func readCachedRun(path string) (eval.Run, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var raw map[string][][2]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	run := make(eval.Run, len(raw))
	for q, rows := range raw {
		l := make([]eval.Result, len(rows))
		for i, r := range rows {
			if err := json.Unmarshal(r[0], &l[i].DocID); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			if err := json.Unmarshal(r[1], &l[i].Score); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
		}
		run[q] = l
	}
	return run, nil
}

// cacheKey is cell's run-cache key: corpus, chunking, queries, retriever
// config (its name and input names aside), model folder hash, depth and
// the keys of its inputs' runs.
//
// runCacheVersion is part of every key and goes up whenever the code that
// makes a run changes its output for the same inputs, so a run cached by
// an older ragbench is never read as this one's. Version 2: every ranking
// orders tied scores by doc id descending (trec_eval's order; version 1
// retrievers cut ties ascending, so a tie at the depth boundary kept other
// items).
const runCacheVersion = 2

func (r *cellRunner) cacheKey(cc *chunkCells, cell config.Cell) string {
	rc := cell.Retriever
	keyParts := map[string]any{
		"v": runCacheVersion, "corpus": r.corpusHash, "chunking": cell.Chunking, "queries": r.queriesKey,
		"retriever": withoutName(rc), "model": r.modelHash[rc.Model()], "depth": cc.depth,
	}
	var inKeys []string
	for _, in := range rc.InputNames() {
		inKeys = append(inKeys, cc.runs[in].key)
	}
	keyParts["inputs"] = inKeys
	if k, ok := rc.Settings.(kinds.CacheKeyed); ok {
		// Runs an older ragbench cached under this same key were made
		// otherwise (k1: 0 and alpha: 0 ran as 0.9 and 0.4; a weight-0
		// input took part in the fusion): never reuse them.
		for part, v := range k.CacheKeyParts() {
			keyParts[part] = v
		}
	}
	return hashkey.Of(keyParts)
}
