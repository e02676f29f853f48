package kinds

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/passages"
)

// RunFile is a type run retriever: the results of a pipeline that ran
// outside ragbench, read from a file (docs/pipelines.md):
//
//   - a passage run (JSONL, {"qid", "results": [...]}): the pipeline's own
//     passages, placed in the corpus, scored on their own lengths;
//   - a TREC run of the pipeline's own chunk ids with ChunkMap placing
//     them: the same;
//   - a TREC run of the row's own chunk ids (ragbench's chunking, no chunk
//     map): a chunk run scored exactly as a built-in cell's.
//
// File may name the chunking with {chunking} ("runs/lc-{chunking}.jsonl":
// one file per chunking row); without it one file serves every row, read
// once.
type RunFile struct {
	// File is the run (relative to the config's folder).
	File string `yaml:"file" json:"file,omitempty"`
	// ChunkMap places a TREC run's chunk ids in the corpus (relative to
	// the config's folder; may hold {chunking} too).
	ChunkMap string `yaml:"chunk_map" json:"chunk_map,omitempty"`
	// MaxUnmapped is the highest share of the run's results that may be
	// text found nowhere, or at several places, in the corpus
	// (passages.DefaultMaxUnmapped when absent); above it the sweep fails.
	MaxUnmapped *float64 `yaml:"max_unmapped" json:"max_unmapped,omitempty"`
}

// chunkingPlaceholder in File or ChunkMap is replaced by the row's
// chunking name.
const chunkingPlaceholder = "{chunking}"

// Check requires file and checks max_unmapped.
func (r *RunFile) Check(c Checker) {
	c.Only("file", "chunk_map", "max_unmapped")
	if r.File == "" {
		c.Bad("file", "missing: the pipeline's run (a passage run, or a TREC run; docs/pipelines.md)")
	}
	checkMaxUnmapped(c, r.MaxUnmapped)
}

// Describe names the file (its base name: the report says what was
// measured, not where).
func (r *RunFile) Describe() string {
	d := "run file " + filepath.Base(r.File)
	if r.ChunkMap != "" {
		d += ", chunk map " + filepath.Base(r.ChunkMap)
	}
	return d
}

// NeedsRuntime is false.
func (r *RunFile) NeedsRuntime() bool { return false }

// Cacheable is false: the file is read again by every sweep (it is the
// run; caching it would keep a stale copy once the pipeline rewrote it).
func (r *RunFile) Cacheable() bool { return false }

// OwnPassages marks the kind (PassageKind).
func (r *RunFile) OwnPassages() bool { return true }

// RelativePaths are the file and the chunk map.
func (r *RunFile) RelativePaths() []*string { return []*string{&r.File, &r.ChunkMap} }

// Preflight reports a file or chunk map that does not exist (for a name
// holding {chunking}, its folder).
func (r *RunFile) Preflight(name string, credentials bool) []FieldError {
	var errs []FieldError
	for _, f := range []struct{ key, path string }{{"file", r.File}, {"chunk_map", r.ChunkMap}} {
		p := f.path
		if p == "" {
			continue
		}
		what := "file"
		if strings.Contains(p, chunkingPlaceholder) {
			p, what = filepath.Dir(p), "folder"
		}
		if _, err := os.Stat(p); err != nil {
			errs = append(errs, FieldError{f.key, fmt.Sprintf("retriever %q: %s %s not found", name, what, p)})
		}
	}
	return errs
}

// Run reads the cell's run: a passage run (placed with the sweep's
// locator), a TREC run placed by the chunk map, or a TREC run of the
// row's chunk ids; a source that does not name {chunking} is read once
// for the sweep.
func (r *RunFile) Run(ctx context.Context, c *Cell) error {
	file := strings.ReplaceAll(r.File, chunkingPlaceholder, c.Chunking)
	chunkMap := strings.ReplaceAll(r.ChunkMap, chunkingPlaceholder, c.Chunking)
	key := "run\x00" + file + "\x00" + chunkMap
	if !passages.IsRun(file) && chunkMap == "" {
		key += "\x00" + c.Chunking // the row's own chunk ids
	}
	c.Progress.Begin(StageSearch, len(c.Queries), "queries")
	res, reused, err := c.Env.passageSource(key, func() (*passageResult, error) {
		t0 := time.Now()
		res, err := r.read(c, file, chunkMap)
		if err == nil {
			res.stats.Search = time.Since(t0).Seconds()
		}
		return res, err
	})
	if err != nil {
		return err
	}
	res.set(c, reused)
	note := ""
	if reused {
		note = "read once for the sweep: the same run as the first chunking's"
	}
	c.Progress.End(note)
	return nil
}

// read reads file (and chunkMap) for cell c.
func (r *RunFile) read(c *Cell, file, chunkMap string) (*passageResult, error) {
	loc := c.Env.locator(c.Docs)
	if passages.IsRun(file) {
		run, err := passages.Read(file, loc)
		if err != nil {
			return nil, wrapName(c.Retriever, err)
		}
		return scorePassages(c, run, maxUnmapped(r.MaxUnmapped))
	}
	ids, _, err := eval.ReadRunInfo(file)
	if err != nil {
		return nil, wrapName(c.Retriever, err)
	}
	if chunkMap != "" {
		cm, err := passages.ReadChunkMap(chunkMap, loc)
		if err != nil {
			return nil, wrapName(c.Retriever, err)
		}
		run, err := passages.FromTREC(ids, file, cm, eval.TieDocIDDesc)
		if err != nil {
			return nil, wrapName(c.Retriever, err)
		}
		return scorePassages(c, run, maxUnmapped(r.MaxUnmapped))
	}
	// The row's own chunk ids: a chunk run, checked against its chunks.
	byID := c.ChunkIndex()
	var unknown []string
	for _, q := range slices.Sorted(maps.Keys(ids)) {
		for _, res := range ids[q] {
			if _, known := byID.Get(res.DocID); !known {
				unknown = append(unknown, fmt.Sprintf("%q (query %q)", res.DocID, q))
			}
		}
	}
	if len(unknown) > 0 {
		more := ""
		if len(unknown) > 5 {
			more = fmt.Sprintf(" and %d more", len(unknown)-5)
			unknown = unknown[:5]
		}
		return nil, fmt.Errorf("retriever %q: %s names ids that are not chunks of chunking %s: %s%s; a TREC run of a pipeline's own chunk ids needs chunk_map (docs/pipelines.md)",
			c.Retriever, file, c.Chunking, strings.Join(unknown, ", "), more)
	}
	return &passageResult{chunkRun: ids}, nil
}
