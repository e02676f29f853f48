package sweep

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/google/renameio/v2"
)

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("sweep: cannot marshal %T: %v", v, err)) // only plain structs are marshalled
	}
	return b
}

// fileSHA256 returns the sha256 (hex) of a file's bytes.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// writeFileAtomic creates path's folder and writes data atomically with
// renameio (temporary file in the same folder, fsync, rename), so readers
// never see a partial file. New files get mode 0644.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := renameio.WriteFile(path, data, 0o644, renameio.WithTempDir(dir), renameio.IgnoreUmask()); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// IsHeldOut reports whether query id qid is held out: the first 8 bytes of
// sha256(decimal seed + "\x00" + qid), read big-endian as u ∈ [0, 2^64),
// satisfy u / 2^64 < fraction. The choice depends only on (seed, qid), so a
// query stays on its side of the split whatever else the dataset holds.
func IsHeldOut(qid string, seed int64, fraction float64) bool {
	h := sha256.Sum256([]byte(strconv.FormatInt(seed, 10) + "\x00" + qid))
	u := binary.BigEndian.Uint64(h[:8])
	return float64(u)/18446744073709551616.0 < fraction
}
