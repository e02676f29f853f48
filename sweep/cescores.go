package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"

	"github.com/ragbench/ragbench/internal/fileutil"
)

// ceDisk is the cross-encoder score cache on disk, one file per model
// (cache_dir/ce/<folderHash of the model>.json): sha256 of (query,
// passage) → score. It extends crossScorer's in-memory memo across runs,
// so that a rerank alpha grid tuned again (other alphas, another config
// over the same first stage) only reinterpolates: no (query, passage) is
// scored twice for one model. Scores are float32 and round-trip JSON
// exactly. A missing or unreadable file is an empty cache. Guarded by its
// crossScorer's mutex.
type ceDisk struct {
	path   string
	scores map[string]float32
	added  int // scores not yet saved
}

// loadCEDisk opens model's score cache under cacheDir (nil when the
// model folder cannot be hashed: then nothing is cached).
func loadCEDisk(cacheDir, model string) *ceDisk {
	h, err := folderHash(model)
	if err != nil || cacheDir == "" {
		return nil
	}
	d := &ceDisk{path: filepath.Join(cacheDir, "ce", h+".json"), scores: map[string]float32{}}
	if data, err := os.ReadFile(d.path); err == nil {
		if json.Unmarshal(data, &d.scores) != nil {
			d.scores = map[string]float32{}
		}
	}
	return d
}

func ceKey(query, passage string) string {
	s := sha256.Sum256([]byte(strconv.Itoa(len(query)) + ":" + query + passage))
	return hex.EncodeToString(s[:])
}

func (d *ceDisk) get(query, passage string) (float32, bool) {
	if d == nil {
		return 0, false
	}
	v, ok := d.scores[ceKey(query, passage)]
	return v, ok
}

func (d *ceDisk) put(query, passage string, v float32) {
	if d != nil {
		d.scores[ceKey(query, passage)] = v
		d.added++
	}
}

// save writes the cache when it has new scores.
func (d *ceDisk) save() error {
	if d == nil || d.added == 0 {
		return nil
	}
	if err := fileutil.WriteAtomic(d.path, mustJSON(d.scores)); err != nil {
		return err
	}
	d.added = 0
	return nil
}

// saveScores writes c's new scores to its disk cache.
func (c *crossScorer) saveScores() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.disk.save()
}
