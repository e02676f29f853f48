package corpus

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/fileutil"
)

// LabelInfo records, beside a chunk-level qrels file, the chunking (and the
// corpus) its chunk ids belong to. Chunk ids such as "d#0" exist under every
// chunking, so the ids alone cannot show that labels are stale; the record
// can. It is stored as JSON in LabelInfoPath(qrelsPath):
//
//	{"chunking": "fixed-128o32", "corpus_sha256": "…"}
type LabelInfo struct {
	Chunking string `json:"chunking"`                // Spec.Name of the chunking the labels were made on
	Corpus   string `json:"corpus_sha256,omitempty"` // Hash of the documents, "" if not recorded
}

// NewLabelInfo returns the record for labels made on docs cut by spec.
func NewLabelInfo(spec Spec, docs []Document) LabelInfo {
	return LabelInfo{Chunking: spec.Name(), Corpus: Hash(docs)}
}

// LabelInfoPath is where the LabelInfo of the qrels file qrelsPath lives:
// qrelsPath + ".chunking.json".
func LabelInfoPath(qrelsPath string) string { return qrelsPath + ".chunking.json" }

// WriteLabelInfo writes info beside qrelsPath atomically
// (fileutil.WriteAtomic: temp file in the same folder, fsync, rename; new
// files get mode 0644). Errors name the path.
func WriteLabelInfo(qrelsPath string, info LabelInfo) error {
	if _, err := ParseSpec(info.Chunking); err != nil {
		return fmt.Errorf("label info: %w", err)
	}
	data, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	path := LabelInfoPath(qrelsPath)
	return fileutil.WriteAtomic(path, append(data, '\n'))
}

// ReadLabelInfo reads the LabelInfo beside qrelsPath. A missing record is an
// error matching fs.ErrNotExist; a malformed one names the file and field.
func ReadLabelInfo(qrelsPath string) (LabelInfo, error) {
	path := LabelInfoPath(qrelsPath)
	data, err := os.ReadFile(path)
	if err != nil {
		return LabelInfo{}, err
	}
	var info LabelInfo
	if err := json.Unmarshal(data, &info); err != nil {
		return LabelInfo{}, fmt.Errorf("%s: %w", path, err)
	}
	if _, err := ParseSpec(info.Chunking); err != nil {
		return LabelInfo{}, fmt.Errorf("%s: chunking: %w", path, err)
	}
	return info, nil
}

// Check reports whether labels recorded with info can be scored on docs cut
// by spec: the chunking names must be equal, and the corpus hashes too when
// recorded. Otherwise the error is a *StaleLabelsError.
func (info LabelInfo) Check(spec Spec, docs []Document) error {
	if info.Chunking != spec.Name() {
		return &StaleLabelsError{Chunking: spec.Key(), Recorded: info.Chunking}
	}
	if info.Corpus != "" && info.Corpus != Hash(docs) {
		return &StaleLabelsError{Chunking: spec.Key(), Recorded: info.Chunking, CorpusChanged: true}
	}
	return nil
}

// CheckLabelsFile is CheckLabels for qrels read from qrelsPath, plus the
// recorded chunking: when the qrels are chunk-level and a LabelInfo lies
// beside the file, it must match spec and docs (LabelInfo.Check). Without a
// record only the ids are checked.
func CheckLabelsFile(qrelsPath string, qrels eval.Qrels, docs []Document, spec Spec, chunks Chunks) (Level, error) {
	level, err := CheckLabels(qrels, docs, spec, chunks)
	if err != nil || level != ChunkLevel {
		return level, err
	}
	info, err := ReadLabelInfo(qrelsPath)
	if errors.Is(err, fs.ErrNotExist) {
		return level, nil
	}
	if err != nil {
		return level, err
	}
	return level, info.Check(spec, docs)
}
