package sweep

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
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

// IsHeldOut reports whether query id qid is held out: the first 8 bytes of
// sha256(decimal seed + "\x00" + qid), read big-endian as u ∈ [0, 2^64),
// satisfy u / 2^64 < fraction. The choice depends only on (seed, qid), so a
// query stays on its side of the split whatever else the dataset holds.
func IsHeldOut(qid string, seed int64, fraction float64) bool {
	h := sha256.Sum256([]byte(strconv.FormatInt(seed, 10) + "\x00" + qid))
	u := binary.BigEndian.Uint64(h[:8])
	return float64(u)/18446744073709551616.0 < fraction
}
