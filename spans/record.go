package spans

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/internal/fileutil"
)

// DocDigest is the SHA-256 of a document's text (UTF-8, as corpus.Load
// returns it: line ends read as Python reads them), in hex.
func DocDigest(text string) string {
	h := sha256.Sum256([]byte(text))
	return hex.EncodeToString(h[:])
}

// AnchorRecord is what a span-labels file was checked against when it was
// written or fixed (bench labels record, bench labels check --fix): the
// digest of every document it labels, and of the labels file itself. It
// lies beside the labels file (AnchorRecordPath), as JSON:
//
//	{"labels_sha256": "…", "documents": {"policies/leave": "…"}}
//
// Against a changed corpus it tells a label that never matched its
// document (the document is as recorded) from one whose document changed
// since (CheckOptions.Recorded); Labels tells whether the labels file was
// edited since it was recorded.
type AnchorRecord struct {
	Labels    string            `json:"labels_sha256"` // SHA-256 of the labels file's bytes, in hex
	Documents map[string]string `json:"documents"`     // doc id → DocDigest of its text
}

// AnchorRecordPath is where the AnchorRecord of the labels file
// labelsPath lives: labelsPath + ".anchors.json".
func AnchorRecordPath(labelsPath string) string { return labelsPath + ".anchors.json" }

// NewAnchorRecord is the record of a labels file whose bytes are data,
// checked as c against docs: the digest of each document c's labels name.
func NewAnchorRecord(data []byte, c *Checked, docs []corpus.Document) AnchorRecord {
	h := sha256.Sum256(data)
	rec := AnchorRecord{Labels: hex.EncodeToString(h[:]), Documents: map[string]string{}}
	for _, d := range docs {
		if c.Docs[d.ID] {
			if _, done := rec.Documents[d.ID]; !done {
				rec.Documents[d.ID] = DocDigest(d.Text)
			}
		}
	}
	return rec
}

// WriteAnchorRecord writes rec beside labelsPath atomically
// (fileutil.WriteAtomic), keys sorted (encoding/json's map order).
func WriteAnchorRecord(labelsPath string, rec AnchorRecord) error {
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	return fileutil.WriteAtomic(AnchorRecordPath(labelsPath), append(data, '\n'))
}

// ReadAnchorRecord reads the AnchorRecord beside labelsPath. A missing
// record is an error matching fs.ErrNotExist; a malformed one names the
// file and the field.
func ReadAnchorRecord(labelsPath string) (AnchorRecord, error) {
	path := AnchorRecordPath(labelsPath)
	data, err := os.ReadFile(path)
	if err != nil {
		return AnchorRecord{}, err
	}
	var rec AnchorRecord
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return AnchorRecord{}, fmt.Errorf("%s: not an anchor record ({\"labels_sha256\", \"documents\"}): %v", path, err)
	}
	for id, d := range rec.Documents {
		if len(d) != 64 || strings.Trim(d, "0123456789abcdef") != "" {
			return AnchorRecord{}, fmt.Errorf("%s: documents: %q: want a SHA-256 in hex, got %q", path, id, d)
		}
	}
	return rec, nil
}

// Digest is a SHA-256 of what span labels say, in hex, for a manifest: per
// query in id order, its id, question, slice, and its gold and
// not-relevant spans (document, code points, grade, group) in label order.
// It does not depend on how the file writes them (offsets or text, key
// order, white space), so labels that moved and were placed anew
// (CheckOptions.AcceptMoved) digest as their new places.
func Digest(queries []Query) string {
	qs := slices.Clone(queries)
	slices.SortFunc(qs, func(a, b Query) int { return strings.Compare(a.ID, b.ID) })
	h := sha256.New()
	enc := json.NewEncoder(h)
	for _, q := range qs {
		row := []any{q.ID, q.Text, q.Slice}
		for _, list := range [][]Span{q.Gold, q.NonRelevant} {
			var spans [][]any
			for _, g := range list {
				spans = append(spans, []any{g.Doc, g.Start, g.End, g.Grade, g.Group})
			}
			row = append(row, spans)
		}
		_ = enc.Encode(row) // a hash never fails to write
	}
	return hex.EncodeToString(h.Sum(nil))
}
